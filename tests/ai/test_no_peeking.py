"""The AI decides from the seat's view only: states that look the same to a seat get the same move."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from engine import Match, preset
from engine.ai import LEVELS, choose
from tests.ai.drive import seat_plays, step


def _advance(m: Match, phase: str, plays: int = 0) -> Match:
    """Play basic moves until ``phase`` (and ``plays`` cards into it)."""
    done = 0
    while True:
        if m.phase == phase and (phase != "playing" or done >= plays):
            return m
        if seat_plays(m):
            done += 1
        step(m, "basic")


def _swap_hidden(m: Match, seat: int) -> Match:
    """A different full state: two other seats trade cards of the same effective suit, and the kitty changes."""
    other = copy.deepcopy(m)
    h = other.hand
    a, b = (seat + 1) % 4, (seat + 3) % 4
    order = h.order
    swapped = 0
    for f in range(54):
        for g in range(54):
            if f == g or not h.hands[a][f] or not h.hands[b][g]:
                continue
            if order is not None and order.suit[f] != order.suit[g]:
                continue
            if h.hands[a][g] or h.hands[b][f]:
                continue
            h.hands[a][f] -= 1
            h.hands[a][g] += 1
            h.hands[b][g] -= 1
            h.hands[b][f] += 1
            swapped += 1
            break
        if swapped:
            break
    assert swapped > 0
    view = m.view(seat)
    if h.kitty and view.get("kitty") is None and view.get("buried") is None:  # a kitty the seat cannot see
        for i, k in enumerate(h.kitty):
            g = next((g for g in range(54) if h.hands[a][g] and g != k and _suit(h, g) == _suit(h, k)), None)
            if g is not None:
                h.kitty[i], h.hands[a][g], h.hands[a][k] = g, h.hands[a][g] - 1, h.hands[a][k] + 1
                break
    assert [list(x) for x in other.hand.hands] != [list(x) for x in m.hand.hands]
    return other


def _suit(h: Any, f: int) -> int:
    return int(h.order.suit[f]) if h.order is not None else f // 13


CASES = [("classic", 3, "declaring", 0), ("classic", 4, "playing", 0), ("competition", 5, "playing", 9),
         ("chaodipi", 6, "playing", 30), ("super", 7, "playing", 61), ("classic", 8, "burying", 0),
         ("chaodipi", 6, "chao", 0), ("super", 9, "declaring", 0)]  # fmt: skip


@pytest.mark.parametrize(("preset_name", "seed", "phase", "plays"), CASES)
@pytest.mark.parametrize("level", LEVELS)
def test_same_view_same_decision(preset_name: str, seed: int, phase: str, plays: int, level: str) -> None:
    m = _advance(Match.new(preset(preset_name), seed), phase, plays)
    seat = m.to_act()[0]
    twin = _swap_hidden(m, seat)
    view, twin_view = m.view(seat), twin.view(seat)
    assert view == twin_view
    a = choose(view, level, 42, 0.05, deals=3)
    b = choose(twin_view, level, 42, 0.05, deals=3)
    assert a == b
    assert m.check(a) is None and twin.check(b) is None


@pytest.mark.parametrize("level", LEVELS)
def test_choose_leaves_the_view_alone_and_repeats_itself(level: str) -> None:
    m = _advance(Match.new(preset("classic"), 9), "playing", 13)
    view: dict[str, Any] = m.view(m.to_act()[0])
    before = json.dumps(view, sort_keys=True)
    first = choose(view, level, 5, 0.05, deals=4)
    assert json.dumps(view, sort_keys=True) == before
    assert choose(view, level, 5, 0.05, deals=4) == first


def test_unknown_level_is_refused() -> None:
    m = Match.new(preset("classic"), 1)
    with pytest.raises(ValueError, match="unknown AI level"):
        choose(m.view(0), "genius", 0, 0.1)


def test_the_ai_reads_overridden_rules_from_the_view() -> None:
    from engine.ai.seen import read_view

    m = Match.new(preset("classic", chao=True, target="5"), 1)
    seen = read_view(m.view(0))
    assert seen.rules.chao and seen.rules.target == 3
