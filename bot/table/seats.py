"""Who sits where: the four seats of a table (people, AIs, empty) and what follows from them."""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum
from typing import Any

from bot.i18n import LANGS
from bot.scene.types import SeatInfo


class SeatKind(StrEnum):
    """Who holds a seat; stored in the match's seats as its plain string."""

    HUMAN = "human"
    AI = "ai"
    EMPTY = "empty"


EMPTY: dict[str, Any] = {"kind": SeatKind.EMPTY}


class Seats(list[dict[str, Any]]):
    """The four seats, stored as they are persisted (a list of plain dicts)."""

    @classmethod
    def of(cls, stored: Iterable[dict[str, Any]]) -> Seats:
        seats = cls(dict(s) for s in stored)
        seats.extend(dict(EMPTY) for _ in range(4 - len(seats)))
        return seats

    def seat_of(self, user_id: str) -> int | None:
        """The seat of this person; None for strangers and for people kicked out (an AI keeps their seat)."""
        for s, seat in enumerate(self):
            if seat.get("kind") == SeatKind.HUMAN and seat.get("user_id") == user_id and not seat.get("kicked"):
                return s
        return None

    def infos(self) -> list[SeatInfo | None]:
        out: list[SeatInfo | None] = []
        for seat in self:
            if seat.get("kind") == SeatKind.EMPTY:
                out.append(None)
            else:
                out.append(SeatInfo(str(seat.get("name", "?")), is_ai=seat.get("kind") == SeatKind.AI,
                                    away=bool(seat.get("away"))))
        return out

    def humans(self) -> list[int]:
        return [s for s, seat in enumerate(self) if seat.get("kind") == SeatKind.HUMAN]

    def free(self) -> list[int]:
        return [s for s, seat in enumerate(self) if seat.get("kind") == SeatKind.EMPTY]

    def ai_driven(self, s: int) -> bool:
        """An AI plays this seat: an AI's own, or a person's who is away."""
        seat = self[s]
        return seat.get("kind") == SeatKind.AI or bool(seat.get("away"))

    def lang(self, s: int, default: str) -> str:
        lang = self[s].get("lang")
        return lang if isinstance(lang, str) and lang in LANGS else default
