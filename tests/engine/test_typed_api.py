"""The typed surface (issue 14): value types, one validation, a lazy and complete list, the text parser."""

from __future__ import annotations

import doctest
import itertools
import json
import random
from pathlib import Path

import pytest

from engine import (
    Bury,
    Chao,
    Close,
    Deal,
    Declare,
    IllegalAction,
    IllegalCode,
    Match,
    Next,
    Pass,
    Phase,
    Play,
    Revolt,
    TimeUp,
    action_from_json,
    preset,
)
from engine.actions import ACTION_TYPES
from engine.cards import card_points, is_trump_card, level_steps
from engine.hand import Hand
from engine.randplay import random_action
from engine.text import parse_typed_card, parse_typed_rank

DOC = Path(__file__).resolve().parents[2] / "docs" / "engine-api.md"


def test_the_api_page_example_runs() -> None:
    failed, tried = doctest.testfile(str(DOC), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert tried > 5 and failed == 0


@pytest.mark.parametrize(
    "action",
    [Deal(4), Deal(1), Declare(1, ("TS",)), Pass(2), Close(), Bury(0, ("2S",) * 8), Chao(3, ("SJ", "SJ")),
     Revolt(1), Play(0, ("AS", "AS")), Next(), TimeUp()],
)
def test_every_kind_round_trips_through_its_json(action: object) -> None:
    assert isinstance(action, ACTION_TYPES)
    text = json.dumps(action.to_json())
    assert action_from_json(json.loads(text)) == action
    assert json.loads(text)["t"] == action.t


@pytest.mark.parametrize(
    ("data", "code"),
    [
        ([], IllegalCode.BAD_ACTION),
        ({"t": "fly"}, IllegalCode.BAD_ACTION),
        ({"t": "pass"}, IllegalCode.BAD_ACTION),
        ({"t": "pass", "seat": True}, IllegalCode.BAD_ACTION),
        ({"t": "pass", "seat": 4}, IllegalCode.BAD_ACTION),
        ({"t": "deal", "n": 0}, IllegalCode.BAD_ACTION),
        ({"t": "deal", "n": "4"}, IllegalCode.BAD_ACTION),
        ({"t": "play", "seat": 0}, IllegalCode.BAD_CARD),
        ({"t": "play", "seat": 0, "cards": "AS"}, IllegalCode.BAD_CARD),
        ({"t": "play", "seat": 0, "cards": ["XX"]}, IllegalCode.BAD_CARD),
        ({"t": "play", "seat": 0, "cards": [7]}, IllegalCode.BAD_CARD),
    ],
)
def test_a_bad_shape_is_refused_with_its_code(data: object, code: IllegalCode) -> None:
    with pytest.raises(IllegalAction) as got:
        action_from_json(data)
    assert got.value.code == code
    assert isinstance(got.value, ValueError)


def test_card_names_are_made_canonical_and_other_keys_ignored() -> None:
    assert action_from_json({"t": "play", "seat": 1, "cards": ["10s", "sj"], "by": "x"}) == Play(1, ("TS", "SJ"))
    assert action_from_json({"t": "deal"}) == Deal(4)


def _to_playing(seed: int) -> Match:
    rng = random.Random(seed)
    m = Match.new(preset("classic"), seed)
    while m.phase != Phase.PLAYING:
        m.apply(random_action(m, rng))
    return m


def test_a_checked_action_is_applied_once_and_a_stale_one_is_validated_again() -> None:
    m = _to_playing(3)
    seat = m.to_act()[0]
    lead = next(a for a in m.legal_actions(seat) if isinstance(a, Play))
    checked = m.validate(lead)
    assert checked.version == m.version and checked.action == lead
    m.apply(checked)
    assert m.actions[-1] == lead
    with pytest.raises(IllegalAction) as got:
        m.apply(checked)  # stale: the same seat cannot lead again
    assert got.value.code == IllegalCode.NOT_YOUR_TURN
    other = Match.new(preset("classic"), 3)
    with pytest.raises(IllegalAction):
        other.apply(checked)  # bound to its own match: validated afresh here, and refused


def test_check_and_apply_agree_on_every_probe() -> None:
    rng = random.Random(9)
    m = Match.new(preset("chaodipi"), 9)
    probes = [Play(s, (c,)) for s in range(4) for c in ("AS", "2H", "BJ")] + [Pass(s) for s in range(4)]
    for _ in range(300):
        clone = Match.replay(m.rules, m.seed, m.actions)  # replayed from its log, once a step
        for p in probes:
            err = m.check(p)
            if err is not None:
                with pytest.raises(IllegalAction) as got:
                    clone.apply(p)
                assert got.value.code == err.code
                assert clone.version == m.version and clone.public_view() == m.public_view()  # refused: unchanged
        m.apply(random_action(m, rng))


def test_legal_actions_is_lazy_and_not_cut_off() -> None:
    m = _to_playing(5)
    it = m.legal_actions(m.to_act()[0])
    assert iter(it) is it
    first = list(itertools.islice(it, 2))
    assert all(m.check(a) is None for a in first)
    h = m.hand
    assert h.turn is not None
    m.apply(next(a for a in m.legal_actions(h.turn) if isinstance(a, Play) and len(a.cards) == 1))
    follower = m.to_act()[0]
    follows = list(m.legal_actions(follower))
    assert follows and all(m.check(a) is None for a in follows)
    assert len(follows) == len(set(follows))  # value types: equal when the same action


def test_every_follow_is_listed_past_the_old_cut_at_500() -> None:
    m = Match.new(preset("classic"), 1)
    counts = [[0] * 54 for _ in range(4)]
    counts[0][1] = counts[0][2] = 2  # 3S 3S 4S 4S: a tractor, the level is 2 and hearts are trump
    for rank in range(1, 13):
        counts[1][39 + rank] = 2  # seat 1: clubs only, so any four cards follow
    counts[1][27] = 1
    counts[2][40] = counts[3][41] = 4
    m.hand = Hand.at_trick(m.rules, 0, 1, [0, 2], counts, 0, [])
    m.apply(Play(0, ("3S", "3S", "4S", "4S")))
    follows = [a for a in m.legal_actions(1) if isinstance(a, Play)]
    distinct = {tuple(sorted(a.cards)) for a in follows}
    assert len(follows) == len(distinct) > 500
    assert all(m.check(a) is None for a in itertools.islice(follows, 0, None, 97))


def test_bury_choice_says_what_to_pick_from() -> None:
    rng = random.Random(2)
    m = Match.new(preset("classic"), 2)
    while m.phase != Phase.BURYING:
        m.apply(random_action(m, rng))
    seat = m.to_act()[0]
    assert all(m.bury_choice(s) is None for s in range(4) if s != seat)
    choice = m.bury_choice(seat)
    assert choice is not None and choice.count == 8 and len(choice.cards) == 33
    assert sorted(choice.cards) == sorted(m.view(seat)["hand"])
    picked = rng.sample(list(choice.cards), choice.count)
    assert m.check(choice.action(picked)) is None
    assert not any(isinstance(a, Bury) for a in m.legal_actions(seat))


@pytest.mark.parametrize(
    ("word", "card"),
    [("10h", "TH"), ("H10", "TH"), ("♥Q", "QH"), ("Q♥", "QH"), ("as", "AS"), ("TS", "TS"), ("大王", "BJ"),
     ("小王", "SJ"), ("sj", "SJ"), ("bj", "BJ"), (" 2c ", "2C")],
)
def test_typed_cards(word: str, card: str) -> None:
    assert parse_typed_card(word) == card


@pytest.mark.parametrize("word", ["", "1H", "ZZ", "AAA", "10", "♥"])
def test_typed_non_cards(word: str) -> None:
    assert parse_typed_card(word) is None


def test_rule_questions_at_the_string_boundary() -> None:
    assert [card_points(c) for c in ("5H", "TS", "KD", "AS", "BJ")] == [5, 10, 10, 0, 0]
    assert is_trump_card("SJ", None, None) and is_trump_card("7C", "7", None)
    assert is_trump_card("3H", "7", "H") and not is_trump_card("3H", "7", "NT")
    assert not is_trump_card("3H", "T", "S") and is_trump_card("TH", "10", "S")
    assert parse_typed_rank("10") == parse_typed_rank("t") == 8 and parse_typed_rank("1") is None
    assert level_steps("2", "7", climbed=True) == 5
    assert level_steps("K", "3", climbed=True) == 3 and level_steps("K", "3", climbed=False) == -10
