"""The button codec: every button kind packs and parses back to itself, and anything else is refused."""

from __future__ import annotations

import pytest

from bot.intents import codec
from bot.intents.types import (
    BurySelection,
    ButtonAct,
    Chao,
    ClearSelection,
    Declare,
    Drawn,
    LobbyAddBot,
    LobbyJoin,
    LobbyLeave,
    LobbyStart,
    Page,
    Pass,
    PlayCards,
    PlaySelection,
    Revolt,
    ShowHand,
    TakeSeatBack,
    Toggle,
)

EVERY_KIND: list[ButtonAct] = [
    LobbyJoin(), LobbyLeave(), LobbyStart(), LobbyAddBot(), Toggle(0), Toggle(37), ClearSelection(),
    PlaySelection(), PlayCards(("BJ",)), PlayCards(("AS", "AS", "KS", "KS")), Declare(("2H",)),
    Declare(("TS", "TS")), Chao(("SJ", "SJ")), Pass(), BurySelection(), Revolt(), ShowHand(), Page(2),
    TakeSeatBack(),
]


@pytest.mark.parametrize("act", EVERY_KIND)
def test_round_trip(act: ButtonAct) -> None:
    drawn = Drawn(123456789, 4321)
    text = codec.pack(drawn, act)
    assert len(text.encode()) <= codec.MAX_BYTES
    assert codec.parse(text) == (drawn, act)


def test_every_card_has_one_character_and_forty_fit() -> None:
    cards = tuple(codec._CARD_NAMES) [:40]
    text = codec.pack(Drawn(36**6, 36**4), PlayCards(cards))
    assert codec.parse(text)[1] == PlayCards(cards)
    assert len(set(codec._CARD_CHAR.values())) == 54


def test_pack_refuses_what_no_button_can_hold() -> None:
    with pytest.raises(ValueError):
        codec.pack(Drawn(1, 1), PlayCards(("ZZ",)))
    with pytest.raises(ValueError):
        codec.pack(Drawn(1, 1), PlayCards(("AS",) * 41))
    with pytest.raises(ValueError):
        codec.pack(Drawn(-1, 1), Pass())


@pytest.mark.parametrize("text", [
    None, 5, "", "hello", "2.1.1.x..zz", "2.1.1.q..00", "x" * 65, "2.1.1.t.!.00", "3.1.1.x..00",
])
def test_garbage_is_refused(text: object) -> None:
    with pytest.raises(codec.BadToken):
        codec.parse(text)


def test_tampering_breaks_the_checksum() -> None:
    text = codec.pack(Drawn(7, 9), Toggle(3))
    forged = text.replace(".t.3.", ".t.4.")
    with pytest.raises(codec.BadToken):
        codec.parse(forged)


def test_an_argument_where_none_belongs_or_none_where_one_does_is_refused() -> None:
    for letter, arg in (("x", "1"), ("t", ""), ("i", ""), ("d", "~")):
        body = f"2.1.1.{letter}.{arg}"
        with pytest.raises(codec.BadToken):
            codec.parse(f"{body}.{codec._check(body)}")


def test_layout_1_buttons_drawn_before_an_upgrade_still_parse() -> None:
    def legacy(letter: str, arg: str = "") -> str:
        body = f"1.a.b.{letter}.{arg}"
        return f"{body}.{codec._check(body)}"

    assert codec.parse(legacy("t", "c")) == (Drawn(10, 11), Toggle(12))
    assert codec.parse(legacy("d", "TSTS")) == (Drawn(10, 11), Declare(("TS", "TS")))
    assert codec.parse(legacy("x")) == (Drawn(10, 11), Pass())
    with pytest.raises(codec.BadToken):  # positions in a hand drawn before: no longer known
        codec.parse(legacy("i", "01"))
