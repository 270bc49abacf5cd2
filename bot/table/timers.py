"""A table's timers: its deadlines (data, persisted, re-armed after a restart), the one task
that sleeps until the earliest, and what happens when one fires (`on_tick`)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from bot.ai import move_seed
from bot.clock import Clock
from bot.i18n import tr
from bot.table import forfeit, moves
from bot.table.messages import Message, Tick
from engine import IllegalAction
from engine.actions import TimeUp

if TYPE_CHECKING:
    from bot.table.actor import Table

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


def next_deadline(table: Table) -> tuple[str, float] | None:
    """The deadline the match waits on now, when none of that kind is armed yet: a system step's
    pause (deal, close, next) or a person's time to move. None when an AI or nobody moves next."""
    m = table.game
    to_act = list(m.to_act())
    if any(table.seats.ai_driven(s) for s in to_act):
        return None  # an AI moves next
    if m.phase == "dealing" and table.ai.will_ask_while_dealing():
        return None  # the deal's pause starts once the AI seats have answered
    humans = bool(to_act)
    sys_action = m.system_action()
    now = table.host.clock.now()
    if sys_action is not None:
        kind = SYSTEM_TIMER.get(sys_action.t, "deal")
        delay = float(getattr(table.settings, kind))
        if (delay <= 0 and not humans) or kind in table.timers:
            return None
        return kind, now + delay
    if humans:
        hkind = HUMAN_TIMER_PHASES.get(m.phase)
        if hkind is not None:
            delay = float(getattr(table.settings, hkind))
            if delay > 0 and hkind not in table.timers:
                return hkind, now + delay
    return None


async def on_tick(table: Table, kind: str) -> None:
    """A deadline came due: the lobby expires, the match clock runs out, a system step is taken,
    or the basic AI moves for a person who ran out of time."""
    at = table.timers.deadlines.get(kind)
    if at is None or at > table.host.clock.now():
        return
    if kind == "lobby":
        await table.timers.set(kind, None)
        if table.status == "lobby" and table.meta.get("tournament"):
            await forfeit.no_show(table)  # 000, 001f: a team still missing forfeits
        elif table.status == "lobby":
            await table.close("abandoned", {"reason": "lobby_expired"})
            await table.say(tr(table.lang, "lobby.expired"))
        return
    if not table.running():
        await table.timers.set(kind, None)
        return
    m = table.game
    if kind == "time_limit":
        try:
            await moves.apply(table, TimeUp(), None, ended=kind)
        except IllegalAction:
            await table.timers.set(kind, None)
            return
        if isinstance(table.meta.get("board"), dict):  # a board's clock (002: 12 minutes): played out at once
            for s in table.seats.humans():
                table.seats[s]["away"] = True
            await table.save_seats()
            await table.say(tr(table.lang, "board.time_up"))
        return
    if kind in ("deal", "declare", "next"):
        sys_action = m.system_action()
        if sys_action is None or SYSTEM_TIMER.get(sys_action.t) != kind:
            await table.timers.set(kind, None)
            return
        await moves.apply(table, sys_action, None, ended=kind)
        return
    # a person ran out of time: the basic AI moves for them
    movers = [s for s in m.to_act() if not table.seats.ai_driven(s)]
    if not movers:
        await table.timers.set(kind, None)
    for s in movers:
        action = m.auto_action(s, rng_seed=move_seed(table.seed, m.version, s))
        if action is None:
            continue
        await moves.apply(table, action, None, ended=kind)
        seat = table.seats[s]
        seat["timeouts"] = int(seat.get("timeouts", 0)) + 1
        name = str(seat.get("name", "?"))
        if seat["timeouts"] >= table.settings.away_after > 0:
            seat["away"] = True
            await table.say(tr(table.lang, "timeout.away", name=name, n=seat["timeouts"]))
        else:
            await table.say(tr(table.lang, "timeout.moved", name=name))
        await table.save_seats()
        table.screen.forget(f"note{s}")
        table.meta.setdefault("notes", {})[str(s)] = "timeout.you"
