"""Live views of a table for front ends that draw it themselves (the web table): who watches which
table, and what each of them may see, built by the table's actor at the moment the state is reached.

A watcher is a callback the actor calls with a `LiveFrame` each time the table changed (an action
committed, a seat taken, a pause). The frame is the table's scene (`bot.scene`, the same one the
chats and the terminal draw) as JSON, built for a seat or an onlooker on demand while the actor
holds the state: a watcher takes what it needs during the call and sends it later, so what it sends
is always a state the engine reached and the store kept. A seat's frame holds that seat's cards
only; an onlooker's none at all.

Watching goes through the actor too (`bot.table.messages.Watch`), so a new watcher's first frame
and every later one come in order, with nothing missed in between.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from bot.platform import ButtonKind
from bot.scene.wire import Json, scene_json

if TYPE_CHECKING:
    from bot.scene.types import Scene
    from engine import Match

#: Seconds a seat still counts as playing on the web after its last page closed or was hidden
#: (another tab, the phone asleep): a page that reloads, a phone that changes networks or a glance
#: at another app does not bring the chat hand and its turn notices back; past it the chat takes
#: over until a page of the seat is shown again (docs/web.md, "One channel at a time").
WEB_GRACE = 60.0

class WebLinks(Protocol):
    """Where a person opens the web table, as the platform's button: given by the web adapter."""

    def seat_link(self, platform: str, match_id: int, user_id: str) -> tuple[str, ButtonKind] | None:
        """A private link for this person's seat (a Mini App button, a signed link), or None."""
        ...

    def table_link(self, platform: str, match_id: int) -> tuple[str, ButtonKind] | None:
        """A link for the group, opening the table as onlooker (or as the seat of who opens it)."""
        ...


Watcher = Callable[["LiveFrame"], None]


class LiveSource(Protocol):
    """A table as the hub shows it: what it is, and the scene each viewer sees of it now (a table
    actor, or a replica of one on another worker, `bot.live_follow`)."""

    @property
    def id(self) -> int: ...

    @property
    def status(self) -> str: ...

    @property
    def match(self) -> Match | None: ...

    def live_scene(self, seat: int | None) -> Scene:
        """What `seat` sees now (None: an onlooker), with why it was last refused."""
        ...


@dataclass
class Watch:
    """A watcher of one table: `seat` is the seat whose view it is sent (None: the public view)."""

    fn: Watcher
    seat: int | None
    hidden: bool = False  # the page says it is not shown (`LiveHub.seen`): it does not count as playing there


class LiveFrame:
    """The table as it is now; valid only during the watchers' call (the actor moves on after)."""

    def __init__(self, table: LiveSource, seq: int) -> None:
        self._table: LiveSource | None = table
        self.match_id = table.id
        self.seq = seq
        self.version = table.match.version if table.match is not None else 0
        self.status = table.status
        self._cache: dict[int | None, str] = {}

    def close(self) -> None:
        self._table = None

    def json(self, seat: int | None) -> str:
        """What `seat` sees (None: an onlooker), as the JSON text sent to it."""
        if seat not in self._cache:
            t = self._table
            if t is None:
                raise RuntimeError("a live frame read after its moment")
            self._cache[seat] = json.dumps(state(t, seat), ensure_ascii=False, separators=(",", ":"))
        return self._cache[seat]


def state(t: LiveSource, seat: int | None) -> dict[str, Json]:
    """One seat's frame (None: an onlooker's): its scene, as JSON, with what the page needs to file it."""
    scene = t.live_scene(seat)
    return {"type": "state", "match": t.id, "version": scene.table.version, "status": t.status, "seat": seat,
            "lang": scene.lang, "scene": scene_json(scene)}


#: Called by the hub when a table watched on other workers changed: (match id, those workers).
Changed = Callable[[int, list[str]], None]


class LiveHub:
    """Every table's live watchers, kept by the host. Tables publish to it; web adapters watch
    through their table's actor (`Watch` / `Unwatch` messages), never by touching a table.

    With several workers (bot.cluster), a page's socket may be served by a worker that does not
    drive its table: that worker keeps the watcher here all the same and shows it frames of a
    replica (`bot.live_follow`); the owner's hub knows which seats other workers watch (`remote`),
    so that those seats count as playing on the web, and says through `changed` that they should
    look again."""

    def __init__(self) -> None:
        self.watchers: dict[int, list[Watch]] = {}
        self.links: WebLinks | None = None
        self._seq: dict[int, int] = {}
        self.remote: dict[int, dict[str, frozenset[int]]] = {}  # match -> worker -> seats watched there
        self.changed: Changed | None = None

    def watched(self, match_id: int) -> bool:
        return bool(self.watchers.get(match_id))

    def seats_watched(self, match_id: int) -> set[int]:
        """The seats with a page shown (here or on another worker)."""
        seats = {w.seat for w in self.watchers.get(match_id, ()) if w.seat is not None and not w.hidden}
        for there in self.remote.get(match_id, {}).values():
            seats |= there
        return seats

    def set_remote(self, match_id: int, worker: str, seats: frozenset[int] | None) -> set[int]:
        """Called by the actor: the seats `worker` serves pages of now (None: it watches no more; an
        empty set: onlookers only); returns the seats nobody watches any more because of it. A worker
        newly watching is told to look at once (it may have missed a change)."""
        before = self.seats_watched(match_id)
        there = self.remote.setdefault(match_id, {})
        new = worker not in there
        if seats is not None:
            there[worker] = seats
        else:
            there.pop(worker, None)
            if not there:
                self.remote.pop(match_id, None)
        if new and seats is not None and self.changed is not None:
            self.changed(match_id, [worker])
        return before - self.seats_watched(match_id)

    def add(self, table: LiveSource, watch: Watch) -> None:
        """Called by the actor: the watcher joins and is sent the table as it is."""
        self.watchers.setdefault(table.id, []).append(watch)
        self._send(table, [watch])

    def remove(self, match_id: int, fn: Watcher) -> set[int]:
        """The watcher leaves; returns the seats nobody watches any more because of it."""
        ws = self.watchers.get(match_id)
        if ws is None:
            return set()
        before = self.seats_watched(match_id)
        ws[:] = [w for w in ws if w.fn != fn]  # equal, not identical: a bound method is made anew at each use
        if not ws:
            self.watchers.pop(match_id, None)
        return before - self.seats_watched(match_id)

    def seen(self, match_id: int, fn: Watcher, hidden: bool) -> tuple[set[int], set[int]]:
        """A watcher's page was hidden or shown again; returns the seats no page shows any more
        because of it, and those a page shows again."""
        before = self.seats_watched(match_id)
        for w in self.watchers.get(match_id, ()):
            if w.fn == fn:
                w.hidden = hidden
        after = self.seats_watched(match_id)
        return before - after, after - before

    def publish(self, table: LiveSource) -> None:
        """Called by the actor whenever the table may have changed (each committed action, each message)."""
        self.show(table)
        there = self.remote.get(table.id)
        if there and self.changed is not None:
            self.changed(table.id, list(there))

    def show(self, table: LiveSource) -> None:
        """Sends this worker's watchers of the table its state (the owner's table, or a replica)."""
        ws = self.watchers.get(table.id)
        if ws:
            self._send(table, list(ws))

    def ended(self, match_id: int) -> None:
        self._seq.pop(match_id, None)

    def _send(self, table: LiveSource, ws: list[Watch]) -> None:
        seq = self._seq.get(table.id, 0) + 1
        self._seq[table.id] = seq
        frame = LiveFrame(table, seq)
        try:
            for w in ws:
                w.fn(frame)
        finally:
            frame.close()
