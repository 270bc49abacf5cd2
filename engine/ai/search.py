"""The ``strong`` level: determinized playouts with ``policy`` as the playout policy.

For a play it takes the policy's best few candidates (for a lead, the best
of each suit first), deals the hidden cards consistently with what the seat
has seen (``sampling``), plays each candidate out to the end of the hand on
every deal with the policy for all four seats (``rollout``), and compares
each with the policy's own choice on the same deals: points for its side
plus a bonus for winning the hand. Candidates clearly worse are dropped
early; the policy's choice is left only for one that beats it with some
confidence, so a small budget plays like ``basic`` rather than like noise.

Bids (declaring, 炒底) and the bury are searched the same way by
``bidding`` and ``burying``; revolution is ``basic``'s. Deals are sampled
with the guesses ``infer`` reads from how the others played.

The budget becomes a number of playouts through a fixed cost model, not
the clock, so the same view and seed always give the same move; the
thread's CPU clock only stops the search on a machine far slower than the
model (CPU time, so a machine busy with other work does not change moves).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from ..actions import SeatAction
from ..cards import cards_str
from . import basic, bidding, burying, rollout
from .infer import beliefs
from .options import action
from .policy import ranked_plays
from .race import deadline_for, race
from .sampling import Deal, sample
from .seen import Seen
from .value import value_for

MAX_CANDIDATES = 4
# measured (thread CPU time, docs/ai.md): a playout costs this per card still in play, sampling included
COST_PER_CARD_S = 0.000025
MAX_DEALS = 400


def playouts_for(budget_s: float, cards_left: int) -> int:
    """How many playouts fit in the budget: a deterministic cost model, so the move never depends on the clock."""
    return int(budget_s / (max(4, cards_left) * COST_PER_CARD_S))


def decide(
    seen: Seen, rng: random.Random, budget_s: float, *, deals: int | None = None, width: int = MAX_CANDIDATES
) -> SeatAction:
    """Search the seat's decision: bids, the bury and plays; revolution is ``basic``'s."""
    if seen.phase in ("dealing", "declaring", "chao"):
        return bidding.decide(seen, rng, budget_s, deals=deals)
    if seen.phase == "burying":
        return action("bury", seen.seat, cards_str(burying.choose_bury(seen, rng, budget_s, deals=deals)))
    if seen.phase != "playing" or (seen.view.get("can_revolt") and basic.should_revolt(seen)):
        return basic.decide(seen)
    return action("play", seen.seat, cards_str(choose_play(seen, rng, budget_s, deals=deals, width=width)))


def choose_play(
    seen: Seen, rng: random.Random, budget_s: float, *, deals: int | None = None, width: int = MAX_CANDIDATES
) -> tuple[int, ...]:
    cands = candidates(seen, width)
    if len(cands) == 1:
        return cands[0]
    n = deals if deals is not None else MAX_DEALS
    playouts = playouts_for(budget_s, sum(seen.hand_counts)) if deals is None else n * len(cands)
    guesses = beliefs(seen)
    best, _, _ = race(
        len(cands),
        n,
        playouts,
        lambda: sample(seen, rng, guesses),
        lambda deal, j: playout(seen, deal, cands[j]),
        deadline_for(budget_s, deals),
    )
    return cands[best]


def candidates(seen: Seen, width: int = MAX_CANDIDATES) -> list[tuple[int, ...]]:
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
        picked = picked[:width]
    for c in ranked:
        if len(picked) >= width:
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
