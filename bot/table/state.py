"""A table's typed state as its actor owns it: the match's meta (`TableMeta`), read from the store's
plain JSON when the table is loaded and written back as it (`to_json`) at the persistence boundary.

Why a type and not the stored dict: the meta row used to be a free dict with some 18 string keys,
written by the actor, its lobby and timers, and read by features. Each key now has a type and one
reading of what is stored, old rows included: a key that is missing takes its default, a value of
the wrong shape is dropped, and keys this version does not know (written by the store itself, such
as `broken`, or by an older version, such as `drawn`) are kept as they were. Who sits where is
`bot.table.seats`; what each seat has picked is one stored row a seat (`bot.table.drawn`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TypeAlias, TypeGuard

from bot.settings import TableSettings

JSON: TypeAlias = str | int | float | bool | list["JSON"] | dict[str, "JSON"] | None

#: The keys `TableMeta` reads; any other is kept in `extra`.
KNOWN = frozenset({"preset", "creator", "creator_name", "options", "format", "settings", "board", "tournament",
                   "series", "reserved", "quiet", "votes", "notes", "unreachable", "announced_hand",
                   "table_hand", "start_wanted", "time_limit_left", "forfeited",
                   "abandoned_by_vote"})


@dataclass(frozen=True, slots=True)
class BoardRef:
    """A board table: which board (`bot.duplicate`), of which set (`daily`, an event's, ...), and room."""

    id: int
    number: int | None = None
    set: str = ""
    key: str = ""
    event: int | None = None
    room: str = ""

    @classmethod
    def from_json(cls, raw: object) -> BoardRef | None:
        if not isinstance(raw, dict) or _int(raw.get("id")) is None:
            return None
        return cls(int(raw["id"]), _int(raw.get("number")), _str(raw.get("set")) or "", _str(raw.get("key")) or "",
                   _int(raw.get("event")), _str(raw.get("room")) or "")

    def to_json(self) -> dict[str, JSON]:
        return {"id": self.id, "number": self.number, "set": self.set, "key": self.key, "event": self.event,
                "room": self.room}


@dataclass(frozen=True, slots=True)
class TournamentGame:
    """A tournament's game: which tournament, which pairing (`r1s2`), which game of it."""

    id: int
    pairing: str
    game: int = 1

    @classmethod
    def from_json(cls, raw: object) -> TournamentGame | None:
        if not isinstance(raw, dict) or _int(raw.get("id")) is None:
            return None
        return cls(int(raw["id"]), str(raw.get("pairing", "")), _int(raw.get("game")) or 1)

    def to_json(self) -> dict[str, JSON]:
        return {"id": self.id, "pairing": self.pairing, "game": self.game}


@dataclass(frozen=True, slots=True)
class Series:
    """A best of three: the games each team has won so far, which game this is, the match before it."""

    wins: tuple[int, int] = (0, 0)
    game: int = 1
    previous: int | None = None

    @classmethod
    def from_json(cls, raw: object) -> Series | None:
        if not isinstance(raw, dict):
            return None
        wins = [w for w in _list(raw.get("wins")) if isinstance(w, int)]
        return cls((wins[0], wins[1]) if len(wins) == 2 else (0, 0), _int(raw.get("game")) or 1,
                   _int(raw.get("previous")))

    def to_json(self) -> dict[str, JSON]:
        out: dict[str, JSON] = {"wins": list(self.wins), "game": self.game}
        if self.previous is not None:
            out["previous"] = self.previous
        return out


@dataclass(slots=True)
class TableMeta:
    """What a match keeps besides its rules, seats and log. Written only by its table's actor."""

    preset: str | None = None  # the preset it was opened with
    creator: str | None = None  # the user id of whoever opened it (`kick` is theirs)
    creator_name: str = "?"
    options: str = ""  # the options as typed at `new`
    format: str | None = None  # single, best_of_3, timed (the league's record)
    settings: TableSettings = field(default_factory=TableSettings)
    board: BoardRef | None = None
    tournament: TournamentGame | None = None
    series: Series | None = None
    reserved: dict[int, str] = field(default_factory=dict)  # seat -> the user id it is kept for
    quiet: list[str] = field(default_factory=list)  # user ids not mentioned when it is their turn
    votes: dict[str, list[int]] = field(default_factory=dict)  # pause/resume/abandon/forfeitN -> seats
    notes: dict[int, str] = field(default_factory=dict)  # seat -> why its last move was refused (a catalog key)
    unreachable: list[int] = field(default_factory=list)  # seats the group was told cannot be reached
    announced_hand: int = 0  # the last hand whose result was said
    table_hand: int | None = None  # the hand the group's table message is for (one message a hand)
    start_wanted: bool = False  # a start waits for someone to open the bot
    time_limit_left: float | None = None  # the match clock's seconds left, while paused
    forfeited: int | None = None  # the team that forfeited the match (it ended so)
    abandoned_by_vote: bool = False  # its players voted to abandon it (it ended so)
    extra: dict[str, JSON] = field(default_factory=dict)  # keys of others, kept as stored

    @classmethod
    def from_json(cls, raw: Mapping[str, object] | None) -> TableMeta:
        """The meta as stored (any version's); never raises on what an older version wrote."""
        raw = raw or {}
        settings = raw.get("settings")
        reserved = raw.get("reserved")
        votes = raw.get("votes")
        notes = raw.get("notes")
        return cls(
            preset=_str(raw.get("preset")),
            creator=_str(raw.get("creator")),
            creator_name=_str(raw.get("creator_name")) or "?",
            options=_str(raw.get("options")) or "",
            format=_str(raw.get("format")),
            settings=TableSettings.from_dict(dict(settings) if isinstance(settings, dict) else None),
            board=BoardRef.from_json(raw.get("board")),
            tournament=TournamentGame.from_json(raw.get("tournament")),
            series=Series.from_json(raw.get("series")),
            reserved=({int(k): str(v) for k, v in reserved.items() if str(k).isdigit() and int(k) in range(4)}
                      if isinstance(reserved, dict) else {}),
            quiet=[str(u) for u in _list(raw.get("quiet")) if isinstance(u, str | int)],
            votes=({str(k): [int(s) for s in v if isinstance(s, int)] for k, v in votes.items() if isinstance(v, list)}
                   if isinstance(votes, dict) else {}),
            notes=({int(k): v for k, v in notes.items() if str(k).isdigit() and isinstance(v, str)}
                   if isinstance(notes, dict) else {}),
            unreachable=[s for s in _list(raw.get("unreachable")) if isinstance(s, int)],
            announced_hand=_int(raw.get("announced_hand")) or 0,
            table_hand=_int(raw.get("table_hand")),
            start_wanted=bool(raw.get("start_wanted")),
            time_limit_left=_float(raw.get("time_limit_left")),
            forfeited=_int(raw.get("forfeited")),
            abandoned_by_vote=bool(raw.get("abandoned_by_vote")),
            extra={k: v for k, v in raw.items() if k not in KNOWN and _is_json(v)},
        )

    def to_json(self) -> dict[str, JSON]:
        """The meta as the store keeps it: the keys it was always stored with (empty ones left out)."""
        out: dict[str, JSON] = dict(self.extra)
        out["settings"] = {k: v for k, v in self.settings.to_dict().items() if _is_json(v)}
        for key, value in (("preset", self.preset), ("creator", self.creator), ("format", self.format),
                           ("table_hand", self.table_hand), ("time_limit_left", self.time_limit_left),
                           ("forfeited", self.forfeited)):
            if value is not None:
                out[key] = value
        if self.abandoned_by_vote:
            out["abandoned_by_vote"] = True
        for key, ref in (("board", self.board), ("tournament", self.tournament), ("series", self.series)):
            if ref is not None:
                out[key] = ref.to_json()
        out["creator_name"] = self.creator_name
        out["options"] = self.options
        if self.reserved:
            out["reserved"] = {str(s): u for s, u in self.reserved.items()}
        if self.quiet:
            out["quiet"] = list(self.quiet)
        out["votes"] = {k: list(v) for k, v in self.votes.items()}
        if self.notes:
            out["notes"] = {str(s): n for s, n in self.notes.items()}
        if self.unreachable:
            out["unreachable"] = list(self.unreachable)
        if self.announced_hand:
            out["announced_hand"] = self.announced_hand
        if self.start_wanted:
            out["start_wanted"] = True
        return out


def _str(v: object) -> str | None:
    return v if isinstance(v, str) else None


def _int(v: object) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def _float(v: object) -> float | None:
    return float(v) if isinstance(v, int | float) and not isinstance(v, bool) else None


def _list(v: object) -> list[object]:
    return list(v) if isinstance(v, list) else []


def _is_json(v: object) -> TypeGuard[JSON]:
    if v is None or isinstance(v, str | int | float | bool):
        return True
    if isinstance(v, list):
        return all(_is_json(x) for x in v)
    if isinstance(v, dict):
        return all(isinstance(k, str) and _is_json(x) for k, x in v.items())
    return False
