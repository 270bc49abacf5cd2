"""The ``strong`` level: determinized playouts with ``policy`` as the playout policy.

For a play it takes the policy's best few candidates (for a lead, the best
of each suit first), deals the hidden cards consistently with what the seat
has seen (``sampling``), plays each candidate out to the end of the hand on
every deal with the policy for all four seats (``rollout``), and compares
each with the policy's own choice on the same deals: points for its side
plus a bonus for winning the hand. Candidates clearly worse are dropped
early; the policy's choice is left only for one that beats it with some
confidence, so a small budget plays like ``basic`` rather than like noise.

Other decisions (declaring, burying, 炒底, revolution) use ``basic``.

The budget becomes a number of playouts through a fixed cost model, not
the clock, so the same view and seed always give the same move; the
thread's CPU clock only stops the search on a machine far slower than the
model (CPU time, so a machine busy with other work does not change moves).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence

from ..actions import SeatAction
from ..cards import cards_str
from ..rules import Rules
from ..scoring import level_change
from . import basic, rollout
from .options import action
from .policy import ranked_plays
from .sampling import Deal, sample
from .seen import Seen

MAX_CANDIDATES = 4
RACE_AFTER = 3  # deals before clearly worse candidates stop being played out
CONFIDENCE = 0.75  # standard errors a candidate must clear to replace the policy's choice
WIN_BONUS = 30.0  # a won hand is worth this many points on top of the points themselves
LEVEL_BONUS = 10.0
COST_PER_CARD_S = 0.00005  # measured (thread CPU time): a playout costs this per card still in play, sampling included
MIN_DEALS, MAX_DEALS = 2, 400


def playouts_for(budget_s: float, cards_left: int) -> int:
    """How many playouts fit in the budget: a deterministic cost model, so the move never depends on the clock."""
    return int(budget_s / (max(4, cards_left) * COST_PER_CARD_S))


def decide(seen: Seen, rng: random.Random, budget_s: float, *, deals: int | None = None) -> SeatAction:
    if seen.phase != "playing" or (seen.view.get("can_revolt") and basic.should_revolt(seen)):
        return basic.decide(seen)
    cands = candidates(seen)
    if len(cands) == 1:
        return action("play", seen.seat, cards_str(cands[0]))
    cards_left = sum(seen.hand_counts)
    n = deals if deals is not None else MAX_DEALS
    playouts = playouts_for(budget_s, cards_left) if deals is None else n * len(cands)
    # the guard reads this thread's CPU time: a busy machine slows the wall clock, not the search
    deadline = time.thread_time() + max(budget_s, 0.01) * 3 if deals is None else None
    k = len(cands)
    sums, squares, counts = [0.0] * k, [0.0] * k, [0] * k
    active = list(range(1, k))
    used = 0
    for i in range(n):
        if i >= MIN_DEALS and used >= playouts:
            break
        used += 1 + len(active)
        deal = sample(seen, rng)
        base = playout(seen, deal, cands[0])
        for j in active:
            d = playout(seen, deal, cands[j]) - base
            sums[j] += d
            squares[j] += d * d
            counts[j] += 1
        if i + 1 >= RACE_AFTER:  # drop candidates clearly worse than the policy's choice
            active = [j for j in active if _bound(sums[j], squares[j], counts[j], -CONFIDENCE * 2) >= 0.0]
            if not active:
                break
        if deadline is not None and i >= 1 and time.thread_time() > deadline:
            break  # only on a machine far slower than the cost model assumes
    return action("play", seen.seat, cards_str(cands[pick(sums, squares, counts)]))


def _bound(total: float, square: float, n: int, z: float) -> float:
    """The mean gain over the policy's choice, moved ``z`` standard errors (down for z > 0)."""
    if n == 0:
        return 0.0
    mean = total / n
    if n == 1:
        return mean - z * 100.0
    var = max(0.0, square / n - mean * mean)
    return mean - z * math.sqrt(var / (n - 1))


def pick(sums: list[float], squares: list[float], counts: list[int]) -> int:
    """Leave the policy's own choice (index 0) only for a candidate that beats it with some confidence.

    Each candidate is compared with the policy's choice on the same deals;
    its mean gain must stay positive after ``CONFIDENCE`` standard errors.
    With few deals the evidence is weak and the policy's choice stands,
    so a small budget does not play worse than ``basic`` by chasing noise.
    """
    best, best_bound = 0, 0.0
    for j in range(1, len(sums)):
        bound = _bound(sums[j], squares[j], counts[j], CONFIDENCE)
        if bound > best_bound:
            best, best_bound = j, bound
    return best


def candidates(seen: Seen) -> list[tuple[int, ...]]:
    """The policy's best plays, its own choice first. A lead takes the best play of each suit
    before second choices in one suit, so the search weighs where to lead, not only what."""
    assert seen.order is not None
    ranked = [c for _, c in ranked_plays(basic.spot_of(seen))]
    picked: list[tuple[int, ...]] = []
    keys: set[tuple[int, ...]] = set()
    order = seen.order
    if not seen.trick:
        suits: set[int] = set()
        for c in ranked:
            if order.suit[c[0]] not in suits:
                suits.add(order.suit[c[0]])
                picked.append(c)
                keys.add(tuple(sorted(c)))
        picked = picked[:MAX_CANDIDATES]
    for c in ranked:
        if len(picked) >= MAX_CANDIDATES:
            break
        key = tuple(sorted(c))
        if key not in keys:
            keys.add(key)
            picked.append(c)
    return picked


def playout(seen: Seen, deal: Deal, first: Sequence[int]) -> float:
    """Play ``first`` then finish the hand with the policy; the result for the seat's team."""
    assert seen.order is not None and seen.dealer is not None
    pts = rollout.run_out(
        seen.rules,
        seen.order,
        seen.dealer,
        [list(x) for x in deal.hands],
        deal.kitty,
        seen.trick,
        seen.lead,
        seen.seat,
        seen.defender_points,
        first,
    )
    return value_for(seen.rules, pts, seen.seat % 2 != seen.dealer % 2)


def value_for(rules: Rules, points: int, defenders: bool) -> float:
    """A hand's result for one side: its points (the defenders' points, negated for the declarers)
    plus a bonus for winning the hand, larger the more levels it gains."""
    winner, levels = level_change(rules, points)
    won = (winner == "defenders") == defenders
    sign = 1.0 if defenders else -1.0
    return sign * points + (WIN_BONUS + LEVEL_BONUS * levels) * (1.0 if won else -1.0)
