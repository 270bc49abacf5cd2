"""Invariants over thousands of random hands, for every preset.

Seeded random matches with random legal play (engine.randplay), plus a
hypothesis test over random seeds and declaring habits.
"""

from __future__ import annotations

import os
import random
from collections import Counter
from operator import mul
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import Match, preset
from engine.cards import CARD_INDEX, FULL_DECK, POINTS, cards_str, counts_of
from engine.hand import BURYING, DEALING, Hand
from engine.randplay import random_action

#: `make test` plays 1,000 hands of each preset; `TRACTOR_PROPERTY_HANDS=2000` (docs/testing.md) plays the long run.
HANDS_PER_PRESET = int(os.environ.get("TRACTOR_PROPERTY_HANDS", "1000"))
PRESETS = ("classic", "competition", "chaodipi", "super")
#: Each preset's hands are played in this many tests (each its own seed), which parallel workers share.
CHUNKS = 4


#: Each face twice: what ``all_cards`` finds at every step.
FULL = counts_of(FULL_DECK)


def all_cards(h: Hand) -> list[int]:
    """Every card of the hand wherever it is (hands, kitty, tricks, undealt deck), as 54 counts."""
    loose: list[int] = []
    if h.phase == DEALING:
        loose += h.deck[h.drawn : 100]
    if h.phase != BURYING:
        loose += h.kitty
    for trick, _, _ in h.tricks:
        for _, p in trick:
            loose += p
    for _, p in h.trick:
        loose += p
    assert min(loose, default=0) >= 0, loose  # a negative face would wrap round as a list index
    a, b, c, d = h.hands
    return [w + x + y + z + n for w, x, y, z, n in zip(a, b, c, d, counts_of(loose), strict=True)]


def check_views(m: Match) -> None:
    h = m.hand
    public = m.public_view()
    assert "hand" not in public and "kitty" not in public
    views = [m.view(seat) for seat in range(4)]
    assert public == m.public_view()  # building the seat views did not change it
    for seat, v in enumerate(views):
        assert m.view(seat, public) == v  # a host builds seat views on its cached public view
        assert m.can_declare(seat) == any(a.t == "declare" for a in m.legal_actions(seat))
        shown = counts_of(CARD_INDEX[card] for card in v["hand"])  # the cards the view names, by face
        assert shown == h.hands[seat], (v["hand"], h.hands[seat])
        if "kitty" in v:
            assert h.phase == BURYING and h.burier == seat
        for key, value in v.items():
            if key in ("hand", "kitty"):
                continue
            assert value == public.get(key, value) or key in ("seat", "can_revolt")
    assert public == m.public_view()  # ... nor did building them on the cached one


def play_one_hand(m: Match, rng: random.Random, declare_rate: float, stats: Counter[str]) -> None:
    start = m.hand
    assert all_cards(start) == FULL
    steps = 0
    while m.phase not in ("hand_over", "match_over"):
        action = random_action(m, rng, declare_rate)
        assert m.check(action) is None, (action, m.check(action))
        events = m.apply(action)
        h = m.hand
        assert h is start
        for e in events:
            if e["e"] == "trick":
                stats["tricks"] += 1
                assert e["winner"] in range(4)
                assert e["winner"] in [s for s, _ in h.tricks[-1][0]]
                assert len(h.tricks[-1][0]) == 4
        steps += 1
        if steps % 17 == 0:
            assert all_cards(h) == FULL
            check_views(m)
    h = m.hand
    cards = all_cards(h)
    assert cards == FULL
    assert sum(map(mul, POINTS, cards)) == 200
    r = h.result
    assert r is not None
    stats[r.reason] += 1
    if r.reason == "played":
        captured = sum(pts for _, _, pts in h.tricks)
        assert captured + r.kitty_points == 200
        assert sum(len(p) for t, _, _ in h.tricks for _, p in t) == 100
        assert all(sum(c) == 0 for c in h.hands)


def run_matches(name: str, hands: int, seed: int, declare_rate: float = 0.3) -> Counter[str]:
    rng = random.Random(seed)
    stats: Counter[str] = Counter()
    s = seed * 100_000
    while stats["hands"] < hands:
        m = Match.new(preset(name), s)
        s += 1
        while stats["hands"] < hands:
            play_one_hand(m, rng, declare_rate, stats)
            stats["hands"] += 1
            if m.phase == "match_over":
                stats["matches_over"] += 1
                break
            m.apply({"t": "next"})
        again = Match.replay(m.rules, m.seed, m.actions)
        assert again.public_view() == m.public_view()
        for seat in range(4):
            assert again.view(seat) == m.view(seat)
        assert again.levels == m.levels and again.history == m.history
    return stats


@pytest.mark.slow(4)
@pytest.mark.parametrize("chunk", range(CHUNKS))
@pytest.mark.parametrize("name", PRESETS)
def test_random_hands_keep_every_invariant(name: str, chunk: int) -> None:
    """HANDS_PER_PRESET hands of each preset in all, a CHUNKS-th of them here."""
    hands = HANDS_PER_PRESET // CHUNKS + (chunk < HANDS_PER_PRESET % CHUNKS)
    stats = run_matches(name, hands, seed=PRESETS.index(name) + 1 + 10 * chunk)
    assert stats["hands"] == hands
    assert stats["tricks"] >= 5 * stats["played"]
    assert stats["played"] > hands * 0.9


@settings(max_examples=40, deadline=None)
@given(
    name=st.sampled_from(PRESETS),
    seed=st.integers(min_value=0, max_value=2**32),
    rate=st.floats(min_value=0.0, max_value=1.0),
)
def test_any_seed_plays_a_legal_hand(name: str, seed: int, rate: float) -> None:
    m = Match.new(preset(name), seed)
    rng = random.Random(seed)
    stats: Counter[str] = Counter()
    play_one_hand(m, rng, rate, stats)
    if m.phase != "match_over":
        m.apply({"t": "next"})
        assert m.phase == "dealing"
    again = Match.replay(m.rules, m.seed, [a.to_json() for a in m.actions])
    assert again.public_view() == m.public_view()


def test_actions_are_plain_json() -> None:
    import json

    m = Match.new(preset("classic"), 5)
    rng = random.Random(5)
    play_one_hand(m, rng, 0.5, Counter())
    text = json.dumps(m.actions_json())
    restored: list[dict[str, Any]] = json.loads(text)
    assert Match.replay(m.rules, 5, restored).public_view() == m.public_view()
    assert all(isinstance(c, str) for a in restored for c in a.get("cards", []))
    _ = cards_str


@pytest.mark.parametrize("name", PRESETS)
def test_eager_bidders_cannot_override_forever(name: str) -> None:
    """Seats that bid and 炒 whenever they can still reach the play: each pair is shown once a hand."""
    for seed in range(30):
        m = Match.new(preset(name), seed)
        rng = random.Random(seed)
        for _ in range(3):
            steps = 0
            while m.phase not in ("hand_over", "match_over"):
                m.apply(random_action(m, rng, declare_rate=1.0))
                steps += 1
                assert steps < 1500, (name, seed, m.phase)
            if m.phase == "match_over":
                break
            m.apply({"t": "next"})
