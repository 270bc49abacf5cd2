"""Every AI decision is legal: many random hands, all four presets, every level."""

from __future__ import annotations

from collections import Counter

import pytest

from engine import PRESETS, Match
from engine.actions import SeatAction
from tests.ai.drive import drive

PRESET_NAMES = sorted(PRESETS)


@pytest.mark.parametrize("preset_name", PRESET_NAMES)
@pytest.mark.parametrize("seed", range(3))
def test_random_and_basic_always_legal(preset_name: str, seed: int) -> None:
    kinds: Counter[str] = Counter()

    def note(m: Match, s: int, a: SeatAction) -> None:
        kinds[a.t] += 1

    m = drive(preset_name, seed, ["random", "basic", "random", "basic"], hands=2, on_decision=note)
    assert m.hand_no >= 2 or m.phase == "match_over"
    assert kinds["play"] > 0 and kinds["bury"] > 0


@pytest.mark.parametrize("preset_name", PRESET_NAMES)
def test_strong_always_legal(preset_name: str) -> None:
    m = drive(preset_name, 11, ["strong", "basic", "strong", "random"], hands=1, deals=1)
    assert m.hand.result is not None


def test_chao_and_revolt_reached_somewhere() -> None:
    """The later-hand decisions (炒底, revolution) come up in these presets and stay legal."""
    kinds: Counter[str] = Counter()

    def note(m: Match, s: int, a: SeatAction) -> None:
        kinds[a.t] += 1
        if m.phase == "chao":
            kinds["chao_phase"] += 1

    for seed in range(4):
        drive("chaodipi", seed, ["random", "basic", "random", "basic"], hands=3, on_decision=note)
    assert kinds["chao_phase"] > 0


def test_a_view_is_read_with_the_rules_it_carries_even_when_a_dict_is_reused() -> None:
    """`rules_of` remembers the few rule sets in play by content; changing a dict it has seen
    (or a new dict with other options) gives the rules that dict now says."""
    import engine
    from engine.ai.seen import rules_of

    options = engine.preset("classic").to_dict()
    assert rules_of({"rules_options": options}) == engine.preset("classic")
    assert rules_of({"rules_options": dict(options)}) == engine.preset("classic")
    options.update(engine.preset("competition").to_dict())  # the same object, other rules
    assert rules_of({"rules_options": options}) == engine.preset("competition")
    for name in ("classic", "competition", "chaodipi", "super", "duplicate"):
        assert rules_of({"rules_options": engine.preset(name).to_dict()}) == engine.preset(name)
