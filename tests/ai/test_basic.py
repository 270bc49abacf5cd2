"""The basic level's rules of thumb, one situation each."""

from __future__ import annotations

from typing import Any

from engine import Match, parse_card, preset
from engine.ai import choose
from engine.ai.policy import Spot, choose_play
from engine.cards import FULL_DECK, NUM_FACES, POINTS, counts_of, parse_cards
from engine.combos import decompose
from engine.order import order_for
from engine.play import Lead

RULES = preset("classic")
ORDER = order_for(0, 0, RULES)  # level 2, spades trump


def _spot(seat: int, hand: str, trick: list[tuple[int, str]], gone: str = "") -> Spot:
    """A seat about to follow; ``gone`` lists cards already played in earlier tricks."""
    counts = counts_of(parse_cards(hand.split()))
    plays = [(s, tuple(parse_cards(c.split()))) for s, c in trick]
    left = counts_of(FULL_DECK)
    for f in [*parse_cards(gone.split()), *(f for _, p in plays for f in p)]:
        left[f] -= 1
    lf = plays[0][1]
    lead = Lead(lf, ORDER.suit[lf[0]], tuple(decompose(lf, ORDER)), lf)
    return Spot(counts, seat, plays, lead, ORDER, 1, left, (set(), set(), set(), set()))


def test_feeds_points_to_a_partner_holding_the_trick() -> None:
    spot = _spot(2, "KH 4H 3D 9C", [(0, "AH"), (1, "3H")], gone="AH")
    assert choose_play(spot) == (parse_card("KH"),)


def test_keeps_points_from_an_opponent_holding_the_trick() -> None:
    spot = _spot(2, "KH 4H 3D 9C", [(0, "3H"), (1, "AH")], gone="AH")
    assert choose_play(spot) == (parse_card("4H"),)


def test_wins_a_trick_full_of_points_with_its_smallest_safe_card() -> None:
    spot = _spot(3, "AH QH 4H 3D", [(0, "9H"), (1, "5H"), (2, "TH")])
    assert choose_play(spot) == (parse_card("QH"),)


def test_ruffs_points_with_a_low_trump_when_void() -> None:
    spot = _spot(3, "3S BJ 9D 4C", [(0, "KH"), (1, "TH"), (2, "5H")])
    assert choose_play(spot) == (parse_card("3S"),)


def _at(phase: str, seed: int) -> Match:
    m = Match.new(preset("classic"), seed)
    while m.phase != phase:
        to_act = m.to_act()
        if to_act:
            m.apply(choose(m.view(to_act[0]), "basic", 0))
        else:
            sa = m.system_action()
            assert sa is not None
            m.apply(sa)
    return m


def test_bury_keeps_points_and_trumps_when_it_can() -> None:
    for seed in range(8):
        m = _at("burying", seed)
        seat = m.to_act()[0]
        view: dict[str, Any] = m.view(seat)
        order = m.hand.order
        assert order is not None
        hand = parse_cards(view["hand"])
        spare = [f for f in hand if order.suit[f] != 4 and not POINTS[f]]
        a = choose(view, "basic", 1)
        buried = parse_cards(list(a.cards))
        assert len(buried) == 8 and m.check(a) is None
        if len(spare) >= 8:
            assert all(order.suit[f] != 4 and not POINTS[f] for f in buried), (view["hand"], list(a.cards))


def test_declares_a_long_suit_and_passes_a_weak_hand() -> None:
    strong = "2H 2S AH KH QH JH 9H 8H 7H 6H 4H 3H 5S 6S 7S 8C 9C TC 3D 4D 5D 6D 7D 8D 9D"
    weak = "2H 3S 5S 6S 7S 8S 9S 3H 4H 5H 6C 7C 8C 9C TC 3D 4D 5D 6D 7D 8D 9D JD QD KD"
    for hand, want in ((strong, "declare"), (weak, "pass")):
        view = {"seat": 0, "phase": "declaring", "hand": hand.split(), "level": "2", "levels": ["2", "2"],
                "dealer": None, "declaration": None, "trump": None, "rules": "classic", "trick": [],
                "tricks": [], "hand_counts": [25, 25, 25, 25]}  # fmt: skip
        a = choose(view, "basic", 0)
        assert a.t == want
        if want == "declare":
            assert list(a.cards) == ["2H"]


def test_unseen_never_counts_own_or_played_cards() -> None:
    m = _at("playing", 3)
    from engine.ai.seen import read_view

    seen = read_view(m.view(m.to_act()[0]))
    unseen = seen.unseen()
    assert sum(unseen) == 108 - sum(seen.hand) - sum(seen.played) - (8 if seen.kitty is not None else 0)
    assert all(0 <= unseen[f] <= 2 for f in range(NUM_FACES))
