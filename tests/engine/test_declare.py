"""Declaring trump, per preset: who may reinforce and override what."""

from __future__ import annotations

import pytest

from engine import IllegalAction, preset
from engine.cards import parse_card
from engine.declare import Declaration, validate


def attempt(name: str, current: Declaration | None, seat: int, cards: list[str], open_hand: bool = False) -> Declaration:
    faces = [parse_card(c) for c in cards]
    held = 2 if current is not None and current.seat == seat and current.face == faces[0] else len(faces)
    return validate(preset(name), current, seat, faces, held, 0, open_hand)


def refused(name: str, current: Declaration | None, seat: int, cards: list[str], open_hand: bool = False) -> str:
    with pytest.raises(IllegalAction) as exc:
        attempt(name, current, seat, cards, open_hand)
    return exc.value.code


def test_classic_single_then_reinforce_then_final() -> None:
    d = attempt("classic", None, 0, ["2S"])
    d = attempt("classic", d, 0, ["2S"])
    assert d.count == 2
    assert refused("classic", d, 1, ["2H", "2H"]) == "cannot_override"


def test_classic_refuses_jokers_and_off_level_cards() -> None:
    assert refused("classic", None, 0, ["SJ", "SJ"]) == "not_level_card"
    assert refused("classic", None, 0, ["3S"]) == "not_level_card"
    d = attempt("classic", None, 0, ["2S"])
    assert refused("classic", d, 1, ["SJ", "SJ"]) == "cannot_override"
    assert refused("classic", d, 0, ["2H", "2H"]) == "cannot_override"  # no overriding oneself


def test_super_ladder() -> None:
    d = attempt("super", None, 0, ["2H"])
    d = attempt("super", d, 1, ["2D", "2D"])  # any pair beats a single
    c = attempt("super", d, 2, ["2C", "2C"])  # ♣ > ♦
    assert refused("super", c, 3, ["2D", "2D"]) == "cannot_override"
    d2 = attempt("super", c, 3, ["2S", "2S"])
    assert d2.suit == 0
    assert refused("super", d2, 0, ["2H", "2H"]) == "cannot_override"
    d3 = attempt("super", d2, 0, ["SJ", "SJ"])
    assert d3.suit == 4
    assert attempt("super", d3, 1, ["BJ", "BJ"]).face == parse_card("BJ")


def test_super_reinforced_pair_is_insured() -> None:
    d = attempt("super", None, 0, ["2H"])
    d = attempt("super", d, 0, ["2H"])  # 上保险
    assert refused("super", d, 1, ["2C", "2C"]) == "cannot_override"
    assert attempt("super", d, 1, ["2S", "2S"]).suit == 0


def test_chaodipi_pairs_override_pairs_but_not_jokers_in_the_first_hand() -> None:
    d = attempt("chaodipi", None, 0, ["2H"], open_hand=True)
    d = attempt("chaodipi", d, 1, ["2S", "2S"], open_hand=True)
    d = attempt("chaodipi", d, 0, ["2H", "2H"], open_hand=True)  # the first declarer 炒s back after an override
    assert d.suit == 1 and d.seat == 0
    assert refused("chaodipi", d, 1, ["SJ", "SJ"], open_hand=True) == "cannot_override"
    j = attempt("chaodipi", d, 1, ["SJ", "SJ"])
    assert refused("chaodipi", j, 2, ["2C", "2C"]) == "cannot_override"
    assert attempt("chaodipi", j, 2, ["BJ", "BJ"]).face == parse_card("BJ")
