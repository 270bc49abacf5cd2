"""Where a table's scenes are built: its state gathered once per change, for every door to draw.

The public part (`TableScene`) is built once per change of the table (its version, status, seats,
deadline) and shared by every viewer and every door: the group's message, each hand, the web
frames and the terminal all draw the same one. A seat's scene adds its own hand to it.

A table is read through `SceneSource`, what a table (or a replica of one, `bot.live_follow`) offers,
so this module imports no table actor.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Protocol

from bot.ai import move_seed
from bot.scene.build import choices, final_trick_of, hand_scene, lobby_scene, table_scene
from bot.scene.types import (
    BoardScore,
    Clock,
    ClockKind,
    LeagueLine,
    Result,
    Scene,
    SeriesScore,
    Status,
    Stopped,
    Summary,
    TableScene,
    Trick,
)
from bot.table.seats import Seats
from bot.table.state import TableMeta
from engine import Match
from engine.boards import declarers_score
from engine.formats import best_of_three_winner
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
    league_line: LeagueLine | None

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


def series_after(meta: TableMeta, winner: int) -> SeriesScore | None:
    """A best of three's games won once this game's winner is counted (`bot.features.opening` deals
    the next game from the same count)."""
    series = meta.series
    if series is None:
        return None
    wins = list(series.wins)
    wins[winner] += 1
    return SeriesScore((wins[0], wins[1]), best_of_three_winner([0] * wins[0] + [1] * wins[1]) is not None)


def board_summary(s: Summary) -> Summary:
    """A board's hand: its points and kitty, no deal won or levels climbed (it is scored by its points)."""
    return replace(s, winner=None, side=None, levels_up=0, knocked_to=None, levels_after=None, next_dealer=None)


def board_score(m: Match, meta: TableMeta) -> BoardScore | None:
    """A board table's result as duplicate scores it (`bot.table.announce.board_result_text` says it)."""
    info = meta.board
    if info is None or not m.history:
        return None
    h = m.history[0]
    points = int(h["defender_points"])
    return BoardScore(info.number, int(h["declarer_team"]), points, declarers_score(points))


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
        key = (t.match.version if t.match is not None else -1, status, infos, clock, t.preset_name, t.league_line)
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
            if t.meta.board is not None and sc.summary is not None:
                sc = replace(sc, summary=board_summary(sc.summary))
            ft = t.meta.forfeited
            if sc.result is None and ft is not None and status == "finished":  # ended as a forfeit
                sc = replace(sc, result=Result(1 - ft, sc.levels, "forfeit"))
            if sc.result is None and t.meta.abandoned_by_vote and status == "abandoned":
                sc = replace(sc, result=Result(None, sc.levels, "abandoned", stopped=Stopped(
                    sc.hand_no, sc.defenders, sc.defender_points)))
            elif sc.result is not None and sc.result.winner is not None:
                sc = replace(sc, result=replace(sc.result, series=series_after(t.meta, sc.result.winner),
                                                board=board_score(t.match, t.meta), league=t.league_line))
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
