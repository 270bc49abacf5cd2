"""The playout loop scores hands exactly as the engine's ``Hand`` does."""

from __future__ import annotations

import pytest

from engine import Match, preset
from engine.ai import choose
from engine.ai.policy import Spot, choose_play
from engine.ai.rollout import run_out
from engine.cards import NUM_FACES
from engine.hand import PLAYING


def _at_first_lead(preset_name: str, seed: int) -> Match:
    m = Match.new(preset(preset_name), seed)
    while m.phase != "playing":
        to_act = m.to_act()
        if to_act:
            m.apply(choose(m.view(to_act[0]), "basic", seed))
        else:
            sa = m.system_action()
            assert sa is not None
            m.apply(sa)
    return m


@pytest.mark.parametrize("preset_name", ["classic", "competition", "chaodipi", "super"])
@pytest.mark.parametrize("seed", [1, 2])
def test_rollout_matches_the_engine(preset_name: str, seed: int) -> None:
    m = _at_first_lead(preset_name, seed)
    h = m.hand
    assert h.order is not None and h.dealer is not None and h.turn is not None
    hands = [list(x) for x in h.hands]
    pts = run_out(h.rules, h.order, h.dealer, hands, h.kitty, [], None, h.turn, h.defender_points)
    # the same policy through the engine's checked path
    while h.phase == PLAYING:
        s = h.turn
        assert s is not None
        left = [sum(hh[f] for hh in h.hands) for f in range(NUM_FACES)]
        spot = Spot(h.hands[s], s, h.trick, h.lead, h.order, h.dealer % 2, left, (set(), set(), set(), set()))
        h.play(s, choose_play(spot))
    assert h.result is not None
    assert pts == h.result.defender_points
    assert all(sum(x) == 0 for x in hands)
