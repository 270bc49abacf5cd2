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


def ai_seed(match_seed: int, match_id: int, board: bool) -> int:
    """The seed a table's AI seats decide from: the match's, or on a board the board's mixed with the
    table's id. Every table of a board is dealt from the same seed; its AI seats must not decide from
    it too, or two rooms of a duplicate match would play alike and every swing would be 0."""
    return (match_seed * 2_654_435_761 + match_id * 40_503 + 1) & 0x7FFFFFFF if board else match_seed


def varied(chooser: Chooser) -> Chooser:
    """`chooser` asked to vary its `basic` play by the seed (`engine.ai.choose`'s ``vary``), for a
    board's AI seats; a stand-in a test handed the table is left as it is."""
    if chooser is not choose:
        return chooser
    return lambda view, level, seed, budget: choose(view, level, seed, budget, vary=True)
