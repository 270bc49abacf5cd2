"""AI players: ``choose(view, level, seed, budget_s)`` gives one legal action from a seat's view.

The AI sees exactly what ``Match.view(seat)`` shows that seat, never the
full state. Levels: ``random`` (uniform among legal choices), ``basic``
(hand-written rules), ``strong`` (determinized playouts over sampled
deals with ``basic`` as the playout policy, for bids, the bury and plays)
and ``expert`` (``strong`` with ``EXPERT_TIME`` times the budget and more
candidate plays). Same view, level and seed: the same action.
"""

from __future__ import annotations

import random

from ..actions import SeatAction
from ..views import SeatView
from . import basic, rand, search
from .seen import read_view

LEVELS = ("random", "basic", "strong", "expert")
DEFAULT_BUDGET_S = 0.5
EXPERT_TIME = 3.0  # expert thinks this many times the budget
EXPERT_WIDTH = 6  # ... over this many candidate plays


def choose(
    view: SeatView,
    level: str = "basic",
    seed: int = 0,
    budget_s: float = DEFAULT_BUDGET_S,
    *,
    deals: int | None = None,
    vary: bool = False,
) -> SeatAction:
    """One action for the seat whose view this is.

    Legal for the seat's current decision (declare or pass while declaring,
    chao or pass, bury 8, revolt or play). While the deal is still running a
    seat that does not want to declare yet gets ``Pass(seat)``, which the
    host should read as "nothing now" (the engine only takes passes once the
    deal is done). The view is not changed. Plain and blocking: the host runs
    it in a worker thread; ``strong`` spends about ``budget_s`` seconds, or
    samples exactly ``deals`` deals per decision when that is given
    (``expert`` about ``EXPERT_TIME`` times as long). ``vary``: ``basic``, which is otherwise
    the same for every seed, plays near its best as the seed picks (a duplicate board's AI seats,
    whose seeds differ per room and seat, then differ too); the other levels vary by seed anyway.

    :raises ValueError: for an unknown level.
    """
    if level not in LEVELS:
        raise ValueError(f"unknown AI level {level!r}; choose from {', '.join(LEVELS)}")
    seen = read_view(view)
    if level == "basic" and not vary:
        return basic.decide(seen)  # deterministic: no generator to seed (a string seed costs a hash)
    rng = random.Random(f"ai:{seed}:{seen.seat}")
    if level == "basic":
        return basic.decide(seen, rng)
    if level == "random":
        return rand.decide(seen, rng)
    if level == "expert":
        return search.decide(seen, rng, budget_s * EXPERT_TIME, deals=deals, width=EXPERT_WIDTH)
    return search.decide(seen, rng, budget_s, deals=deals)


__all__ = ["DEFAULT_BUDGET_S", "EXPERT_TIME", "LEVELS", "choose"]
