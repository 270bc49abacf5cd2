"""Guesses read from how the others played: facts hold, likely guesses are mostly right, samples follow them."""

from __future__ import annotations

import random

from engine import Match, preset
from engine.ai.infer import beliefs
from engine.ai.sampling import sample
from engine.ai.seen import read_view
from tests.ai.drive import seat_plays, step


def _states(seed: int, level: str = "basic") -> list[Match]:
    """Copies of one hand played by ``level`` seats, taken every 7 plays."""
    import copy

    m = Match.new(preset("classic"), seed)
    out: list[Match] = []
    plays = 0
    while m.phase not in ("hand_over", "match_over"):
        if seat_plays(m):
            plays += 1
            if plays % 7 == 0:
                out.append(copy.deepcopy(m))
        step(m, level)
    return out


def test_guesses_are_about_others_and_mostly_right_against_basic_players() -> None:
    right = wrong = 0
    guessed_pairs = 0
    for seed in range(1, 7):
        for m in _states(seed):
            seat = m.to_act()[0]
            seen = read_view(m.view(seat))
            assert seen.order is not None
            b = beliefs(seen)
            assert not b.lacks[seat] and not b.no_pair[seat]
            for s in range(4):
                hand = m.hand.hands[s]
                for suit in b.no_pair[s]:  # a fact under the rules: a split pair lead means no pair left
                    guessed_pairs += 1
                    assert all(hand[f] < 2 for f in range(54) if seen.order.suit[f] == suit), (seed, s, suit)
                for f in b.lacks[s]:
                    if hand[f]:
                        wrong += 1
                    else:
                        right += 1
    assert guessed_pairs > 0 and right > 50
    assert wrong <= right * 0.1, (right, wrong)


def test_samples_follow_the_guesses_when_they_can() -> None:
    checked = honoured = 0
    for seed in (2, 3):
        for m in _states(seed):
            seat = m.to_act()[0]
            seen = read_view(m.view(seat))
            assert seen.order is not None
            b = beliefs(seen)
            if not any(b.lacks):
                continue
            for k in range(10):
                deal = sample(seen, random.Random(k), b)
                assert deal.hands[seat] == seen.hand
                if deal.guessed:
                    honoured += 1
                    for s in range(4):
                        assert not any(deal.hands[s][f] for f in b.lacks[s])
                        assert all(
                            deal.hands[s][f] < 2 for f in range(54) if seen.order.suit[f] in b.no_pair[s]
                        )
                checked += 1
    assert checked and honoured >= checked * 0.8
