"""The searched bury: ``basic``'s eight cards against variants that empty one side suit each.

Emptying a short suit lets the dealer ruff it; which one is worth emptying
depends on where its high cards sit, so each variant is played out from the
first lead on deals of the other hands sampled from what the dealer holds,
and compared with ``basic``'s bury on the same deals (``race``).
"""

from __future__ import annotations

import random
from collections.abc import Callable

from ..cards import NUM_FACES, TRUMP
from ..order import Order, order_for
from ..rules import Rules
from . import basic, rollout
from .race import deadline_for, race
from .sampling import Deal, sample
from .seen import Seen
from .value import value_for

MAX_VARIANTS = 3  # side suits tried as the one to empty, shortest first
COST_PER_HAND_S = 0.0025  # a playout of a whole hand, sampling included (the cost model of ``search``)
MAX_DEALS = 200


def variants(hand: list[int], order: Order) -> list[list[int]]:
    """``basic``'s bury first, then one per short side suit emptied first (distinct ones only)."""
    out = [basic.bury_counts(hand, order)]
    keys = {tuple(sorted(out[0]))}
    lengths: dict[int, int] = {}
    for f in range(NUM_FACES):
        if hand[f] and order.suit[f] != TRUMP:
            lengths[order.suit[f]] = lengths.get(order.suit[f], 0) + hand[f]
    for suit in sorted(lengths, key=lambda s: lengths[s])[:MAX_VARIANTS]:
        b = basic.bury_counts(hand, order, void_first=suit)
        if tuple(sorted(b)) not in keys:
            keys.add(tuple(sorted(b)))
            out.append(b)
    return out


Score = Callable[[Rules, int, bool], float]
"""A hand's defender points turned into a result for one side (``value_for``, or ``points_for``)."""


def play_hand(
    seen: Seen,
    order: Order,
    dealer: int,
    hands: list[list[int]],
    kitty: list[int],
    score: Score = value_for,
) -> float:
    """Play a whole hand from the dealer's first lead with the policy; its result for the seat's side."""
    pts = rollout.run_out(seen.rules, order, dealer, [list(h) for h in hands], kitty, [], None, dealer, 0)
    return score(seen.rules, pts, seen.seat % 2 != dealer % 2)


def without(hand: list[int], cards: list[int]) -> list[int]:
    out = list(hand)
    for f in cards:
        out[f] -= 1
    return out


def choose_bury(seen: Seen, rng: random.Random, budget_s: float, *, deals: int | None = None) -> list[int]:
    assert seen.trump is not None
    order = seen.order or order_for(seen.level, seen.trump, seen.rules)
    dealer = seen.dealer if seen.dealer is not None else seen.seat
    cands = variants(seen.hand, order)
    if len(cands) == 1:
        return cands[0]
    n = deals if deals is not None else MAX_DEALS
    playouts = int(budget_s / COST_PER_HAND_S) if deals is None else n * len(cands)

    def value(deal: Deal, j: int) -> float:
        hands = [list(h) for h in deal.hands]
        hands[seen.seat] = without(seen.hand, cands[j])
        return play_hand(seen, order, dealer, hands, cands[j])

    best, _, _ = race(
        len(cands), n, playouts, lambda: sample(seen, rng), value, deadline_for(budget_s, deals)
    )
    return cands[best]
