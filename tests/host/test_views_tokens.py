"""Tokens, catalogs and rendering from engine-shaped view dicts."""

from __future__ import annotations

from typing import cast

import pytest
from babel.messages.pofile import read_po

from bot.cardtext import card_text, parse_typed_card
from bot.i18n import LANGS, catalog, normalize_lang, placeholders, po_path, tr
from bot.intents import codec
from bot.intents import types as it
from bot.intents.types import Drawn
from bot.platform import Button
from bot.scene.build import hand_scene, lobby_scene, table_scene
from bot.scene.types import Choices, Clock, Scene
from bot.views import SeatInfo, hand_view, lobby_view, table_view
from engine.views import PublicView, SeatView

ENGINE_CODES = ["wrong_phase", "not_your_turn", "not_in_hand", "wrong_count", "mixed_suits",
                "must_follow_suit", "must_follow_pairs", "must_follow_tractor", "not_level_card",
                "cannot_override", "no_declaration_yet", "bury_count", "cannot_revolt", "bad_card", "bad_action"]

SEATS = [SeatInfo("Ann"), SeatInfo("Bob", is_ai=True), SeatInfo("Cy"), SeatInfo("Di", away=True)]


def act_of(b: Button) -> it.ButtonAct:
    """What a button's data says, read by the codec; the button's own act says the same."""
    act = codec.parse(b.token)[1]
    assert b.act == act
    return act


def seat_view(**over: object) -> dict[str, object]:
    v: dict[str, object] = {
        "hand_no": 2, "phase": "playing", "seat": 0, "hand": ["BJ", "5H", "5H", "AS", "KS", "3D"],
        "hand_counts": [6, 6, 6, 6], "dealer": 0, "declarers": [0, 2], "levels": ["5", "2"], "level": "5",
        "trump": "H", "declaration": {"seat": 0, "cards": ["5H"]}, "trick": [[3, ["QS"]]], "leader": 3,
        "turn": 0, "last_trick": [], "defender_points": 25, "tricks_played": 19, "to_act": [0],
    }
    v.update(over)
    return v


def test_token_round_trip_and_limits() -> None:
    t = (Drawn(123456789, 4321), it.PlayCards(("AS", "KH") * 12 + ("BJ",)))
    packed = codec.pack(*t)
    assert len(packed.encode()) <= 64
    assert codec.parse(packed) == t


@pytest.mark.parametrize("bad", ["", "hello", "1.a.b.p..zz", "1.3.4.p.", "2.3.4.p..00", None, 5, "x" * 200,
                                 "1.3.4.q..00", "1.-3.4.p..00"])
def test_garbage_tokens_are_refused(bad: object) -> None:
    with pytest.raises(codec.BadToken):
        codec.parse(bad)


def test_tampered_token_fails_checksum() -> None:
    packed = codec.pack(Drawn(7, 9), it.PlaySelection())
    forged = packed.replace("2.7.", "2.8.", 1)
    with pytest.raises(codec.BadToken):
        codec.parse(forged)
    with pytest.raises(codec.BadToken):
        codec.parse(packed[:-1])


def test_catalogs_match_and_cover_engine_codes() -> None:
    en = catalog("en")
    for lang in LANGS:
        other = catalog(lang)
        assert set(other) == set(en), lang
        for key in en:
            assert placeholders(en[key]) == placeholders(other[key]), (lang, key)
    for code in ENGINE_CODES:
        assert f"refuse.{code}" in en
    for lang in LANGS:
        with po_path(lang).open("rb") as f:
            assert len(read_po(f)) == len(en), lang


def test_tr_fills_params_and_survives_missing_ones() -> None:
    assert tr("en", "join.ok", name="Ann", seat=2) == "Ann sits in seat 2."
    assert "{seat}" in tr("zh", "join.ok", name="Ann")
    assert tr("xx", "btn.play") == "出牌"
    assert normalize_lang("zh-hans") == "zh" and normalize_lang("en-US") == "en" and normalize_lang("fr") is None


def test_card_text_and_typing() -> None:
    assert card_text("TS") == "♠10" and card_text("BJ") == "大王" and card_text("SJ") == "小王"
    for word, card in [("as", "AS"), ("10h", "TH"), ("S10", "TS"), ("♥Q", "QH"), ("大王", "BJ"), ("sj", "SJ")]:
        assert parse_typed_card(word) == card
    for word in ["", "1S", "ZZ", "AX", "ASD"]:
        assert parse_typed_card(word) is None


def scene_of(v: dict[str, object], lang: str, *, version: int = 77, time_left: float | None = None,
             can: Choices | None = None, picked: set[int] | None = None) -> Scene:
    """The scene of an engine-shaped view dict: a seat's when it has a hand."""
    sc = table_scene(cast(PublicView, dict(v, version=version)), match_id=5, status="active", preset="classic",
                     seats=SEATS, clock=Clock("turn", time_left) if time_left is not None else None)
    if "hand" not in v:
        return Scene(sc, None, lang)
    return Scene(sc, int(cast(int, v["seat"])), lang, hand_scene(cast(SeatView, v), can or Choices(), picked or ()))


def test_table_view_shows_public_state_in_both_languages() -> None:
    pub = seat_view()
    del pub["hand"], pub["seat"]
    v = table_view(scene_of(pub, "en", time_left=21.4))
    assert "Ann" in v.text and "♥" in v.text and "25" in v.text and "21s" in v.text and "♠Q" in v.text
    assert "dealer" in v.text
    zh = table_view(scene_of(pub, "zh"))
    assert "闲家得分" in zh.text and "庄家" in zh.text
    assert codec.parse(v.buttons[0][0].token) == (Drawn(5, 77), it.ShowHand())


def test_hand_view_toggles_play_and_selection() -> None:
    v = hand_view(scene_of(seat_view(), "en", picked={3}), version=77)
    assert "[♠A]" in v.text
    toggles = [b for row in v.buttons for b in row if isinstance(act_of(b), it.Toggle)]
    assert len(toggles) == 6 and toggles[3].style == "selected"
    codes = {act_of(b) for row in v.buttons for b in row}
    assert it.PlaySelection() in codes and it.ClearSelection() in codes


def test_hand_view_bury_and_paging() -> None:
    hand = ["AS"] * 33
    burying = Choices(bury=True)
    v = hand_view(scene_of(seat_view(phase="burying", hand=hand, to_act=[0], kitty=["AS"] * 8), "en", can=burying,
                           picked=set(range(8))), version=3)
    flat = [b for row in v.buttons for b in row]
    assert sum(isinstance(act_of(b), it.Toggle) for b in flat) == 20
    bury = next(b for b in flat if act_of(b) == it.BurySelection())
    assert bury.style == "primary" and "8/8" in bury.label
    assert all(len(row) <= 5 for row in v.buttons) and len(v.buttons) <= 5
    page2 = hand_view(scene_of(seat_view(phase="burying", hand=hand, to_act=[0]), "en", can=burying), version=3,
                      page=1)
    assert sum(isinstance(act_of(b), it.Toggle) for row in page2.buttons for b in row) == 13


def test_hand_view_declare_buttons() -> None:
    can = Choices(declare=(("5H",),), can_pass=True)  # what Declare(0, ("5H",)) and Pass(0) make
    v = hand_view(scene_of(seat_view(phase="declaring", trump=None, declaration=None), "zh", can=can), version=3)
    toks = [act_of(b) for row in v.buttons for b in row]
    assert it.Declare(("5H",)) in toks
    assert it.Pass() in toks


def test_lobby_view() -> None:
    sc = lobby_scene(match_id=9, preset="classic", seats=[SeatInfo("Ann"), None, None, None], creator="Ann")
    v = lobby_view(Scene(sc, None, "en"))
    assert "1/4" in v.text
    assert {act_of(b) for row in v.buttons for b in row} == {
        it.LobbyJoin(), it.LobbyLeave(), it.LobbyAddBot(), it.LobbyStart()}


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("code", ENGINE_CODES)
def test_every_engine_refusal_reads_well(lang: str, code: str) -> None:
    from bot.table.moves import refusal_text
    from engine import IllegalAction

    text = refusal_text(lang, IllegalAction(code, count=8))
    assert text and "{" not in text and code not in text
