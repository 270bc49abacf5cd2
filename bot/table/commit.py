"""What a table publishes: the committed action, the one event every reader of a table hears.

The actor turns an intent into an engine action, appends it to the match's log with the deadlines
it sets (one store transaction, `bot.table.moves.apply`), and only then publishes `Committed`. The
screen (what the buttons index into), the web hub (`bot.live`), the announcements in the group
(`bot.table.announce`) and the host's features (through `Ended`) subscribe to the table's
`Publisher`; none of them is called by the moves, and none of them writes the table's state.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Literal

from engine.actions import Action, SeatAction
from engine.match import Event
from engine.views import PublicView

#: Who took a committed action: a person (through an intent), an AI seat, the table's own step (a
#: deal, the close of declarations, the next hand), or a deadline (time up, a person's timer).
By = Literal["person", "ai", "table", "timer"]


@dataclass(frozen=True, slots=True)
class Committed:
    """An action the engine took and the store kept, with what it made public."""

    match_id: int
    version: int  # the match's version with this action (its position in the log, plus one)
    action: Action
    by: By
    events: tuple[Event, ...]  # what the engine says happened (a trick won, a failed throw, ...)
    public: PublicView  # the public facts after it (never a card still in a hand)

    @property
    def seat(self) -> int | None:
        """Whose action it was (None: the table's own step)."""
        return self.action.seat if isinstance(self.action, SeatAction) else None


@dataclass(frozen=True, slots=True)
class Ended:
    """The match ended (it was played out, conceded, ruled, or abandoned), with the result it closed with.

    `played`: it was played to its end (the group hears its result); otherwise the ending was
    said where it happened (a forfeit, an abandon)."""

    match_id: int
    status: str
    result: Mapping[str, object]
    played: bool = False


TableEvent = Committed | Ended
Subscriber = Callable[[TableEvent], Awaitable[None]]


class Publisher:
    """A table's one subscription point: subscribers hear each event in the order they subscribed,
    on the table's actor, before it takes its next message."""

    def __init__(self) -> None:
        self._subscribers: list[Subscriber] = []

    def subscribe(self, fn: Subscriber) -> None:
        self._subscribers.append(fn)

    async def publish(self, event: TableEvent) -> None:
        for fn in self._subscribers:
            await fn(event)
