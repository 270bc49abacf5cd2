"""Random legal play, fast: for benchmarks, property tests and the random AI's playouts.

``random_action`` is the old player the property tests and the frozen log
were made with (kept as it is: the frozen log depends on its choices); the
functions on faces (``declare_options``, ``random_lead``, ``random_follow``,
``random_bury``) are what the benchmark's player uses on either path.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from .actions import Action, Bury, Chao, Close, Deal, Declare, Next, Pass, Play
from .cards import NUM_FACES, cards_str
from .combos import pair_count, runs_of, tractor_lengths
from .hand import BURYING, CHAO, DEALING, DECLARING, PLAYING, Hand
from .match import Match
from .order import Order
from .play import Lead, lead_options, suit_cards

#: Share of declare-or-not decisions that declare when a declaration is legal.
DECLARE_SHARE = 0.3
#: Share of leads that try a throw (several cards of one suit at random).
THROW_SHARE = 0.2
MAX_THROW = 6


def random_follow(hand: list[int], lead: Lead, rng: random.Random, order: Any) -> tuple[int, ...]:
    """A uniformly-ish random legal follow: structure the rules demand, the rest at random."""
    n = len(lead.faces)
    have = suit_cards(hand, lead.suit, order)
    if n == 1:
        if have:
            return (rng.choice(have),)
        return (rng.choice([f for f in range(NUM_FACES) if hand[f] for _ in range(hand[f])]),)
    if len(have) <= n:
        rest = [f for f in range(NUM_FACES) if hand[f] and order.suit[f] != lead.suit for _ in range(hand[f])]
        return tuple(have) + tuple(rng.sample(rest, n - len(have)))
    pool = Counter(have)
    picked: list[int] = []
    pairs_needed = pair_count(lead.units)
    for need in tractor_lengths(lead.units):
        runs = [r for r in runs_of([f for f, c in pool.items() if c >= 2], order) if len(r) >= need]
        if not runs:
            continue
        run = rng.choice(runs)
        start = rng.randrange(len(run) - need + 1)
        for f in run[start : start + need]:
            picked += [f, f]
            pool[f] -= 2
        pairs_needed -= need
    pairs = [f for f, c in pool.items() if c >= 2]
    rng.shuffle(pairs)
    for f in pairs[: max(pairs_needed, 0)]:
        picked += [f, f]
        pool[f] -= 2
    singles = [f for f, c in pool.items() for _ in range(c)]
    picked += rng.sample(singles, n - len(picked))
    return tuple(picked)


def random_action(m: Match, rng: random.Random, declare_rate: float = 0.3) -> Action:
    """One random legal action for whoever must act (the system's clock included)."""
    h: Hand = m.hand
    if h.phase == DEALING:
        return Deal(4)
    if h.phase == DECLARING:
        seats = h.to_act()
        for seat in rng.sample(seats, len(seats)):
            opts = [a for a in m.legal_actions(seat) if isinstance(a, Declare)]
            if opts and (h.forced or rng.random() < declare_rate):
                return rng.choice(opts)
        if h.forced:
            return Declare(seats[0], ())  # unreachable: forced seats hold a level card
        return Close()
    if h.phase in (BURYING, CHAO):
        seat = h.to_act()[0]
        if h.phase == CHAO:
            chao = [a for a in m.legal_actions(seat) if isinstance(a, Chao)]
            if chao and rng.random() < declare_rate:
                return rng.choice(chao)
            return Pass(seat)
        cards = [f for f in range(NUM_FACES) for _ in range(h.hands[seat][f])]
        return Bury(seat, tuple(cards_str(rng.sample(cards, 8))))
    if h.phase == PLAYING:
        assert h.turn is not None and h.order is not None
        seat = h.turn
        if not h.trick:
            return Play(seat, tuple(cards_str(rng.choice(lead_options(h.hands[seat], h.order)))))
        assert h.lead is not None
        return Play(seat, tuple(cards_str(random_follow(h.hands[seat], h.lead, rng, h.order))))
    return Next()


def play_random_hand(m: Match, rng: random.Random, declare_rate: float = 0.3) -> int:
    """Play the current hand to its end with random legal moves; returns the actions applied."""
    n = 0
    while m.phase not in ("hand_over", "match_over"):
        m.apply(random_action(m, rng, declare_rate))
        n += 1
    return n


def declare_options(h: Hand, seat: int) -> list[tuple[int, ...]]:
    """Every declaration (or 炒底 bid) ``seat`` could make now, as faces (``Hand.declare_options``)."""
    return h.declare_options(seat)


def random_bury(hand: list[int], rng: random.Random) -> list[int]:
    """Eight cards of the hand at random."""
    return rng.sample([f for f in range(NUM_FACES) if hand[f] for _ in range(hand[f])], 8)


def random_lead(hand: list[int], order: Order, rng: random.Random, throw_share: float = THROW_SHARE) -> tuple[int, ...]:
    """A random lead, drawn without listing every lead: a card at random, then its pair or tractor
    half the time; on ``throw_share`` of the leads a throw of 2 to 6 cards of that card's suit at random
    (most fail; the engine corrects them)."""
    cards = [f for f in range(NUM_FACES) if hand[f] for _ in range(hand[f])]
    f = rng.choice(cards)
    suit = order.suit[f]
    if throw_share and rng.random() < throw_share:
        have = suit_cards(hand, suit, order)
        if len(have) > 2:
            return tuple(rng.sample(have, rng.randint(2, min(len(have), MAX_THROW))))
    if hand[f] < 2 or rng.random() < 0.5:
        return (f,)
    pairs = [g for g in order.members[suit] if hand[g] == 2]
    if len(pairs) > 1 and rng.random() < 0.5:
        for run in runs_of(pairs, order):
            if f in run and len(run) > 1:
                i = run.index(f)
                lo = rng.randint(0, min(i, len(run) - 2))
                hi = rng.randint(max(i, lo + 1), len(run) - 1)
                return tuple(g for g in run[lo : hi + 1] for _ in (0, 1))
    return (f, f)
