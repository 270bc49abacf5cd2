"""The arena command plays duplicate deals and reports what the README quotes."""

from __future__ import annotations

import json
from pathlib import Path

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


def test_a_run_kept_in_a_file_goes_on_where_it_stopped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "deals.jsonl"
    args = ["--a", "basic", "--b", "random", "--seed", "3", "--out", str(out)]
    assert main([*args, "--deals", "2"]) == 0
    first = [json.loads(line) for line in out.read_text().splitlines()]
    assert [row["deal"] for row in first] == [0, 1]
    capsys.readouterr()
    assert main([*args, "--deals", "3"]) == 0  # plays only deal 2, reports all three
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [row["deal"] for row in rows] == [0, 1, 2] and rows[:2] == first
    assert "3 duplicate deals (6 hands)" in capsys.readouterr().out


def test_the_action_digest_tells_two_runs_of_a_deal_apart_only_when_they_decide_differently() -> None:
    g1, _ = play_deal(("classic", 12, "basic", "random", 0.05, None, 1))
    again, _ = play_deal(("classic", 12, "basic", "random", 0.05, None, 1))
    other, _ = play_deal(("classic", 13, "basic", "random", 0.05, None, 1))
    assert g1.actions == again.actions and g1.actions != other.actions and len(g1.actions) == 16
