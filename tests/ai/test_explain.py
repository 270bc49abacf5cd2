"""A hint's reason reads the seat's view only, and what it names is true of that view."""

from __future__ import annotations

import random
from typing import Any

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
            assert code in ("lead_master", "lead_top", "lead_safe", "lead_low", "takes", "partner_winning",
                            "cannot_beat", "revolt")
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


def _view_facts(view: Any, order: Any) -> tuple[list[int], list[set[int]]]:
    """What the seat's view shows, read here independently of ``engine.ai.seen``: the count of each
    card the seat cannot place, and the suits each seat showed it lacks by following short."""
    unseen = [2] * 54
    for c in view["hand"]:
        unseen[parse_card(c)] -= 1
    kitty = view.get("kitty") if view.get("kitty") is not None else view.get("buried")
    for c in kitty or []:
        unseen[parse_card(c)] -= 1
    voids: list[set[int]] = [set(), set(), set(), set()]
    tricks = [t["plays"] for t in view.get("tricks") or []] + [view.get("trick") or []]
    for plays in tricks:
        for _, cards in plays:
            for c in cards:
                unseen[parse_card(c)] -= 1
        if plays:
            suit = order.suit[parse_card(plays[0][1][0])]
            for s, cards in plays[1:]:
                if sum(order.suit[parse_card(c)] == suit for c in cards) < len(plays[0][1]):
                    voids[int(s)].add(suit)
    return unseen, voids


def _beats_in_suit(unseen: list[int], faces: list[int], order: Any) -> bool:
    """Some card the seat cannot place (a pair of them, against a pair played) is higher in the suit
    than one of the play's cards."""
    return any(
        unseen[g] >= min(2, faces.count(f)) and order.suit[g] == order.suit[f] and order.rank[g] > order.rank[f]
        for f in faces
        for g in range(54)
    )


def test_every_reason_is_true_of_the_seats_view() -> None:
    """Issue 34: "nothing beats it" never while a seat still to play is known to lack the suit and may
    trump; every seat, card and void a reason names is one the seat can know from its view."""
    codes: dict[str, int] = {}
    for seed in range(11, 19):
        m = _advance(Match.new(preset("classic"), seed), "playing", 0)
        rng = random.Random(seed)
        while m.phase == "playing":
            seat = m.to_act()[0]
            view = m.view(seat)
            # random plays now and then make the unusual spots (leads into known voids) common
            a = choose(view, "random" if rng.random() < 0.3 else "basic", m.version)
            code, params = reason(view, a)
            codes[code] = codes.get(code, 0) + 1
            order = m.hand.order
            assert order is not None
            unseen, voids = _view_facts(view, order)
            played = [parse_card(c) for c in a.cards]
            trick = view.get("trick") or []
            suit = order.suit[parse_card(trick[0][1][0]) if trick else played[0]]  # the suit led
            later = [(seat + i) % 4 for i in range(1, 4 - len(trick))]
            ruffers = [s for s in later if suit != 4 and suit in voids[s] and 4 not in voids[s]]
            if code == "lead_master" or params.get("expect") == "none_higher":
                assert not ruffers, (seed, code, a, params)
                assert not _beats_in_suit(unseen, played, order), (seed, code, a)
            if code in ("lead_safe", "lead_low"):  # "can be beaten": a card still out is higher, or a seat may trump
                assert _beats_in_suit(unseen, played, order) or ruffers or suit == 4, (seed, code, a)
                # lead_safe "keeps your strong cards back": it names them; lead_low says there are none
                assert bool(params.get("keeps")) == (code == "lead_safe"), (seed, code, a, params)
            if params.get("expect") == "lacks":  # a guess about an opponent, said as one ("probably")
                assert params["expect_seat"] % 2 != seat % 2
            if code == "lead_top":
                assert params["seat"] in ruffers and params["suit"] == "SHDC"[suit]
                assert not _beats_in_suit(unseen, played, order)
            if params.get("expect") == "void":
                assert suit in voids[params["expect_seat"]] and params["expect_seat"] % 2 != seat % 2
                assert params["expect_suit"] == "SHDC"[suit]
            if params.get("expect") == "out":
                assert unseen[parse_card(params["expect_card"])] > 0
            for c in params.get("keeps", []):
                assert c in view["hand"]
            if code in ("takes", "partner_winning", "cannot_beat"):
                assert params["seat"] in [int(s) for s, _ in trick]
            m.apply(a)
    assert codes.get("lead_top", 0) > 0 and codes.get("lead_master", 0) > 10, codes
    assert codes.get("lead_safe", 0) > 10 and codes.get("lead_low", 0) > 10, codes
