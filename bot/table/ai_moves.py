"""What the AI seats of a table choose, on the event loop (quick levels) or in the host's worker
threads (their answers come back as `AiAnswer` messages), and the legality of what they answer."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from bot.ai import Chooser, ai_seed, find_chooser, move_seed, varied
from bot.settings import DEFAULT_AI_LEVEL
from bot.table.messages import AiAnswer
from bot.table.seats import SeatKind
from engine.actions import ACTION_TYPES, Action, Declare
from engine.views import SeatView

if TYPE_CHECKING:
    from bot.table.context import TableCore

log = logging.getLogger(__name__)


class AiSeats:
    """The AI side of one table: its chooser and the one question that may be in flight."""

    def __init__(self, table: TableCore) -> None:
        self.table = table
        chooser = find_chooser()
        board = table.meta.board is not None
        self.chooser = varied(chooser) if chooser is not None and board else chooser
        self.seed = ai_seed(table.seed, table.id, board)  # a board's: its own per table (and so per room)
        self.pending: asyncio.Future[object] | None = None
        self._deal_asked = -1
        self._declare_clock: tuple[tuple[int, str], float] | None = None  # see too_soon_to_declare

    def thinking(self) -> bool:
        return self.pending is not None

    def answered(self) -> None:
        """Its answer was taken from the queue (or the question is void)."""
        self.pending = None

    def will_ask_while_dealing(self) -> bool:
        """The next deal step waits for a worker thread's answer (see `declares_while_dealing`)."""
        t = self.table
        m = t.game
        return (self.chooser is not None and t.host.ai_policy.threads and self._deal_asked != m.version
                and "basic" not in t.host.ai_policy.inline_levels
                and any(t.seats.ai_driven(s) and m.can_declare(s) for s in range(4)))

    def too_soon_to_declare(self) -> bool:
        """An AI does not declare faster than a person could (`ai_declare` seconds, while one is seated)."""
        t = self.table
        wait = t.settings.ai_declare
        if wait <= 0 or all(t.seats.ai_driven(s) for s in range(4)):
            return False
        now = t.host.clock.now()
        pub = t.public()
        mark = (int(pub.get("hand_no", 0)), repr(pub.get("declaration")))
        if self._declare_clock is None or self._declare_clock[0] != mark:
            self._declare_clock = (mark, now)  # the deal began, or someone declared: the wait starts
        return now - self._declare_clock[1] < wait

    def declares_while_dealing(self) -> tuple[bool, Declare | None]:
        """After each deal step the AI seats may show a level card.

        Asked on the loop when `basic` is a quick level for the host (it decides in well under a
        millisecond), else in a worker thread. Returns (True, None) when a question is in flight
        (the deal waits for the answer), or (False, the declaration asked for or None; the
        engine judges it when it is applied).
        """
        t = self.table
        m = t.game
        policy = t.host.ai_policy
        if self.chooser is None or not policy.threads or self._deal_asked == m.version:
            return False, None
        self._deal_asked = m.version
        # only seats that hold a legal declaration now (about half of them while dealing): building
        # a seat's view and asking costs about 15 times as much as the engine's list of its options
        asks = [(s, t.seat_view(s), move_seed(self.seed, m.version, s)) for s in range(4)
                if t.seats.ai_driven(s) and m.can_declare(s)]
        if not asks:
            return False, None
        chooser = self.chooser
        if "basic" in policy.inline_levels:
            return False, _first_declare(chooser, asks)
        self._launch(lambda: _first_declare(chooser, asks), seat=-1, version=m.version)
        return True, None

    def move(self, s: int) -> Action | None:
        """A move for an AI-driven seat: at once (auto_action, or a quick level's answer, which the
        engine judges when it is applied), or later from a worker thread (None now)."""
        t = self.table
        m = t.game
        seat = t.seats[s]
        level = (seat.level or DEFAULT_AI_LEVEL) if seat.kind == SeatKind.AI else DEFAULT_AI_LEVEL
        seed = move_seed(self.seed, m.version, s)
        policy = t.host.ai_policy
        if self.chooser is None or not policy.threads:
            return m.auto_action(s, rng_seed=seed)
        view = t.seat_view(s)
        chooser = self.chooser
        budget = t.settings.ai_budget
        if level in policy.inline_levels:
            try:
                act = chooser(view, level, seed, budget)
            except Exception:
                log.exception("AI failed at table %s", t.id)
                act = None
            if not isinstance(act, ACTION_TYPES):  # failed, or no answer: the engine's auto_action moves instead
                return m.auto_action(s, rng_seed=m.version)
            return act
        self._launch(lambda: chooser(view, level, seed, budget), seat=s, version=m.version)
        return None

    def _launch(self, job: Callable[[], object], *, seat: int, version: int) -> None:
        """Runs an AI job in the host's worker threads; its answer comes back as an AiAnswer."""
        t = self.table
        fut = t.host.run_ai(job)
        self.pending = fut

        def back(f: asyncio.Future[object]) -> None:
            if f.cancelled():  # the host is stopping
                return
            try:
                act = f.result()
            except Exception:
                log.exception("AI failed at table %s", t.id)
                act = None
            t.submit(AiAnswer(seat, version, act if isinstance(act, ACTION_TYPES) else None))

        fut.add_done_callback(back)


def _first_declare(chooser: Chooser, asks: list[tuple[int, SeatView, int]]) -> Declare | None:
    """In a worker thread: the first AI seat that wants to declare now, if any (quick `basic` rules)."""
    for _, view, seed in asks:
        action = chooser(view, "basic", seed, 0.0)
        if isinstance(action, Declare):
            return action
    return None
