"""The ``strong`` level: determinized playouts with ``policy`` as the playout policy.

For a play it keeps the policy's few best candidates, deals the hidden cards
many times consistently with what the seat has seen (``sampling``), plays
each candidate out to the end of the hand on every deal with the policy for
all four seats, and picks the candidate with the best average result for its
team (points plus a bonus for winning the hand). Every candidate sees the
same deals, so their differences are not noise from the deal.

Other decisions (declaring, burying, 炒底, revolution) use ``basic``.

The number of deals comes from the budget through a fixed cost model, not
from the clock, so the same view and seed always give the same move; the
clock is only a guard that stops the search on a much slower machine.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from typing import Any

from ..cards import NUM_FACES, cards_str, parse_rank
from ..hand import PLAYING, Hand
from ..scoring import level_change
from . import basic
from .options import action
from .policy import Spot, choose_play, ranked_plays
from .sampling import Deal, sample
from .seen import Seen

MAX_CANDIDATES = 6
WIN_BONUS = 50.0  # a won hand is worth this many points on top of the points themselves
LEVEL_BONUS = 10.0
COST_PER_CARD_S = 0.00020  # measured playout cost per card left in play (one candidate, one deal)
MIN_DEALS, MAX_DEALS = 2, 400
_NO_VOIDS: tuple[set[int], ...] = (set(), set(), set(), set())


def deals_for(budget_s: float, candidates: int, cards_left: int) -> int:
    """How many deals fit in the budget: a deterministic cost model, so the move never depends on the clock."""
    per_deal = max(1, candidates) * max(4, cards_left) * COST_PER_CARD_S
    return max(MIN_DEALS, min(MAX_DEALS, int(budget_s / per_deal)))


def decide(seen: Seen, rng: random.Random, budget_s: float, *, deals: int | None = None) -> dict[str, Any]:
    if seen.phase != "playing" or (seen.view.get("can_revolt") and basic.should_revolt(seen)):
        return basic.decide(seen)
    spot = basic.spot_of(seen)
    ranked = ranked_plays(spot)
    cands: list[tuple[int, ...]] = []
    keys: set[tuple[int, ...]] = set()
    for _, c in ranked:
        k = tuple(sorted(c))
        if k not in keys:
            keys.add(k)
            cands.append(c)
        if len(cands) >= MAX_CANDIDATES:
            break
    if len(cands) == 1:
        return action("play", seen.seat, cards_str(cands[0]))
    cards_left = sum(seen.hand_counts)
    n = deals if deals is not None else deals_for(budget_s, len(cands), cards_left)
    deadline = time.perf_counter() + max(budget_s, 0.01) * 3 if deals is None else None
    totals = [0.0] * len(cands)
    for i in range(n):
        deal = sample(seen, rng)
        for j, c in enumerate(cands):
            totals[j] += playout(seen, deal, c)
        if deadline is not None and i >= 1 and time.perf_counter() > deadline:
            break  # only on a machine far slower than the cost model assumes
    best = max(range(len(cands)), key=lambda j: (totals[j], -j))
    return action("play", seen.seat, cards_str(cands[best]))


def start_hand(seen: Seen, deal: Deal) -> Hand:
    """The sampled deal as an engine ``Hand`` at this seat's turn, the current trick replayed."""
    assert seen.dealer is not None and seen.trump is not None
    levels = seen.view.get("levels") or ["2", "2"]
    dteam = seen.dealer % 2
    leader = seen.trick[0][0] if seen.trick else seen.seat
    h = Hand.at_trick(
        seen.rules,
        seen.level,
        seen.trump,
        [seen.dealer, (seen.dealer + 2) % 4],
        [list(x) for x in deal.hands],
        leader,
        deal.kitty,
        seen.defender_points,
        parse_rank(str(levels[1 - dteam])),
    )
    if seen.trick:
        h.trick = list(seen.trick)
        h.lead = seen.lead
        h.turn = seen.seat
    return h


def playout(seen: Seen, deal: Deal, first: Sequence[int]) -> float:
    """Play ``first`` then finish the hand with the policy; the result for the seat's team."""
    h = start_hand(seen, deal)
    h.play(seen.seat, first)
    run_out(h)
    return value_for(h, seen.seat % 2)


def run_out(h: Hand) -> None:
    """Play the hand to its end with the policy for every seat, each seeing only its own cards."""
    assert h.order is not None and h.dealer is not None
    order = h.order
    dteam = h.dealer % 2
    remaining = [0] * NUM_FACES
    for hand in h.hands:
        for f in range(NUM_FACES):
            remaining[f] += hand[f]
    while h.phase == PLAYING:
        s = h.turn
        assert s is not None
        mine = h.hands[s]
        unseen = [remaining[f] - mine[f] for f in range(NUM_FACES)]
        spot = Spot(mine, s, h.trick, h.lead, order, dteam, unseen, _NO_VOIDS)
        faces = choose_play(spot)
        h.play(s, faces)
        for f in (h.trick[-1] if h.trick else h.last_trick[-1])[1]:  # a failed throw plays fewer
            remaining[f] -= 1


def value_for(h: Hand, team: int) -> float:
    r = h.result
    assert r is not None and h.dealer is not None
    pts = r.defender_points
    defenders = team != h.dealer % 2
    winner, levels = level_change(h.rules, pts)
    won = (winner == "defenders") == defenders
    sign = 1.0 if defenders else -1.0
    return sign * pts + (WIN_BONUS + LEVEL_BONUS * levels) * (1.0 if won else -1.0)
