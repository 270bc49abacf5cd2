"""Deal the cards a seat cannot see, consistently with what it has seen.

A sample gives every other seat as many cards as it holds, never a card of a
suit it has shown it lacks, and fills the kitty when the seat does not know
it. Cards the seat holds, cards played and a kitty it buried are never dealt.
With ``Beliefs`` (``infer``) it also honours the guesses read from how the
others played, when some deal can: those first, then the facts alone.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from ..cards import NUM_FACES, TRUMP
from .infer import Beliefs
from .seen import Seen

KITTY = 4  # the kitty's slot next to the four seats
TRIES = 20


@dataclass
class Deal:
    """One guess at the hidden cards: counts per seat (the seat's own hand included) and the kitty."""

    hands: list[list[int]]
    kitty: list[int]
    exact: bool  # False when the voids could not all be honoured and a plain deal was used
    guessed: bool = False  # True when the guesses (``infer``) were honoured too


def sample(seen: Seen, rng: random.Random, beliefs: Beliefs | None = None) -> Deal:
    """One deal of the unseen cards; tries to honour the guesses and every revealed void, then the voids
    alone, then falls back to a plain deal."""
    unseen = seen.unseen()
    cards = [f for f in range(NUM_FACES) for _ in range(unseen[f])]
    room = [0, 0, 0, 0, 0]
    for s in range(4):
        if s != seen.seat:
            room[s] = seen.hand_counts[s]
    room[KITTY] = max(0, len(cards) - sum(room[:4]))  # 8 unless this seat knows the kitty
    order = seen.order
    allowed: list[list[int]] = []
    if order is not None:
        for f in range(NUM_FACES):
            suit = order.suit[f]
            allowed.append([s for s in range(5) if room[s] and (s == KITTY or suit not in seen.voids[s])])
    else:
        allowed = [[s for s in range(5) if room[s]] for _ in range(NUM_FACES)]
    if beliefs is not None and order is not None and not beliefs.empty():
        guessed = [
            [s for s in allowed[f] if s == KITTY or f not in beliefs.lacks[s]] for f in range(NUM_FACES)
        ]
        weight = [[1.0] * 5 for _ in range(NUM_FACES)]
        capped = [[False] * 5 for _ in range(NUM_FACES)]
        for f in range(NUM_FACES):
            suit = order.suit[f]
            for s in range(4):
                capped[f][s] = suit in beliefs.no_pair[s]
                if suit == TRUMP:
                    weight[f][s] = beliefs.trump_weight[s]
        for _ in range(TRIES // 2):
            deal = _try(cards, room, guessed, seen, rng, weight, capped)
            if deal is not None:
                deal.guessed = True
                return deal
    for _ in range(TRIES):
        deal = _try(cards, room, allowed, seen, rng)
        if deal is not None:
            return deal
    plain = [[s for s in range(5) if room[s]] for _ in range(NUM_FACES)]
    deal = _try(cards, room, plain, seen, rng)
    assert deal is not None
    deal.exact = False
    return deal


def _try(
    cards: list[int],
    room: list[int],
    allowed: list[list[int]],
    seen: Seen,
    rng: random.Random,
    weight: list[list[float]] | None = None,
    capped: list[list[bool]] | None = None,
) -> Deal | None:
    left = list(room)
    pool = list(cards)
    rng.shuffle(pool)
    pool.sort(key=lambda f: len(allowed[f]))  # the most constrained cards first
    hands = [[0] * NUM_FACES for _ in range(4)]
    hands[seen.seat] = list(seen.hand)
    kitty: list[int] = [] if seen.kitty is None else list(seen.kitty)
    for s, f in seen.shown():  # a shown trump bid stays with its seat until it is played
        if f in pool and left[s] > 0:
            pool.remove(f)
            left[s] -= 1
            hands[s][f] += 1
    for f in pool:
        slots = [s for s in allowed[f] if left[s] > 0]
        if capped is not None:
            slots = [s for s in slots if s == KITTY or not (capped[f][s] and hands[s][f])]
        if not slots:
            return None
        if weight is None:
            pick = rng.randrange(sum(left[s] for s in slots))
            for s in slots:
                pick -= left[s]
                if pick < 0:
                    break
        else:
            w = weight[f]
            x = rng.random() * sum(left[s] * w[s] for s in slots)
            for s in slots:
                x -= left[s] * w[s]
                if x < 0:
                    break
        left[s] -= 1
        if s == KITTY:
            kitty.append(f)
        else:
            hands[s][f] += 1
    return Deal(hands, kitty, True)
