"""Whole-hand flow: declaring, the kitty, 炒底, revolution, time limits, refusals."""

from __future__ import annotations

import itertools
import random
from typing import Any

import pytest

from engine import IllegalAction, Match, RulesError, preset
from engine.cards import parse_card
from engine.hand import Hand
from engine.randplay import play_random_hand, random_action
from engine.rules import Rules


def deal_all(m: Match) -> None:
    while m.phase == "dealing":
        m.apply({"t": "deal", "n": 4})


def level_card_holder(m: Match, rank: str = "2") -> tuple[int, str]:
    for seat in range(4):
        for card in m.view(seat)["hand"]:
            if card[0] == rank and card not in ("SJ", "BJ"):
                return seat, card
    raise AssertionError("no level card dealt")


def test_first_declarer_deals_and_picks_up_the_kitty() -> None:
    m = Match.new(preset("classic"), 11)
    deal_all(m)
    seat, card = level_card_holder(m)
    m.apply({"t": "declare", "seat": seat, "cards": [card]})
    m.apply({"t": "close"})
    assert m.phase == "burying"
    v = m.view(seat)
    assert v["dealer"] == seat and v["trump"] == card[1]
    assert len(v["hand"]) == 33 and len(v["kitty"]) == 8
    for other in range(4):
        if other != seat:
            assert "kitty" not in m.view(other)
    with pytest.raises(IllegalAction) as exc:
        m.apply({"t": "bury", "seat": seat, "cards": v["hand"][:7]})
    assert exc.value.code == "bury_count"
    with pytest.raises(IllegalAction) as exc:
        m.apply({"t": "bury", "seat": (seat + 1) % 4, "cards": v["hand"][:8]})
    assert exc.value.code == "not_your_turn"
    m.apply({"t": "bury", "seat": seat, "cards": v["hand"][-8:]})
    assert m.phase == "playing" and m.to_act() == [seat]
    assert "kitty" not in m.view(seat)


def test_nobody_declares_classic_flips_the_kitty() -> None:
    m = Match.new(preset("classic"), 3)
    deal_all(m)
    kitty = list(m.hand.kitty)
    m.apply({"t": "close"})
    h = m.hand
    assert h.trump_from_kitty and m.phase == "burying"
    levels = [f for f in kitty if f < 52 and f % 13 == 0]
    if levels:
        assert h.trump == levels[0] // 13
    else:
        plain = [f for f in kitty if f < 52]
        assert h.trump == min(plain, key=lambda f: f % 13) // 13


def test_super_takes_trump_from_the_third_kitty_card() -> None:
    m = Match.new(preset("super"), 8)
    deal_all(m)
    third = m.hand.kitty[2]
    m.apply({"t": "close"})
    assert m.hand.trump == (4 if third >= 52 else third // 13)


def test_competition_forces_the_dealer_side_to_declare() -> None:
    rng = random.Random(4)
    m = Match.new(preset("competition"), 4)
    play_random_hand(m, rng)
    m.apply({"t": "next"})
    deal_all(m)
    m.apply({"t": "close"})
    h = m.hand
    if m.phase == "declaring":
        assert h.forced
        assert set(m.to_act()) <= {h.dealer, (h.dealer + 2) % 4}
        seat = m.to_act()[0]
        opts = [a for a in m.legal_actions(seat) if a.t == "declare"]
        if not opts:
            seat = m.to_act()[1]
            opts = [a for a in m.legal_actions(seat) if a.t == "declare"]
        m.apply(opts[0])
        assert m.phase == "burying"
    else:
        assert m.phase in ("hand_over", "burying")


def test_chaodipi_chao_rebids_and_reburies() -> None:
    for seed in range(60):
        rng = random.Random(seed)
        m = Match.new(preset("chaodipi"), seed)
        play_random_hand(m, rng)
        if m.phase == "match_over":
            continue
        m.apply({"t": "next"})
        deal_all(m)
        h = m.hand
        singles = [
            a for s in range(4) for a in m.legal_actions(s) if a.t == "declare" and len(list(a.cards)) == 1
        ]
        if not singles:
            continue
        m.apply(singles[0])
        m.apply({"t": "close"})
        burier = h.burier
        assert burier is not None
        m.apply(random_action(m, rng))  # bury
        assert m.phase == "chao"
        seat = h.chao_turn
        assert seat is not None
        chaos = [a for a in m.legal_actions(seat) if a.t == "chao"]
        if not chaos:
            continue
        dealer = h.dealer
        m.apply(chaos[0])
        assert m.phase == "burying" and h.burier == seat and h.dealer == dealer
        assert len(m.view(seat)["kitty"]) == 8
        return
    pytest.skip("no seed gave a chance to 炒")


def test_revolution_ends_the_hand_without_level_change() -> None:
    for seed in range(200):
        rng = random.Random(seed)
        m = Match.new(preset("classic"), seed)
        while m.phase not in ("burying",):
            m.apply(random_action(m, rng))
        h = m.hand
        rebels = [s for s in range(4) if h.can_revolt(s)]
        if not rebels:
            continue
        before = list(m.levels)
        events = m.apply({"t": "revolt", "seat": rebels[0]})
        assert any(e["e"] == "revolution" for e in events)
        assert m.phase == "hand_over" and m.levels == before
        m.apply({"t": "next"})
        assert m.hand.open and m.hand.dealer is None
        return
    pytest.fail("no seed dealt a defender 15 points or fewer")


def test_dealer_cannot_revolt() -> None:
    rng = random.Random(1)
    m = Match.new(preset("classic"), 1)
    while m.phase != "burying":
        m.apply(random_action(m, rng))
    dealer = m.hand.dealer
    assert dealer is not None
    assert m.check({"t": "revolt", "seat": dealer}) is not None


def test_time_limit_higher_level_wins_after_the_hand() -> None:
    rng = random.Random(2)
    m = Match.new(preset("classic", time_limit_minutes=60), 2)
    m.apply({"t": "time_up"})
    play_random_hand(m, rng)
    assert m.phase == "match_over"
    assert m.result is not None and m.result["reason"] == "time_limit"
    lv = m.levels
    if lv[0] != lv[1]:
        assert m.result["winner_team"] == (0 if lv[0] > lv[1] else 1)


def test_time_limit_both_to_ace_plays_on() -> None:
    rng = random.Random(3)
    m = Match.new(preset("competition"), 3)
    play_random_hand(m, rng)
    m.apply({"t": "time_up"})
    assert m.phase == "hand_over" and m.levels == [12, 12]
    m.apply({"t": "next"})
    assert m.hand.level == 12


def test_refusals_have_codes_and_change_nothing() -> None:
    rng = random.Random(9)
    m = Match.new(preset("classic"), 9)
    while m.phase != "playing":
        m.apply(random_action(m, rng))
    before = (m.version, m.public_view())
    turn = m.to_act()[0]
    bad: list[tuple[dict[str, Any], str]] = [
        ({"t": "play", "seat": (turn + 1) % 4, "cards": m.view((turn + 1) % 4)["hand"][:1]}, "not_your_turn"),
        ({"t": "play", "seat": turn, "cards": ["XX"]}, "bad_card"),
        ({"t": "play", "seat": turn, "cards": []}, "wrong_count"),
        ({"t": "bury", "seat": turn, "cards": []}, "wrong_phase"),
        ({"t": "dance"}, "bad_action"),
        ({"t": "play", "seat": 7, "cards": ["AS"]}, "bad_action"),
        ({"t": "play", "seat": turn, "cards": "AS"}, "bad_card"),
    ]
    for action, code in bad:
        err = m.check(action)
        assert err is not None and err.code == code, (action, err)
        with pytest.raises(IllegalAction):
            m.apply(action)
    assert (m.version, m.public_view()) == before


def test_every_listed_action_is_accepted() -> None:
    rng = random.Random(12)
    for name in ("classic", "chaodipi", "super", "competition"):
        m = Match.new(preset(name), 12)
        for _ in range(400):
            if m.phase == "match_over":
                break
            for seat in range(4):
                for a in itertools.islice(m.legal_actions(seat), 40):
                    assert m.check(a) is None, (name, a)
            auto = [m.auto_action(s) for s in m.to_act()]
            for a in auto:
                if a is not None:
                    assert m.check(a) is None, (name, a)
            m.apply(random_action(m, rng))


def test_legal_follows_match_the_validator() -> None:
    from engine.play import check_follow, follow_options

    rng = random.Random(5)
    checked = 0
    m = Match.new(preset("classic"), 5)
    while checked < 300:
        if m.phase == "match_over":
            m = Match.new(preset("classic"), rng.randrange(10**6))
        h = m.hand
        if m.phase == "playing" and h.trick and h.lead is not None and len(h.lead.faces) <= 2:
            assert h.turn is not None and h.order is not None
            opts = set(follow_options(h.hands[h.turn], h.lead, h.order, limit=10_000))
            cards = [f for f in range(54) for _ in range(h.hands[h.turn][f])]
            import itertools

            for combo in set(itertools.combinations(sorted(cards), len(h.lead.faces))):
                try:
                    check_follow(combo, h.hands[h.turn], h.lead, h.order)
                    ok = True
                except IllegalAction:
                    ok = False
                assert ok == (combo in opts)
            checked += 1
        m.apply(random_action(m, rng))


def test_rules_round_trip_and_overrides() -> None:
    r = preset("classic", target="5", must_play="2,5", kitty_scheme="power2", hollow_pairs="yes")
    assert r.target == 3 and r.must_play == (0, 3) and r.hollow_pairs
    assert Rules.from_dict(r.to_dict()) == r
    for name in ("classic", "competition", "chaodipi", "super", "duplicate"):
        assert Rules.from_dict(preset(name).to_dict()) == preset(name)
    with pytest.raises(RulesError):
        preset("classic", nonsense=1)
    with pytest.raises(RulesError):
        preset("nope")
    with pytest.raises(RulesError):
        preset("classic", kitty_scheme="x8")


def test_low_target_ends_a_match() -> None:
    rng = random.Random(7)
    m = Match.new(preset("classic", target="3", must_play="2"), 7)
    for _ in range(60):
        play_random_hand(m, rng)
        if m.phase == "match_over":
            break
        m.apply({"t": "next"})
    assert m.phase == "match_over" and m.result is not None
    assert m.result["reason"] == "target"
    assert m.system_action() is None and m.to_act() == []


def test_hollow_and_wrap_options_make_tractors() -> None:
    from engine.combos import decompose
    from engine.order import order_for

    cards = [parse_card(c) for c in ("5S", "5S", "3S", "3S")]
    assert len(decompose(cards, order_for(8, 1, preset("classic")))) == 2
    assert len(decompose(cards, order_for(8, 1, preset("classic", hollow_pairs=True)))) == 1
    wrap = [parse_card(c) for c in ("AS", "AS", "2S", "2S")]
    assert len(decompose(wrap, order_for(8, 1, preset("classic", wrap_ace_two=True)))) == 1
    assert len(decompose(wrap, order_for(8, 1, preset("classic")))) == 2


def test_hand_at_trick_is_a_pure_position() -> None:
    from engine.cards import counts_of

    hands = [counts_of([parse_card(c)]) for c in ("AS", "3S", "4S", "7S")]
    h = Hand.at_trick(preset("classic"), 8, 1, [0, 2], hands, 0, [], 0)
    events = []
    for seat, card in enumerate(("AS", "3S", "4S", "7S")):
        events += h.play(seat, [parse_card(card)])
    assert events[0] == {"e": "trick", "winner": 0, "points": 0}


def test_rules_to_dict_is_worked_out_once_and_each_caller_gets_its_own_copy() -> None:
    r = preset("competition")
    first = r.to_dict()
    expected = {**first, "must_play": list(first["must_play"])}
    first["must_play"].append("Q")
    first["name"] = "changed"
    again = r.to_dict()
    assert again == expected
    assert Rules.from_dict(again) == r


def test_views_named_once_still_give_each_caller_its_own_lists() -> None:
    """A finished trick's card names are kept by the hand (engine/shown.py); a view changed by the
    caller it was handed to changes no later view, public or seat."""
    import copy

    m = Match.new(preset("classic"), 3)
    rng = random.Random(3)
    while m.phase != "playing" or len(m.hand.tricks) < 3 or m.hand.trick:
        m.apply(random_action(m, rng, 0.3))
    pub, seat = m.public_view(), m.view(0)
    want_pub, want_seat = copy.deepcopy(pub), copy.deepcopy(seat)
    for v in (pub, seat):
        for t in v["tricks"]:
            t["plays"][0][1].append("BJ")
            t["plays"].clear()
        v["last_trick"][0][1].clear()
        v["hand_counts"][0] = 99
    seat["hand"].clear()
    assert m.public_view() == want_pub
    assert m.view(0) == want_seat
    assert m.view(0, m.public_view()) == want_seat
