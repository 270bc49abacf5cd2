"""Who sits where: the four seats of a table (people, AIs, empty) and what follows from them.

A seat is a frozen value (`Seat`); the table replaces a seat's value to change it
(`seats[s] = replace(seats[s], away=True)`), and writes the four to the store as the plain dicts it
always kept (`Seats.to_json`, `Seat.from_json` reads them back, old rows included)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum

from bot.i18n import LANGS
from bot.scene.types import SeatInfo

#: A seat as the store keeps it (one JSON object).
StoredSeat = dict[str, str | int | bool | None]


class SeatKind(StrEnum):
    """Who holds a seat; stored in the match's seats as its plain string."""

    HUMAN = "human"
    AI = "ai"
    EMPTY = "empty"


@dataclass(frozen=True, slots=True)
class Seat:
    """One seat: a person (`user_id`, their own `lang`, `away` and the `timeouts` in a row that made
    them so, `kicked` by the creator), an AI (its `level`), or nobody."""

    kind: SeatKind = SeatKind.EMPTY
    name: str = ""
    user_id: str | None = None
    lang: str | None = None
    level: str | None = None
    away: bool = False
    timeouts: int = 0
    kicked: bool = False

    @classmethod
    def person(cls, user_id: str, name: str, lang: str | None) -> Seat:
        return cls(SeatKind.HUMAN, name, user_id, lang)

    @classmethod
    def ai(cls, name: str, level: str) -> Seat:
        return cls(SeatKind.AI, name, level=level)

    @property
    def human(self) -> bool:
        return self.kind == SeatKind.HUMAN

    @property
    def empty(self) -> bool:
        return self.kind == SeatKind.EMPTY

    @classmethod
    def from_json(cls, raw: Mapping[str, object]) -> Seat:
        """A stored seat; what it lacks takes its default, a kind we do not know is an empty seat."""
        try:
            kind = SeatKind(str(raw.get("kind", SeatKind.EMPTY)))
        except ValueError:
            kind = SeatKind.EMPTY
        if kind == SeatKind.EMPTY:
            return cls()
        user_id, lang, level = raw.get("user_id"), raw.get("lang"), raw.get("level")
        timeouts = raw.get("timeouts")
        return cls(kind, str(raw.get("name", "?")), None if user_id is None else str(user_id),
                   lang if isinstance(lang, str) else None, level if isinstance(level, str) else None,
                   bool(raw.get("away")), timeouts if isinstance(timeouts, int) else 0, bool(raw.get("kicked")))

    def to_json(self) -> StoredSeat:
        """The seat as the store keeps it: the keys seats were always stored with."""
        if self.kind == SeatKind.EMPTY:
            return {"kind": str(self.kind)}
        out: StoredSeat = {"kind": str(self.kind), "name": self.name}
        if self.kind == SeatKind.HUMAN:
            out.update({"user_id": self.user_id, "lang": self.lang, "away": self.away, "timeouts": self.timeouts})
        else:
            out["level"] = self.level
            if self.away or self.timeouts:
                out.update({"away": self.away, "timeouts": self.timeouts})
        if self.kicked:
            out["kicked"] = True
        return out


EMPTY = Seat()


class Seats(list[Seat]):
    """The four seats, in seat order."""

    @classmethod
    def of(cls, stored: Iterable[Mapping[str, object] | Seat]) -> Seats:
        seats = cls(s if isinstance(s, Seat) else Seat.from_json(s) for s in stored)
        seats.extend(EMPTY for _ in range(4 - len(seats)))
        return seats

    def to_json(self) -> list[StoredSeat]:
        return [s.to_json() for s in self]

    def seat_of(self, user_id: str) -> int | None:
        """The seat of this person; None for strangers and for people kicked out (an AI keeps their seat)."""
        for s, seat in enumerate(self):
            if seat.human and seat.user_id == user_id and not seat.kicked:
                return s
        return None

    def infos(self) -> list[SeatInfo | None]:
        return [None if seat.empty else SeatInfo(seat.name or "?", is_ai=seat.kind == SeatKind.AI, away=seat.away)
                for seat in self]

    def people(self) -> list[str | None]:
        """Each seat's user id while a person plays it themselves (None: empty, an AI, away, kicked)."""
        return [seat.user_id if seat.human and not seat.kicked and not self.ai_driven(s) else None
                for s, seat in enumerate(self)]

    def humans(self) -> list[int]:
        return [s for s, seat in enumerate(self) if seat.human]

    def free(self) -> list[int]:
        return [s for s, seat in enumerate(self) if seat.empty]

    def ai_driven(self, s: int) -> bool:
        """An AI plays this seat: an AI's own, or a person's who is away."""
        seat = self[s]
        return seat.kind == SeatKind.AI or seat.away

    def lang(self, s: int, default: str) -> str:
        lang = self[s].lang
        return lang if lang is not None and lang in LANGS else default
