"""The `duplicate` preset against cases worked out by hand from document 002's own text (issue 33, item 2).

Each test quotes the sentence it checks. 002 第三条 2 says which pairs make a tractor (姐妹对), 第四条 3
how the kitty is multiplied, 第四条 4 the 光头 rule, and 第六条 1 what a card shown against the rules
costs; the preset is every board's, a team match's and a pairs event's unless the organiser picks
another (tests/duplicate/test_events.py checks that default through the host).
"""

from __future__ import annotations

import pytest

from bot.duplicate.scoring import board_swing
from engine import preset
from engine.boards import BoardSpec, board_rules, declarers_score
from engine.cards import NO_TRUMP, counts_of, parse_card, parse_rank, parse_trump
from engine.combos import decompose
from engine.hand import Hand
from engine.order import order_for
from engine.rules import Rules
from engine.scoring import throw_penalty

DUP = preset("duplicate")
TEN = parse_rank("10")


def _units(cards: str, trump: str, rules: Rules = DUP, level: int = TEN) -> list[int]:
    """How many pairs each part of a play holds (2 or more: a tractor), largest first."""
    order = order_for(level, NO_TRUMP if trump == "NT" else parse_trump(trump), rules)
    return [u.pairs for u in decompose([parse_card(c) for c in cards.split()], order)]


# ----- 第三条 2: "姐妹对"组合必须是同一花色、阶数相邻的对子（当间隔阶数为将牌时可以）。
#       对大王对小王"姐妹对"小王不能与主将，主将不能与副主将，副主将不能与其它将牌配成"姐妹对"。
#       最大的A不能与最小的2循环配对。 (level 10, ♥ trump)

@pytest.mark.parametrize(("cards", "trump", "pairs", "said"), [
    ("BJ BJ SJ SJ", "H", [2], "大王对小王: a tractor"),
    ("SJ SJ TH TH", "H", [1, 1], "小王不能与主将"),
    ("TH TH TS TS", "H", [1, 1], "主将不能与副主将"),
    ("TS TS AH AH", "H", [1, 1], "副主将不能与其它将牌 (the trump A)"),
    ("JC JC 9C 9C", "H", [2], "当间隔阶数为将牌时可以: J and 9 around the level 10"),
    ("AC AC 2C 2C", "H", [1, 1], "最大的A不能与最小的2循环配对"),
    ("QC QC KC KC", "H", [2], "同一花色、阶数相邻的对子"),
    ("SJ SJ TS TS", "NT", [1, 1], "no trump: 小王 and the level cards (副主将) make no tractor"),
])
def test_tractors_are_those_of_002(cards: str, trump: str, pairs: list[int], said: str) -> None:
    assert _units(cards, trump) == pairs, said


def test_classic_allows_the_chains_002_forbids() -> None:
    """The contrast that makes the test above mean something: 000 (classic) chains the jokers, the level
    cards and the trump A; 002 does not."""
    classic = preset("classic")
    assert _units("SJ SJ TH TH", "H", classic) == [2]
    assert _units("TH TH TS TS", "H", classic) == [2]
    assert _units("TS TS AH AH", "H", classic) == [2]


# ----- 第四条 3: 当防守方得到底牌（扣底）时，底牌分数之和乘2，若防守方用"对子"底牌时，底牌的分数之和乘4.
#       （对子、姐妹对必须是2张或4张，大王加一对不能成为双扣底)

KITTY_25 = ["KS", "TD", "5C", "3S", "4S", "6S", "7S", "9S"]  # K 10 + 10 + 5 = 25 points


def _last_trick(rules: Rules, plays: list[tuple[int, list[str]]], kitty: list[str] = KITTY_25) -> tuple[int, int]:
    """The last trick of a hand at level 2, ♥ trump, N-S (seats 0 and 2) declaring and the defenders on
    0 so far: the defenders' points at the end, and the kitty's multiplier."""
    hands: list[list[str]] = [[] for _ in range(4)]
    for seat, cards in plays:
        hands[seat] = cards
    hand = Hand.at_trick(rules, 0, 1, [0, 2], [counts_of([parse_card(c) for c in h]) for h in hands],
                         plays[0][0], [parse_card(c) for c in kitty])
    for seat, cards in plays:
        hand.play(seat, [parse_card(c) for c in cards])
    assert hand.result is not None
    return hand.result.defender_points, hand.result.kitty_multiplier


def test_the_kitty_is_dug_as_002_says() -> None:
    # East (a defender) wins the last trick with ♠A: a single, 25 × 2 = 50
    assert _last_trick(DUP, [(1, ["AS"]), (2, ["4C"]), (3, ["6C"]), (0, ["3C"])]) == (50, 2)
    # with the pair ♠A♠A: 对子, 25 × 4 = 100 (the example; classic's flat ×2 gives 50)
    pair = [(1, ["AS", "AS"]), (2, ["4C", "4C"]), (3, ["6C", "6C"]), (0, ["3C", "3C"])]
    assert _last_trick(DUP, pair) == (100, 4)
    assert _last_trick(preset("classic"), pair) == (50, 2)
    # a 姐妹对 of 4 cards (♠QQKK): the trick's own two Ks (20) + the kitty's 20 × 4 = 100
    tractor = [(1, ["QS", "QS", "KS", "KS"]), (2, ["6C", "6C", "7C", "7C"]), (3, ["8C", "8C", "9C", "9C"]),
               (0, ["3C", "3C", "4C", "4C"])]
    assert _last_trick(DUP, tractor, kitty=["5C", "5C", "TD", "3S", "4S", "6S", "7S", "9S"]) == (100, 4)
    # 大王加一对 (大王 thrown with the 小王 pair): not 双扣底, 25 × 2 = 50
    throw = [(1, ["BJ", "SJ", "SJ"]), (2, ["7C", "8C", "9C"]), (3, ["2H", "3H", "4H"]), (0, ["3C", "4C", "6C"])]
    assert _last_trick(DUP, throw) == (50, 2)
    # 最后一轮牌的最大者拥有底牌中的所有分数: the declarers win it, the kitty stays theirs
    assert _last_trick(DUP, [(0, ["AS", "AS"]), (1, ["3C", "3C"]), (2, ["4C", "4C"]), (3, ["6C", "6C"])]) == (0, 0)


def test_every_board_is_of_the_duplicate_preset_unless_chosen_otherwise() -> None:
    from bot.duplicate.tables import BOARD_PRESET, make_board

    assert BOARD_PRESET == "duplicate"
    board = make_board(7, 1, "marked")
    assert board.rules["name"] == "duplicate" and board.rules["kitty_scheme"] == "pair4"
    rules = board_rules(DUP, BoardSpec(0, TEN, 1))
    assert (rules.kitty_scheme, rules.revolution, rules.chao) == ("pair4", False, False)


# ----- 第四条 4: 当防守方实得分为0分（光头）时，庄家按净得分200计算。 and the 换算表

def test_a_swing_worked_out_from_002() -> None:
    # The case: in the open room the home team (N-S) declares and East-West dig a pair over
    # 25 kitty points, taking 30 in tricks + 100 = 130; in the closed room the visitors (N-S there)
    # declare and the home team, defending, takes 30 + 50 (a single dug) = 80.
    # Home: -130 at the open table, and the visitors score -80 at the closed one: net -130 - (-80) = -50,
    # 4 match points (40~50) to the visitors. Had the pair dug only ×2 (80 at both tables): 0.
    swing = board_swing(0, 130, 80)
    assert (swing.net, swing.home, swing.visitors) == (-50, 0, 4)
    assert board_swing(0, 80, 80).net == 0
    # 光头: the home team declares and the visitors take nothing (+200); in the closed room the
    # visitors declare and the home team takes 150 (-150 to the visitors): net 200 - (-150) = 350, 10.
    assert declarers_score(0) == 200 and declarers_score(150) == -150
    swing = board_swing(0, 0, 150)
    assert (swing.net, swing.home, swing.visitors) == (350, 10, 0)


# ----- 第六条 1: 判罚以张为单位，每张牌罚10分。 A failed throw (撤牌) shows the cards it takes back.

def test_a_failed_throw_costs_10_a_card_taken_back() -> None:
    assert DUP.throw_penalty == "per_card_failed" and DUP.throw_penalty_points == 10
    assert throw_penalty(DUP, attempted=3, played=1) == 20  # ♠AKQ thrown, ♠Q played: ♠A ♠K back, 2 × 10
    assert throw_penalty(DUP, attempted=1, played=1) == 0  # nothing taken back, nothing shown against the rules
