"""What the league keeps of a finished match: a plain, JSON-able record.

The host builds one `MatchRecord` when a match ends (or is adjudicated,
abandoned or forfeited) and hands it to `record_match`. Everything the
league shows (standings, ratings, tournament scores, plain records) is
computed from these records alone, so a record must say who sat where,
how far each team got and how the match ended.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, Literal, cast

from engine.cards import RANKS as ENGINE_RANKS
from engine.text import parse_typed_rank, rank_display

Ending = Literal["target", "time_limit", "abandoned", "forfeit", "duplicate"]
MatchFormat = Literal["single", "best_of_3", "timed"]

ENDINGS: tuple[Ending, ...] = ("target", "time_limit", "abandoned", "forfeit", "duplicate")
FORMATS: tuple[MatchFormat, ...] = ("single", "best_of_3", "timed")

#: Level ranks in playing order as people write them (the engine's order; "10", not "T").
RANKS: tuple[str, ...] = tuple(rank_display(r) for r in range(len(ENGINE_RANKS)))

#: Version of the stored record. Version 1 did not count the step past the target (see `from_dict`).
RECORD_VERSION = 2


def rank_index(level: str) -> int:
    """Position of a level rank in `RANKS` ("T" is accepted for 10), as the engine reads it.

    :raises ValueError: for anything that is not a level rank.
    """
    got = parse_typed_rank(level)
    if got is None:
        raise ValueError(f"not a level rank: {level!r}")
    return got


@dataclass(frozen=True)
class SeatPlayer:
    """Who sat in a seat. AI seats have `is_ai` set and no league identity."""

    seat: int
    user_id: str
    name: str
    is_ai: bool = False

    @property
    def team(self) -> int:
        """Partners sit opposite: seats 0 & 2 are team 0, 1 & 3 team 1."""
        return self.seat % 2


@dataclass(frozen=True)
class HandSummary:
    """One hand: which team declared, the defenders' points, and whether the declarers held."""

    declarer_team: int
    defender_points: int
    declarers_won: bool

    @property
    def winner_team(self) -> int:
        return self.declarer_team if self.declarers_won else 1 - self.declarer_team


@dataclass(frozen=True)
class MatchRecord:
    """A finished match as the league sees it.

    `levels` are the ranks each team reached (index = team); `levels_gained`
    counts the level steps each team climbed over the match (it differs from
    the rank distance when a preset wraps past A or circles back to 2).
    `winner_team` is None only for an abandoned match. `forfeit_team` is
    the side that forfeited. `on_top_team` is the dealer side when play
    stopped (台上), which decides level ties.

    A duplicate team match (document 002, ending ``duplicate``) has no levels: its result is
    `dup_points`, the match points each team took over the boards (index = team), the winner
    the team with more, and a tie on them is a tie (`winner_team` None). Its `levels` stay
    "2"/"2" with nothing gained, and docs/leagues.md says how each ranking method counts it.
    """

    platform: str
    chat_id: str
    match_id: int
    seats: tuple[SeatPlayer, ...]
    preset: str
    levels: tuple[str, str]
    levels_gained: tuple[int, int]
    hands: tuple[HandSummary, ...]
    started_at: datetime
    ended_at: datetime
    ending: Ending
    winner_team: int | None
    match_format: MatchFormat = "single"
    forfeit_team: int | None = None
    on_top_team: int | None = None
    extra: dict[str, object] = field(default_factory=dict)
    dup_points: tuple[int, int] | None = None

    def __post_init__(self) -> None:
        if sorted(p.seat for p in self.seats) != [0, 1, 2, 3]:
            raise ValueError(f"a match record needs seats 0-3, got {[p.seat for p in self.seats]}")
        # kept in seat order, so seats[i] is seat i
        object.__setattr__(self, "seats", tuple(sorted(self.seats, key=lambda p: p.seat)))
        if self.ending not in ENDINGS:
            raise ValueError(f"unknown ending {self.ending!r}")
        if self.match_format not in FORMATS:
            raise ValueError(f"unknown match format {self.match_format!r}")
        if self.winner_team not in (None, 0, 1):
            raise ValueError(f"winner_team must be 0, 1 or None, got {self.winner_team!r}")
        if (self.ending == "duplicate") != (self.dup_points is not None):
            raise ValueError("a duplicate match, and only one, has match points (dup_points)")
        if self.dup_points is not None:
            a, b = self.dup_points
            if self.winner_team != (None if a == b else 0 if a > b else 1):
                raise ValueError(f"match points {a}:{b} do not give winner {self.winner_team!r}")
        if self.winner_team is None and self.ending not in ("abandoned", "duplicate"):
            raise ValueError("only an abandoned match or a duplicate tie has no winner")
        if self.ending == "forfeit" and self.forfeit_team not in (0, 1):
            raise ValueError("a forfeit names the team that forfeited")
        if self.ending == "forfeit" and self.forfeit_team == self.winner_team:
            raise ValueError("the forfeiting team cannot win")
        for level in self.levels:
            rank_index(level)

    # -- derived figures -------------------------------------------------

    @property
    def duration(self) -> timedelta:
        return self.ended_at - self.started_at

    @property
    def hands_played(self) -> int:
        return len(self.hands)

    @property
    def counts(self) -> bool:
        """Abandoned matches are kept in the history but do not count in standings (a duplicate tie does)."""
        return self.ending == "duplicate" or (self.ending != "abandoned" and self.winner_team is not None)

    @property
    def duplicate(self) -> bool:
        """A duplicate team match: scored in match points, not levels."""
        return self.dup_points is not None

    def seat(self, seat: int) -> SeatPlayer:
        return self.seats[seat]

    def team_players(self, team: int) -> tuple[SeatPlayer, SeatPlayer]:
        """The two partners of a team (team 0: seats 0 and 2; team 1: seats 1 and 3)."""
        return self.seats[team], self.seats[team + 2]

    def humans(self) -> tuple[SeatPlayer, ...]:
        return tuple(p for p in self.seats if not p.is_ai)

    def declarer_hands_won(self, team: int) -> int:
        return sum(1 for h in self.hands if h.declarer_team == team and h.declarers_won)

    def defender_hands_won(self, team: int) -> int:
        return sum(1 for h in self.hands if h.declarer_team != team and not h.declarers_won)

    def defender_points(self, team: int) -> tuple[int, ...]:
        """The points this team took in each hand it defended."""
        return tuple(h.defender_points for h in self.hands if h.declarer_team != team)

    # -- storage -----------------------------------------------------------

    def to_dict(self) -> dict[str, object]:
        """A plain JSON-able dict; `from_dict` reads it back."""
        return {
            "v": RECORD_VERSION,
            "platform": self.platform,
            "chat_id": self.chat_id,
            "match_id": self.match_id,
            "seats": [
                {"seat": p.seat, "user_id": p.user_id, "name": p.name, "is_ai": p.is_ai} for p in self.seats
            ],
            "preset": self.preset,
            "levels": list(self.levels),
            "levels_gained": list(self.levels_gained),
            "hands": [[h.declarer_team, h.defender_points, h.declarers_won] for h in self.hands],
            "started_at": self.started_at.isoformat(),
            "ended_at": self.ended_at.isoformat(),
            "ending": self.ending,
            "winner_team": self.winner_team,
            "match_format": self.match_format,
            "forfeit_team": self.forfeit_team,
            "on_top_team": self.on_top_team,
            "extra": self.extra,
            **({} if self.dup_points is None else {"dup_points": list(self.dup_points)}),
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> MatchRecord:
        """Reads `to_dict`'s output; a version-1 record won at the target gets the step past the target
        it left out (the winner had stayed on the target rank, so a 4:4 "tie" was really 5:4)."""
        gained = [int(d["levels_gained"][0]), int(d["levels_gained"][1])]
        winner = None if d["winner_team"] is None else int(d["winner_team"])
        if int(d.get("v", 1)) < 2 and d["ending"] == "target" and winner is not None:
            gained[winner] += 1
        return cls(
            platform=str(d["platform"]),
            chat_id=str(d["chat_id"]),
            match_id=int(d["match_id"]),
            seats=tuple(
                SeatPlayer(int(s["seat"]), str(s["user_id"]), str(s["name"]), bool(s.get("is_ai", False)))
                for s in d["seats"]
            ),
            preset=str(d["preset"]),
            levels=(str(d["levels"][0]), str(d["levels"][1])),
            levels_gained=(gained[0], gained[1]),
            hands=tuple(HandSummary(int(t), int(p), bool(w)) for t, p, w in d["hands"]),
            started_at=_parse_time(d["started_at"]),
            ended_at=_parse_time(d["ended_at"]),
            ending=cast(Ending, d["ending"]),
            winner_team=winner,
            match_format=cast(MatchFormat, d.get("match_format", "single")),
            forfeit_team=None if d.get("forfeit_team") is None else int(d["forfeit_team"]),
            on_top_team=None if d.get("on_top_team") is None else int(d["on_top_team"]),
            extra=dict(d.get("extra", {})),
            dup_points=None if d.get("dup_points") is None else (int(d["dup_points"][0]), int(d["dup_points"][1])),
        )


def _parse_time(text: str) -> datetime:
    t = datetime.fromisoformat(text)
    return t if t.tzinfo is not None else t.replace(tzinfo=UTC)


def gained_between(start: str, end: str) -> int:
    """Level steps from `start` to `end` without wrapping (e.g. 2 -> 7 is 5)."""
    return rank_index(end) - rank_index(start)
