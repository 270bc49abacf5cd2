"""AI moves for the host: `engine.ai.choose`, or the engine's auto_action when a host runs without threads.

`choose` sees only the seat's own view (what that seat may know); it runs in
a worker thread so it never blocks the event loop.  Whatever it returns is
checked by the engine again before it is applied.
"""

from __future__ import annotations

from collections.abc import Callable

from engine.actions import SeatAction
from engine.ai import choose
from engine.views import SeatView

#: choose(view, level, seed, budget_s) -> the seat's action.
Chooser = Callable[[SeatView, str, int, float], SeatAction]


def find_chooser() -> Chooser | None:
    """`engine.ai.choose(view, level, seed, budget_s)`; a table asks here, so tests can hand it another."""
    return choose


def move_seed(match_seed: int, version: int, seat: int) -> int:
    """A deterministic seed per decision, so a replayed simulation makes the same choices."""
    return (match_seed * 1_000_003 + version * 31 + seat) & 0x7FFFFFFF
