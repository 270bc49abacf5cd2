"""The arena command plays duplicate deals and reports what the README quotes."""

from __future__ import annotations

import pytest

from engine.arena import main, play_deal, play_game, wilson


def test_arena_prints_the_figures(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--a", "basic", "--b", "random", "--deals", "2", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "hands won: A " in out and "A win rate:" in out and "95% CI" in out
    assert "decision time basic: median" in out and "decision time random: median" in out


def test_a_duplicate_deal_swaps_the_seats_and_keeps_the_cards() -> None:
    g1, g2 = play_deal(("classic", 12, "basic", "basic", 0.05, None, 1))
    # the same level on both sides and the same seeds: the two games are mirror images
    assert (g1.winner is None) == (g2.winner is None)
    if g1.winner is not None:
        assert g1.winner != g2.winner and g1.points == g2.points


def test_wilson_interval() -> None:
    lo, hi = wilson(60, 100)
    assert 0.50 < lo < 0.60 < hi < 0.70


def test_a_later_hand_is_measured_after_basic_played_the_earlier_ones() -> None:
    seen: set[str] = set()
    for seed in (6, 7):
        g = play_game("chaodipi", seed, ["strong", "basic", "strong", "basic"], ["A", "B"], 0.05, deals=1, hand=2)
        seen |= set(g.phase_cpu)
    # the second hand has a dealer from the first, and 炒底 is offered around the table
    assert "strong chao" in seen and "basic chao" in seen and "strong playing" in seen
