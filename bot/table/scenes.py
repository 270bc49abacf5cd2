"""Where a table's scenes are built: its state gathered once per change, for every door to draw.

The public part (`TableScene`) is built once per change of the table (its version, status, seats,
deadline) and shared by every viewer and every door: the group's message, each hand, the web
frames and the terminal all draw the same one. A seat's scene adds its own hand to it.

A table is read through `SceneSource`, what a table (or a replica of one, `bot.live_follow`) offers,
so this module imports no table actor.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from bot.ai import move_seed
from bot.scene.build import choices, final_trick_of, hand_scene, lobby_scene, table_scene
from bot.scene.types import Clock, ClockKind, Scene, Status, TableScene, Trick
from bot.table.seats import Seats
from bot.table.state import TableMeta
from engine import Match
from engine.views import PublicView, SeatView

#: The deadlines a table shows, in the order they are looked for.
CLOCKS: tuple[ClockKind, ...] = ("turn", "bury", "declare")
#: A deadline this far off is none (a terminal's table has no limits).
NO_LIMIT = 86_400.0
_STATUSES: dict[str, Status] = {"lobby": "lobby", "active": "active", "paused": "paused", "finished": "finished",
                                "abandoned": "abandoned", "broken": "broken"}


class Deadlines(Protocol):
    def left(self, kind: str) -> float | None: ...


class SceneSource(Protocol):
    """What a scene is built from: a table's match, seats, status and deadlines."""

    id: int
    status: str
    seed: int
    meta: TableMeta
    match: Match | None
    seats: Seats

    @property
    def timers(self) -> Deadlines: ...

    @property
    def preset_name(self) -> str: ...

    @property
    def lang(self) -> str: ...

    def public(self) -> PublicView: ...

    def seat_view(self, s: int) -> SeatView: ...

    def seat_lang(self, s: int) -> str: ...


def clock_of(t: SceneSource) -> Clock | None:
    """The running deadline, if one is worth showing."""
    for kind in CLOCKS:
        left = t.timers.left(kind)
        if left is not None and left < NO_LIMIT:
            return Clock(kind, round(max(0.0, left), 1))
    return None


class Scenes:
    """A table's scenes, the public part kept while nothing it shows has changed."""

    def __init__(self, table: SceneSource) -> None:
        self.table = table
        self._key: tuple[object, ...] | None = None
        self._public: TableScene | None = None
        self._final: tuple[int, Trick | None] | None = None  # (hand number, the last hand's final trick)

    def public(self) -> TableScene:
        """The table as every viewer sees it now (built again only when it changed)."""
        t = self.table
        status = _STATUSES.get(t.status, "active")
        clock = clock_of(t) if t.match is not None else None
        infos = tuple(t.seats.infos())
        key = (t.match.version if t.match is not None else -1, status, infos, clock, t.preset_name)
        if self._public is not None and key == self._key:
            return self._public
        if t.match is None:
            sc = lobby_scene(match_id=t.id, preset=t.preset_name, seats=infos,
                             creator=t.meta.creator_name, options=t.meta.options)
        else:
            if self._final is None or self._final[0] != t.match.hand_no:  # once a hand, from the match
                self._final = (t.match.hand_no, final_trick_of(t.match.previous_public()))
            sc = table_scene(t.public(), match_id=t.id, status=status, preset=t.preset_name, seats=infos,
                             clock=clock, next_dealer=t.match.next_dealer(), final_trick=self._final[1],
                             board=t.meta.board is not None)
        self._key, self._public = key, sc
        return sc

    def onlooker(self, lang: str | None = None) -> Scene:
        """What someone not seated sees (the group's table)."""
        return Scene(self.public(), None, lang or self.table.lang)

    def seat(self, s: int, *, picked: Iterable[int] = (), refusal: str | None = None,
             lang: str | None = None) -> Scene:
        """What seat `s` sees: the table and its own hand, what it has picked and why it was refused."""
        t = self.table
        sc = self.public()
        lang = lang or t.seat_lang(s)
        m = t.match
        if m is None or sc.phase is None:
            return Scene(sc, s, lang)
        v = t.seat_view(s)
        can = choices(m, s, v, bury_seed=move_seed(t.seed, m.version, s))
        return Scene(sc, s, lang, hand_scene(v, can, picked), refusal)
