"""A table's timers: its deadlines (data, persisted, re-armed after a restart) and the one task
that sleeps until the earliest. What happens when one fires is `bot.table.ticks`; which deadline
the match waits on next is `bot.table.moves.next_deadline` (it is set with the move that led there)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from bot.clock import Clock
from bot.table.messages import Message, Tick

# The system action each system timer takes when it fires (the engine's `system_action`).
SYSTEM_TIMER = {"deal": "deal", "close": "declare", "next": "next"}
# The timer of a person's move, by phase.
HUMAN_TIMER_PHASES = {"burying": "bury", "chao": "turn", "playing": "turn"}
# Deadlines that an accepted move ends (the next one is set with the move, see `moves.apply`).
MOVE_TIMERS = ("turn", "bury")


class Timers:
    """The deadlines of one table and the task that wakes it for the earliest."""

    def __init__(self, match_id: int, store: Any, clock: Clock, submit: Callable[[Message], None],
                 deadlines: dict[str, float] | None = None) -> None:
        self.match_id = match_id
        self.store = store
        self.clock = clock
        self.submit = submit
        self.deadlines: dict[str, float] = dict(deadlines or {})
        self.task: asyncio.Task[None] | None = None
        self.target: tuple[str, float] | None = None

    def __contains__(self, kind: str) -> bool:
        return kind in self.deadlines

    def left(self, kind: str) -> float | None:
        at = self.deadlines.get(kind)
        return None if at is None else at - self.clock.now()

    async def set(self, kind: str, at: float | None) -> None:
        """Arms (or with None, clears) a deadline in its own store transaction."""
        if at is None:
            if kind not in self.deadlines:
                return
            self.deadlines.pop(kind, None)
        else:
            self.deadlines[kind] = at
        await self.store.set_deadline(self.match_id, kind, at)

    def changes(self, changes: dict[str, float | None]) -> dict[str, float | None]:
        """Takes deadline changes persisted by the caller (with an action); returns those that change anything."""
        out: dict[str, float | None] = {}
        for kind, at in changes.items():
            if at is None:
                if self.deadlines.pop(kind, None) is not None:
                    out[kind] = None
            elif self.deadlines.get(kind) != at:
                self.deadlines[kind] = at
                out[kind] = at
        return out

    def clear(self) -> None:
        """Forgets every deadline (the store drops them with the finished match)."""
        self.deadlines.clear()

    def rearm(self, armed: bool) -> None:
        """One timer task sleeps until the earliest deadline, then queues a tick."""
        if not armed or not self.deadlines:
            target = None
        else:
            kind = min(self.deadlines, key=lambda k: self.deadlines[k])
            target = (kind, self.deadlines[kind])
        if target == self.target and self.task is not None and not self.task.done():
            return
        self.cancel()
        self.target = target
        if target is not None:
            self.task = asyncio.create_task(self._sleep_then_tick(*target))

    def cancel(self) -> None:
        if self.task is not None:
            self.task.cancel()
        self.task = None

    async def _sleep_then_tick(self, kind: str, at: float) -> None:
        await self.clock.sleep_until(at)
        self.target = None
        self.submit(Tick(kind))
