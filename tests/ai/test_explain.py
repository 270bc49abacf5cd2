"""A hint's reason reads the seat's view only, and what it names is true of that view."""

from __future__ import annotations

from engine import Match, preset
from engine.ai import choose
from engine.ai.explain import reason
from engine.cards import parse_card

from .test_no_peeking import _advance, _swap_hidden


def test_the_reason_is_the_same_for_states_that_look_the_same() -> None:
    for seed, plays in ((4, 5), (5, 22), (6, 47)):
        m = _advance(Match.new(preset("classic"), seed), "playing", plays)
        seat = m.to_act()[0]
        twin = _swap_hidden(m, seat)
        a = choose(m.view(seat), "strong", 1, 0.05, deals=3)
        assert reason(m.view(seat), a) == reason(twin.view(seat), a)


def test_kept_cards_are_the_seats_own_stronger_cards_of_the_suit_played() -> None:
    named = expected = 0
    for seed in range(3, 9):
        m = _advance(Match.new(preset("classic"), seed), "playing", 0)
        while m.phase == "playing":
            seat = m.to_act()[0]
            view = m.view(seat)
            a = choose(view, "basic", m.version)
            code, params = reason(view, a)
            assert code in ("lead_master", "lead_safe", "takes", "partner_winning", "cannot_beat", "revolt")
            order = m.hand.order
            assert order is not None
            played = [parse_card(c) for c in a.cards]
            for c in params.get("keeps", []):
                f = parse_card(c)
                assert c in view["hand"] and order.suit[f] == order.suit[played[0]]
                assert all(order.rank[f] > order.rank[g] for g in played)
                named += 1
            if params.get("expect") == "void":
                assert params["expect_seat"] % 2 != seat % 2
                assert not any(
                    m.hand.hands[params["expect_seat"]][g]
                    for g in range(54)
                    if order.suit[g] == "SHDC".index(params["expect_suit"])
                )
            expected += "expect" in params
            m.apply(a)
    assert named > 20 and expected > 50
