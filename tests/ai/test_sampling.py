"""Sampled deals agree with everything the seat has seen."""

from __future__ import annotations

import random

import pytest

from engine import Match, preset
from engine.ai.sampling import sample
from engine.ai.seen import read_view
from tests.ai.drive import seat_plays, step


def _midway(seed: int, plays: int) -> Match:
    m = Match.new(preset("classic"), seed)
    done = 0
    while not (m.phase == "playing" and done >= plays):
        if seat_plays(m):
            done += 1
        step(m, "random" if done % 3 else "basic")
    return m


@pytest.mark.parametrize(("seed", "plays"), [(1, 0), (2, 23), (3, 50), (4, 77), (5, 90)])
def test_samples_respect_counts_voids_and_own_cards(seed: int, plays: int) -> None:
    m = _midway(seed, plays)
    seat = m.to_act()[0]
    seen = read_view(m.view(seat))
    assert seen.order is not None
    truth_total = [sum(x) for x in m.hand.hands]
    for k in range(20):
        deal = sample(seen, random.Random(k))
        assert deal.hands[seat] == seen.hand
        assert [sum(h) for h in deal.hands] == truth_total
        assert len(deal.kitty) == 8
        if deal.exact:
            for s in range(4):
                for f in range(54):
                    if deal.hands[s][f]:
                        assert seen.order.suit[f] not in seen.voids[s]
        for s, f in seen.shown():
            assert deal.hands[s][f] >= 1
        total = [deal.hands[0][f] + deal.hands[1][f] + deal.hands[2][f] + deal.hands[3][f] for f in range(54)]
        for f in deal.kitty:
            total[f] += 1
        for f in range(54):
            assert total[f] + seen.played[f] == 2
    # the truth itself honours every void the view revealed
    for s in range(4):
        for f in range(54):
            if m.hand.hands[s][f]:
                assert seen.order.suit[f] not in seen.voids[s]
