"""A lean trick loop for playouts: the engine's rules, without its checks and events.

``strong`` plays thousands of hands to their end per decision, so this loop
skips what the engine's ``Hand`` does for people: follow checks (the policy
only makes legal plays), events, history. It still uses the engine's own
functions for what decides the result: ``check_lead`` for throws (a sampled
opponent may block one), ``trick_winner`` for multi-card tricks, the kitty
multiplier and the throw penalty of the rules. A test plays the same hands
through ``Hand`` and through this loop and compares the points.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..cards import NUM_FACES, POINTS, TRUMP
from ..combos import Unit, decompose
from ..order import Order
from ..play import Lead, check_lead, trick_winner
from ..rules import Rules
from ..scoring import kitty_multiplier, throw_penalty
from .policy import Play, Spot, choose_play

_NO_VOIDS: tuple[set[int], ...] = (set(), set(), set(), set())


def make_lead(
    faces: Sequence[int], hand: Sequence[int], others: Sequence[Sequence[int]], order: Order
) -> Lead:
    """The lead as the engine would accept it; only throws need the other hands."""
    f0 = faces[0]
    suit = order.suit[f0]
    if len(faces) == 1:
        return Lead((f0,), suit, (Unit(0, order.rank[f0], (f0,)),), (f0,))
    units = decompose(faces, order)
    if len(units) == 1:
        t = tuple(faces)
        return Lead(t, suit, (units[0],), t)
    return check_lead(faces, hand, others, order)


def run_out(
    rules: Rules,
    order: Order,
    dealer: int,
    hands: list[list[int]],
    kitty: Sequence[int],
    trick: list[Play],
    lead: Lead | None,
    turn: int,
    defender_points: int,
    first: Sequence[int] | None = None,
) -> int:
    """Play to the end of the hand with the policy for every seat; the defenders' final points.

    ``hands`` are changed in place. ``first``, when given, is the play of the
    seat to act (``turn``); the policy plays every other card.
    """
    dteam = dealer % 2
    remaining = [0] * NUM_FACES
    for hand in hands:
        for f in range(NUM_FACES):
            remaining[f] += hand[f]
    trick = list(trick)
    pts = defender_points
    osuit, orank = order.suit, order.rank
    while True:
        mine = hands[turn]
        if first is not None:
            faces: Sequence[int] = first
            first = None
        else:
            faces = choose_play(Spot(mine, turn, trick, lead, order, dteam, remaining, _NO_VOIDS))
        if not trick:
            lead = make_lead(faces, mine, [hands[s] for s in range(4) if s != turn], order)
            if lead.failed:
                penalty = throw_penalty(rules, len(lead.attempted), len(lead.faces))
                pts += penalty if turn % 2 == dteam else -penalty
            faces = lead.faces
        for f in faces:
            mine[f] -= 1
            remaining[f] -= 1
        trick.append((turn, tuple(faces)))
        if len(trick) < 4:
            turn = (turn + 1) % 4
            continue
        assert lead is not None
        if len(lead.faces) == 1:
            best = 0
            bf = trick[0][1][0]
            for i in range(1, 4):
                f = trick[i][1][0]
                if (osuit[f] == osuit[bf] and orank[f] > orank[bf]) or (
                    osuit[f] == TRUMP and osuit[bf] != TRUMP
                ):
                    best, bf = i, f
        else:
            best = trick_winner([p for _, p in trick], lead, order)
        winner = trick[best][0]
        if winner % 2 != dteam:
            pts += sum(POINTS[f] for _, p in trick for f in p)
        trick = []
        turn = winner
        if not any(hands[winner]):
            if winner % 2 != dteam:
                pts += sum(POINTS[f] for f in kitty) * kitty_multiplier(rules, lead.units)
            return pts
        lead = None
