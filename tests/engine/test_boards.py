"""Boards (document 002): the same fixed deal at any number of tables, one hand, trump as 2.6 allows."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from engine import Match, RulesError, preset
from engine.boards import (
    BoardSpec,
    board_cards,
    board_rules,
    dealer_of,
    draw_trump,
    parse_board,
    preset_level,
)
from engine.cards import FULL_DECK, NO_TRUMP, RANKS, SMALL_JOKER, cards_str, parse_rank
from engine.randplay import play_random_hand
from engine.rules import Rules


def test_board_numbers_follow_002() -> None:
    # 4.1: N, W, S, E deal boards 1-4 and round again; 2.6 B: board 1 at A, 2 at 2, 3 at 3, ...
    assert [dealer_of(n) for n in range(1, 9)] == [0, 1, 2, 3, 0, 1, 2, 3]
    assert [RANKS[preset_level(n)] for n in range(1, 6)] == ["A", "2", "3", "4", "5"]
    assert RANKS[preset_level(13)] == "K" and RANKS[preset_level(14)] == "A" and RANKS[preset_level(16)] == "3"


def test_spec_round_trips_and_refuses_nonsense() -> None:
    for spec in (BoardSpec(0, 12, 1), BoardSpec(3, 0, None), BoardSpec(2, 5, NO_TRUMP)):
        assert parse_board(spec.to_str()) == spec
    assert BoardSpec(0, 12, 1).to_str() == "0/A/H"
    for bad in ("", "4/A/H", "0/Z/H", "0/A/X", "0/A", "0/A/H/1"):
        with pytest.raises(RulesError):
            parse_board(bad)


def test_cards_are_the_whole_deck_dealer_first() -> None:
    cards = board_cards(77, dealer=3)
    assert [len(h) for h in cards.hands] == [25] * 4 and len(cards.kitty) == 8
    assert Counter(f for h in cards.hands for f in h) + Counter(cards.kitty) == Counter(FULL_DECK)
    again = board_cards(77, dealer=3)
    assert again == cards
    other = board_cards(78, dealer=3)
    assert other.hands != cards.hands


def test_marked_trump_starts_at_the_bury_with_the_fixed_cards() -> None:
    spec = BoardSpec(dealer=2, level=parse_rank("A"), trump=1)
    rules = board_rules(preset("classic"), spec)
    m = Match.new(rules, 4242)
    assert m.phase == "burying"
    cards = board_cards(4242, dealer=2)
    v = m.view(2)
    assert v["dealer"] == 2 and v["trump"] == "H" and v["level"] == "A"
    assert Counter(v["hand"]) == Counter(cards_str(cards.hands[2] + cards.kitty))
    for seat in (0, 1, 3):
        assert Counter(m.view(seat)["hand"]) == Counter(cards_str(cards.hands[seat]))


def test_a_board_is_one_hand_and_replays() -> None:
    rules = board_rules(preset("classic"), BoardSpec(0, 12, NO_TRUMP))
    m = Match.new(rules, 9)
    play_random_hand(m, random.Random(1))
    assert m.is_terminal() and m.result is not None and m.result["reason"] == "board"
    assert m.hand_no == 1 and m.to_act() == []
    summary = m.history[0]
    winner = m.result["winner_team"]
    assert (winner == summary["declarer_team"]) == (summary["winner"] == "declarers")
    again = Match.replay(Rules.from_dict(rules.to_dict()), 9, m.actions_json())
    assert again.result == m.result and again.history == m.history


def test_two_tables_same_board_same_cards_different_play() -> None:
    rules = board_rules(preset("classic"), BoardSpec(1, 0, 0))
    a, b = Match.new(rules, 5), Match.new(rules, 5)
    for seat in range(4):
        assert a.view(seat)["hand"] == b.view(seat)["hand"]
    play_random_hand(a, random.Random(1))
    play_random_hand(b, random.Random(2))
    assert a.actions_json() != b.actions_json()


def test_bid_board_keeps_its_dealer_whoever_wins_the_bid() -> None:
    # 002 2.6 B: South shows ♣A, West overrides with ♥A pair; North (the board's dealer) plays ♥ at A.
    rules = board_rules(preset("classic"), BoardSpec(dealer=0, level=parse_rank("A"), trump=None))
    for seed in range(1, 60):
        m = Match.new(rules, seed)
        assert m.phase == "dealing"
        play_random_hand(m, random.Random(seed), declare_rate=0.9)
        h = m.history[0]
        assert h["dealer"] == 0
        if m.hand.declaration is not None and m.hand.declaration.seat != 0:
            break
    else:
        raise AssertionError("no board was won in the bidding by another seat")
    assert m.result is not None and m.result["reason"] == "board"


def test_board_rules_turn_off_what_would_redeal() -> None:
    comp = board_rules(preset("competition"), BoardSpec(0, 0, None))
    assert not comp.revolution and not comp.chao and comp.no_declaration == "flip_kitty_level"
    assert comp.time_limit_minutes is None
    with pytest.raises(RulesError):
        Match.new(Rules(board="0/A/H"), 1)  # revolution still on
    m = Match.new(board_rules(preset("chaodipi"), BoardSpec(1, 3, 2)), 3)
    assert m.phase == "burying" and m.view(1)["trump"] == "D"


def test_drawn_card_names_suit_and_level_a_joker_no_trump() -> None:
    seen_nt = seen_suit = False
    for seed in range(400):
        d = draw_trump(seed)
        assert draw_trump(seed) == d
        deck = Counter(FULL_DECK)
        assert all(deck[f] for f in d.cards)
        last = d.cards[-1]
        assert last < SMALL_JOKER and d.level == last % 13
        if len(d.cards) > 1:
            assert all(f >= SMALL_JOKER for f in d.cards[:-1]) and d.trump == NO_TRUMP
            seen_nt = True
        else:
            assert d.trump == last // 13
            seen_suit = True
    assert seen_nt and seen_suit


# ----- the kitty of a board: 002 第四条 3 under the duplicate preset, every board's default -----

KITTY_25 = ["KS", "TD", "5C", "3S", "4S", "6S", "7S", "9S"]  # K 10 + 10 + 5 = 25 points


def _last_trick(rules: Rules, hands: list[list[str]], plays: list[tuple[int, list[str]]],
                kitty: list[str] = KITTY_25) -> tuple[int, int]:
    """Play the last trick of a hand (trump ♥ at 2, N-S declaring, defenders have 0 so far):
    the defenders' final points and the kitty multiplier."""
    from engine.cards import counts_of, parse_card
    from engine.hand import Hand

    hand = Hand.at_trick(rules, 0, 1, [0, 2], [counts_of([parse_card(c) for c in h]) for h in hands],
                         plays[0][0], [parse_card(c) for c in kitty])
    for seat, cards in plays:
        hand.play(seat, [parse_card(c) for c in cards])
    assert hand.result is not None
    return hand.result.defender_points, hand.result.kitty_multiplier


def test_a_board_of_the_duplicate_preset_digs_the_kitty_as_002_says() -> None:
    rules = board_rules(preset("duplicate"), BoardSpec(0, 0, 1))
    assert rules.kitty_scheme == "pair4"
    # the example: the defenders (E) take the last trick with a pair, 25 kitty points: 25 × 4 = 100
    pair = [["3C", "3C"], ["AS", "AS"], ["4C", "4C"], ["6C", "6C"]]
    assert _last_trick(rules, pair, [(1, ["AS", "AS"]), (2, ["4C", "4C"]), (3, ["6C", "6C"]),
                                     (0, ["3C", "3C"])]) == (100, 4)
    # a single: × 2
    single = [["3C"], ["AS"], ["4C"], ["6C"]]
    assert _last_trick(rules, single, [(1, ["AS"]), (2, ["4C"]), (3, ["6C"]), (0, ["3C"])]) == (50, 2)
    # a tractor (姐妹对), of two pairs or of three: × 4, not more (002 stops at × 4)
    two = [["3C", "3C", "4C", "4C"], ["QS", "QS", "KS", "KS"], ["6C", "6C", "7C", "7C"],
           ["8C", "8C", "9C", "9C"]]
    assert _last_trick(rules, two, [(1, ["QS", "QS", "KS", "KS"]), (2, ["6C", "6C", "7C", "7C"]),
                                    (3, ["8C", "8C", "9C", "9C"]), (0, ["3C", "3C", "4C", "4C"])],
                       kitty=["5C", "5C", "TD", "3S", "4S", "6S", "7S", "9S"]) == (20 + 20 * 4, 4)
    three = [["3C", "3C", "4C", "4C", "5D", "5D"], ["JS", "JS", "QS", "QS", "KS", "KS"],
             ["6C", "6C", "7C", "7C", "8D", "8D"], ["8C", "8C", "9C", "9C", "9D", "9D"]]
    got = _last_trick(rules, three, [(1, ["JS", "JS", "QS", "QS", "KS", "KS"]),
                                     (2, ["6C", "6C", "7C", "7C", "8D", "8D"]),
                                     (3, ["8C", "8C", "9C", "9C", "9D", "9D"]),
                                     (0, ["3C", "3C", "4C", "4C", "5D", "5D"])],
                      kitty=["5C", "5C", "TD", "3S", "4S", "6S", "7S", "9S"])
    assert got == (20 + 10 + 20 * 4, 4)  # the two Ks and two 5s in the trick, then the kitty's 20 × 4
    # "大王加一对不能成为双扣底": the big joker thrown with a pair digs × 2
    throw = [["3C", "4C", "6C"], ["BJ", "SJ", "SJ"], ["7C", "8C", "9C"], ["2H", "3H", "4H"]]
    assert _last_trick(rules, throw, [(1, ["BJ", "SJ", "SJ"]), (2, ["7C", "8C", "9C"]), (3, ["2H", "3H", "4H"]),
                                      (0, ["3C", "4C", "6C"])]) == (50, 2)
    # the declarers take the last trick with a pair: the kitty is theirs, nothing added
    assert _last_trick(rules, [["AS", "AS"], ["3C", "3C"], ["4C", "4C"], ["6C", "6C"]],
                       [(0, ["AS", "AS"]), (1, ["3C", "3C"]), (2, ["4C", "4C"]), (3, ["6C", "6C"])]) == (0, 0)


def test_a_board_keeps_the_kitty_of_the_preset_its_organiser_chose() -> None:
    """`board new classic`: the organiser asked for classic's rules, its ×2 flat kitty included (every
    table of the board plays them, so the comparison stays fair)."""
    rules = board_rules(preset("classic"), BoardSpec(0, 0, 1))
    pair = [["3C", "3C"], ["AS", "AS"], ["4C", "4C"], ["6C", "6C"]]
    assert _last_trick(rules, pair, [(1, ["AS", "AS"]), (2, ["4C", "4C"]), (3, ["6C", "6C"]),
                                     (0, ["3C", "3C"])]) == (50, 2)
