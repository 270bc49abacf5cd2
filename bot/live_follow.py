"""Web tables watched on this worker while another worker drives them (several workers, bot.cluster).

Why. Behind one reverse proxy a page's socket lands on any worker, not necessarily on the one that
holds the table's lease. Its actions already reach the owner (`Host.handle` routes them through
the inbox); its view is built here, from the store, with the owner's own projection: a replica
`Table` (loaded from the stored row and log, never started, never in `Host.tables`) is handed to
`bot.live` exactly as the owner's actor hands over its table, so a seat is sent that seat's view
and nothing else, by the same code.

When. The owner says a table changed (`Follower.poke`, from its NOTIFY) and the replica applies
the actions logged since its version; as a safety net for a notification lost while ownership
moves (the new owner learns of the watchers at its next beat), a quiet open table is looked at
again every `POLL` seconds. When this worker takes the table over, the replica is dropped and the
table's own actor goes on publishing to the same watchers; when it hands a table over, the table
is followed from then on. Either way a socket stays open and keeps seeing the table.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from bot.table.actor import Table
from engine import IllegalAction, Match, Rules
from persistence.errors import StoreDown
from persistence.store import StoredMatch

if TYPE_CHECKING:
    from bot.host import Host

log = logging.getLogger(__name__)

#: Seconds after which an open table followed here is read again though nobody said it changed.
POLL = 2.0
#: Seconds a table read for a page's hello is kept though nobody watches it yet.
HELLO_GRACE = 10.0
#: Statuses whose table still changes.
OPEN = ("lobby", "active", "paused")


class TailStore(Protocol):
    async def match_tail(self, match_id: int, from_seq: int) -> StoredMatch | None: ...


class SeriesStore(Protocol):
    async def next_in_series(self, platform: str, match_id: int) -> int | None: ...


@dataclass(eq=False)
class Followed:
    """One table driven elsewhere: its replica and what it was built from."""

    match: Match | None = None
    view: Table | None = None
    shown: tuple[object, ...] = ()  # what the watchers were last shown (version, status, seats, ...)
    read_at: float = 0.0
    again: bool = False
    task: asyncio.Task[None] | None = None
    gone: bool = False  # no such open table
    ready: asyncio.Event = field(default_factory=asyncio.Event)


class Follower:
    """The replicas of the tables this worker serves pages of but does not drive."""

    def __init__(self, host: Host, store: TailStore, *, series: SeriesStore | None = None,
                 poll: float = POLL) -> None:
        self.host = host
        self.store = store
        self.series = series
        self.poll = poll
        self.followed: dict[int, Followed] = {}
        self.reads = 0  # replica refreshes (tests, metrics)
        #: Called when pages here start or stop watching a table driven elsewhere (the cluster tells its owner).
        self.announce: Callable[[], None] | None = None

    # ----- what the host asks -----

    async def load(self, match_id: int) -> Table | None:
        """The replica of an open table driven elsewhere, read now if it was not followed (a page's hello)."""
        f = self.followed.get(match_id)
        if f is None or not f.ready.is_set():
            f = self.poke(match_id)
            await f.ready.wait()
        return None if f.gone else f.view

    async def next_game(self, match_id: int, platform: str) -> int | None:
        """The open game that follows `match_id` in its best of three, read from the store whichever
        worker drives it (a page of the game that ended follows the series there); its replica is
        read too, so that the seats of that game are known here. None while it is not open yet, or
        while the database is away (the page asks again)."""
        if self.series is None:
            return None
        try:
            found = await self.series.next_in_series(platform, match_id)
            if found is None or found in self.host.tables:
                return found
            return None if await self.load(found) is None else found
        except StoreDown as exc:
            log.warning("table %s: its next game could not be looked up: %s", match_id, exc)
            return None

    def view(self, match_id: int) -> Table | None:
        f = self.followed.get(match_id)
        return None if f is None or f.gone else f.view

    def poke(self, match_id: int) -> Followed:
        """The table changed (or may have): read it again, once at a time, again if poked meanwhile."""
        f = self.followed.get(match_id)
        if f is None:
            f = self.followed[match_id] = Followed()
        f.again = True
        if f.task is None or f.task.done():
            f.task = asyncio.create_task(self._refreshing(match_id, f), name=f"follow-{match_id}")
        return f

    def watchers_changed(self) -> None:
        if self.announce is not None:
            self.announce()

    def watching(self) -> dict[int, frozenset[int]]:
        """The seats this worker serves pages of, by table it does not drive (onlookers: no seat)."""
        out: dict[int, frozenset[int]] = {}
        for match_id, ws in self.host.live.watchers.items():
            if match_id not in self.host.tables and ws:
                out[match_id] = frozenset(w.seat for w in ws if w.seat is not None and not w.hidden)
        return out

    async def sweep(self) -> None:
        """Each beat: follows every watched table driven elsewhere, forgets the rest, and reads again
        the open ones nobody said changed for `poll` seconds."""
        live = self.host.live
        now = time.monotonic()
        for match_id, f in list(self.followed.items()):
            # a table read for a page's hello is not watched yet: kept a moment for its watcher
            idle = f.ready.is_set() and now - f.read_at > HELLO_GRACE
            if match_id in self.host.tables or (idle and not live.watched(match_id)):
                self.forget(match_id)
        for match_id in list(live.watchers):
            if match_id in self.host.tables or not live.watched(match_id):
                continue
            g = self.followed.get(match_id)
            if g is None or (not g.gone and now - g.read_at >= self.poll and g.view is not None
                             and g.view.status in OPEN):
                self.poke(match_id)

    def forget(self, match_id: int) -> None:
        f = self.followed.pop(match_id, None)
        if f is not None and f.task is not None:
            f.task.cancel()

    async def stop(self) -> None:
        tasks = [f.task for f in self.followed.values() if f.task is not None]
        self.followed.clear()
        for task in tasks:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    # ----- reading the store -----

    async def _refreshing(self, match_id: int, f: Followed) -> None:
        try:
            while f.again and self.followed.get(match_id) is f:
                f.again = False
                try:
                    await self._refresh(match_id, f)
                except asyncio.CancelledError:
                    raise
                except Exception:
                    log.exception("table %s: its replica could not be read; trying again at the next beat", match_id)
                    f.read_at = time.monotonic()
        finally:
            f.ready.set()

    async def _refresh(self, match_id: int, f: Followed) -> None:
        host = self.host
        if match_id in host.tables:  # driven here now: its actor publishes
            f.gone = True
            return
        have = f.match.version if f.match is not None else 0
        tail = await self.store.match_tail(match_id, have)
        self.reads += 1
        f.read_at = time.monotonic()
        if tail is None or tail.error or tail.platform not in host.platforms or tail.status not in (*OPEN, "finished"):
            f.gone = True
            if tail is not None and tail.error:
                log.warning("table %s: %s", match_id, tail.error)
            return
        match = f.match
        if tail.version > have or match is None:
            if match is None:
                match = await asyncio.to_thread(Match.replay, Rules.from_dict(tail.rules), tail.seed, tail.actions)
            else:
                try:
                    for action in tail.actions:
                        match.apply(action)
                except IllegalAction:  # never expected: the log is what the owner's engine accepted
                    log.error("table %s: its log does not replay onto the replica; reading it whole", match_id)
                    f.match = None
                    f.again = True
                    return
        await host.load_chat(tail.platform, tail.chat_id)
        shown = (tail.version, tail.status, json.dumps(tail.seats, sort_keys=True),
                 tuple(sorted(tail.deadlines.items())), json.dumps(tail.meta.get("settings"), sort_keys=True))
        if match_id in host.tables:
            f.gone = True  # taken over here while it was read: its actor publishes
            return
        f.match = match
        f.gone = False
        if shown == f.shown and f.view is not None:
            return
        f.shown = shown
        f.view = Table(host, match_id=tail.id, platform=tail.platform, chat_id=tail.chat_id, rules=tail.rules,
                       seats=tail.seats, seed=tail.seed, meta=tail.meta, status=tail.status,
                       deadlines=tail.deadlines, match=None if tail.status == "lobby" else match)
        f.ready.set()
        if self.followed.get(match_id) is f:  # not forgotten while it was read
            host.live.show(f.view)
