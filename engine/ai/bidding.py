"""Searched bids: declare, override or pass once the deal is done, and 炒底 or pass.

Each choice is played out on deals of the hidden cards: who becomes dealer
and which suit is trump follow from the choice, the dealer takes the kitty
and buries as ``basic`` does, and the hand is played from the first lead
with the policy. After a pass the others are assumed to bid as ``basic``
would with the cards they were dealt (a bid that stands is kept; nobody
bidding counts as an even hand). ``basic``'s bid is the default, left only
on evidence (``race``). Bids while cards are still being dealt are
``basic``'s: most of the hand is still unknown then.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from ..actions import SeatAction
from ..cards import NO_TRUMP, NUM_FACES, SMALL_JOKER, card_str, parse_rank, rank_of
from ..declare import Declaration
from ..order import order_for
from . import basic
from .burying import COST_PER_HAND_S, MAX_DEALS, Score, play_hand, without
from .options import action, can_pass, current_declaration, declare_options
from .race import deadline_for, race
from .sampling import Deal, sample
from .seen import Seen
from .value import value_for


@dataclass(frozen=True)
class Choice:
    act: SeatAction
    bid: Declaration | None  # None: pass


def decide(seen: Seen, rng: random.Random, budget_s: float, *, deals: int | None = None) -> SeatAction:
    default = basic.decide(seen)
    if seen.phase not in ("declaring", "chao"):
        return default
    chao = seen.phase == "chao"
    t = "chao" if chao else "declare"
    choices = [
        Choice(action(t, seen.seat, [card_str(d.face)] * d.count), d)
        for d in declare_options(seen, chao=chao)
    ]
    if chao or can_pass(seen):
        choices.append(Choice(action("pass", seen.seat), None))
    first = [c for c in choices if c.act == default]
    if not first:
        return default
    cands = first + [c for c in choices if c.act != default]
    if len(cands) == 1:
        return default
    n = deals if deals is not None else MAX_DEALS
    playouts = int(budget_s / COST_PER_HAND_S) if deals is None else n * len(cands)

    def value(deal: Deal, j: int) -> float:
        return _chao_value(seen, deal, cands[j].bid) if chao else _declare_value(seen, deal, cands[j].bid)

    best, _, _ = race(
        len(cands), n, playouts, lambda: sample(seen, rng), value, deadline_for(budget_s, deals)
    )
    return cands[best].act


def _suit(face: int) -> int:
    return NO_TRUMP if face >= SMALL_JOKER else face // 13


def _level(seen: Seen, dealer: int) -> int:
    levels = seen.view.get("levels") or []
    return parse_rank(str(levels[dealer % 2])) if seen.dealer is None and len(levels) == 2 else seen.level


def _others_bid(seen: Seen, hands: list[list[int]]) -> tuple[int, int] | None:
    """(seat, trump) of the first other seat still to act that would declare as ``basic`` does, if any
    (the engine asks the seats that have not passed in seat order)."""
    waiting = seen.view.get("to_act") or [(seen.seat + i) % 4 for i in range(1, 4)]
    for s in sorted(int(x) for x in waiting):
        if s == seen.seat:
            continue
        level = _level(seen, s)
        best: tuple[float, int] | None = None
        for f in range(NUM_FACES):
            if (
                not hands[s][f]
                or (f < SMALL_JOKER and rank_of(f) != level)
                or (f >= SMALL_JOKER and hands[s][f] < 2)
            ):
                continue
            strength = basic.trump_strength(hands[s], _suit(f), level)
            if strength >= basic.DECLARE_AT and (best is None or strength > best[0]):
                best = (strength, _suit(f))
        if best is not None:
            return s, best[1]
    return None


def _declare_value(seen: Seen, deal: Deal, bid: Declaration | None, score: Score = value_for) -> float:
    current = current_declaration(seen)
    if bid is not None:
        trump = bid.suit
        if seen.dealer is not None:
            dealer = seen.dealer
        elif current is not None and seen.rules.first_hand_dealer == "first":
            dealer = current.seat  # the first declarer (the view names only the standing bid)
        else:
            dealer = seen.seat
    elif current is not None:
        trump = current.suit
        dealer = seen.dealer if seen.dealer is not None else current.seat
    else:
        other = _others_bid(seen, deal.hands)
        if other is None:
            return 0.0
        dealer = seen.dealer if seen.dealer is not None else other[0]
        trump = other[1]
    return _after_pickup(seen, deal, dealer, trump, dealer, score)


def _chao_value(seen: Seen, deal: Deal, bid: Declaration | None, score: Score = value_for) -> float:
    assert seen.dealer is not None and seen.trump is not None
    if bid is None:  # the kitty stays buried as it is
        order = order_for(seen.level, seen.trump, seen.rules)
        return play_hand(seen, order, seen.dealer, [list(h) for h in deal.hands], list(deal.kitty), score)
    return _after_pickup(seen, deal, seen.dealer, bid.suit, seen.seat, score)


def bid_value(seen: Seen, deal: Deal, bid: Declaration | None, score: Score = value_for) -> float:
    """One bid (None: the pass) played out on one deal: 炒底 in the chao round, else a declaration."""
    if seen.phase == "chao":
        return _chao_value(seen, deal, bid, score)
    return _declare_value(seen, deal, bid, score)


def _after_pickup(
    seen: Seen, deal: Deal, dealer: int, trump: int, picker: int, score: Score = value_for
) -> float:
    """The picker takes the kitty and buries as ``basic`` does; the hand is played from the dealer's lead."""
    order = order_for(_level(seen, dealer), trump, seen.rules)
    hands = [list(h) for h in deal.hands]
    for f in deal.kitty:
        hands[picker][f] += 1
    buried = basic.bury_counts(hands[picker], order)
    hands[picker] = without(hands[picker], buried)
    return play_hand(seen, order, dealer, hands, buried, score)
