"""The ``basic`` level: hand-written rules for every decision.

Declare when the hand holds enough cards of that trump; bury so the kitty
holds no points and a short side suit goes void; revolt only with a hopeless
hand; play with ``policy`` (cash masters, feed a winning partner, save high
trumps, fight for the last trick).
"""

from __future__ import annotations

import random
from collections import Counter

from ..actions import SeatAction
from ..cards import BIG_JOKER, NO_TRUMP, NUM_FACES, POINTS, SMALL_JOKER, TRUMP, card_str, cards_str, rank_of
from ..declare import Declaration
from ..order import Order, order_for
from .options import action, current_declaration, declare_options, seat_level
from .policy import Spot, choose_play, ranked_plays
from .seen import Seen

DECLARE_AT = 9.0  # trump strength needed to show a single
OVERRIDE_AT = 11.0  # ... to override an opponent with a pair
CHAO_AT = 12.0  # ... to re-take the kitty with a pair
VARY_MARGIN = 1.0  # a varied seat plays any candidate scored this close to the best


def trump_strength(hand: list[int], suit: int, level: int) -> float:
    """How good ``suit`` (or NO_TRUMP) would be as trump for this hand: trumps held, big ones counting extra."""
    score = 0.0
    for f in range(NUM_FACES):
        n = hand[f]
        if not n:
            continue
        if f >= SMALL_JOKER:
            score += n * (1.5 if f == BIG_JOKER else 1.3)
        elif rank_of(f) == level:
            score += n * (1.4 if f // 13 == suit else 1.2)
        elif f // 13 == suit:
            score += n * (1.0 + (0.3 if rank_of(f) >= 10 else 0.0))
    return score


def decide(seen: Seen, vary: random.Random | None = None) -> SeatAction:
    """One legal action for the seat's current decision.

    `vary`: play, among the candidates scored within ``VARY_MARGIN`` of the best, the one this
    generator picks (bids and the bury stay as they are). Two rooms of a duplicate match seat the
    same AI; unvaried, both would play every board alike and every swing would be 0.
    """
    ph = seen.phase
    if ph in ("dealing", "declaring"):
        return declare_or_pass(seen)
    if ph == "chao":
        return chao_or_pass(seen)
    if ph == "burying":
        return action("bury", seen.seat, cards_str(bury(seen)))
    if seen.view.get("can_revolt") and should_revolt(seen):
        return action("revolt", seen.seat)
    return action("play", seen.seat, cards_str(play(seen) if vary is None else varied_play(seen, vary)))


def _strength(seen: Seen, d: Declaration, level: int) -> float:
    return trump_strength(seen.hand, NO_TRUMP if d.face >= SMALL_JOKER else d.face // 13, level)


def declare_or_pass(seen: Seen) -> SeatAction:
    opts = declare_options(seen)
    level = seat_level(seen)
    current = current_declaration(seen)
    forced = bool(seen.view.get("forced"))
    best: tuple[float, Declaration] | None = None
    for d in opts:
        s = _strength(seen, d, level)
        if current is None:
            want = DECLARE_AT
        elif current.seat == seen.seat:
            want = 0.0  # reinforcing my own bid: always worth it
        elif current.seat % 2 == seen.team:
            want = 99.0  # never take the bid from a partner
        else:
            want = OVERRIDE_AT
        if (s >= want or forced) and (best is None or s > best[0]):
            best = (s, d)
    if best is not None:
        d = best[1]
        return action("declare", seen.seat, [card_str(d.face)] * d.count)
    return action("pass", seen.seat)


def chao_or_pass(seen: Seen) -> SeatAction:
    best: tuple[float, Declaration] | None = None
    for d in declare_options(seen, chao=True):
        s = _strength(seen, d, seen.level)
        if s >= CHAO_AT and (best is None or s > best[0]):
            best = (s, d)
    if best is None:
        return action("pass", seen.seat)
    d = best[1]
    return action("chao", seen.seat, [card_str(d.face)] * d.count)


def bury(seen: Seen) -> list[int]:
    """Eight cards: no trumps and no points if avoidable; empty the shortest side suits first."""
    assert seen.trump is not None
    return bury_counts(seen.hand, seen.order or order_for(seen.level, seen.trump, seen.rules))


def bury_counts(held: list[int], order: Order, void_first: int | None = None) -> list[int]:
    """``bury`` on counts; ``void_first`` names a side suit to empty before any other (a variant to search)."""
    hand = list(held)
    length = Counter[int]()
    for f in range(NUM_FACES):
        length[order.suit[f]] += hand[f]
    picked: list[int] = []
    while len(picked) < 8:
        best_f, best_cost = -1, 0.0
        for f in range(NUM_FACES):
            n = hand[f]
            if not n:
                continue
            suit = order.suit[f]
            cost = 1000.0 + order.rank[f] if suit == TRUMP else 0.0
            cost += POINTS[f] * 12.0 + order.rank[f] * 0.6 + (8.0 if n >= 2 else 0.0)
            cost += length[suit] * 1.5  # short suits go first, so they end up void
            if order.rank[f] == 12 and suit != TRUMP:
                cost += 10.0  # keep aces
            if suit == void_first:
                cost -= 500.0
            if best_f < 0 or cost < best_cost:
                best_f, best_cost = f, cost
        picked.append(best_f)
        hand[best_f] -= 1
        length[order.suit[best_f]] -= 1
    return picked


def should_revolt(seen: Seen) -> bool:
    """Revolt only with a hand that cannot defend: almost no trumps and no aces."""
    if seen.order is None:
        return False
    trumps = sum(n for f, n in enumerate(seen.hand) if seen.order.suit[f] == TRUMP)
    aces = sum(n for f, n in enumerate(seen.hand) if f < SMALL_JOKER and rank_of(f) == 12)
    return trumps <= 4 and aces == 0


def spot_of(seen: Seen) -> Spot:
    assert seen.order is not None and seen.dealer is not None
    return Spot(
        hand=seen.hand,
        seat=seen.seat,
        trick=seen.trick,
        lead=seen.lead,
        order=seen.order,
        declarer_team=seen.dealer % 2,
        left=[u + h for u, h in zip(seen.unseen(), seen.hand, strict=True)],
        voids=seen.voids,
    )


def play(seen: Seen) -> tuple[int, ...]:
    return choose_play(spot_of(seen))


def varied_play(seen: Seen, rng: random.Random) -> tuple[int, ...]:
    """A play near the policy's best: any candidate within ``VARY_MARGIN`` of it, as `rng` picks."""
    ranked = ranked_plays(spot_of(seen))
    top = ranked[0][0]
    near = [p for sc, p in ranked if sc >= top - VARY_MARGIN]
    return near[rng.randrange(len(near))]
