"""`new`'s options have ranges (issue 29, item 4): a bad value gets an answer naming the range and
changes nothing, and a member's timers hold for their own table only."""

from __future__ import annotations

import pytest

from bot.i18n import tr
from bot.settings import SETTING_RANGES, TableSettings
from tests.host.conftest import Rig
from tests.host.helpers import send

ADMIN = {"admin": "1"}
MEMBER = {"admin": "0"}


@pytest.mark.parametrize(("option", "says"), [
    ("turn=nan", "not a number"), ("turn=inf", "not a number"), ("next=-inf", "not a number"),
    ("turn=abc", "not a number"), ("next=1e308", "out of range"), ("lobby=99999999999", "out of range"),
    ("turn=0.0001", "out of range"), ("turn=-5", "out of range"), ("away_after=1.5", "not a whole number"),
    ("ai_budget=60", "out of range"), ("time_limit_minutes=99999999999", "out of range"),
    ("format=bo5", "not one of"),
])
async def test_a_value_out_of_range_is_refused_naming_the_range(rig: Rig, option: str, says: str) -> None:
    answers = await send(rig, rig.d.command("u1", "new", "classic", option, extra=ADMIN))
    assert len(answers) == 1 and says in answers[0] and option in answers[0], answers
    key = option.partition("=")[0]
    if key in SETTING_RANGES:
        assert SETTING_RANGES[key].range_text("en") in answers[0]
    assert rig.host.by_chat == {}
    assert "timers" not in (await rig.store.get_chat("fake", "g1") or {})


async def test_the_refusal_speaks_the_persons_language(rig: Rig) -> None:
    await send(rig, rig.d.command("u1", "lang", "zh"))
    answers = await send(rig, rig.d.command("u1", "new", "turn=nan"))
    assert answers == [tr("zh", "arg.not_number", what="turn=nan", name="turn",
                          range=SETTING_RANGES["turn"].range_text("zh"))]


async def test_the_edges_of_each_range_are_taken(rig: Rig) -> None:
    await send(rig, rig.d.command("u1", "new", "turn=5", "next=300", "lobby=86400", "away_after=0", "bury=0",
                                  "time_limit_minutes=0"))
    table = rig.host.by_chat[("fake", "g1")]
    assert (table.settings.turn, table.settings.next, table.settings.lobby) == (5, 300, 86400)
    assert (table.settings.away_after, table.settings.bury) == (0, 0)
    assert not table.rules.get("time_limit_minutes")


async def test_a_members_timers_hold_for_their_table_only(rig: Rig) -> None:
    await send(rig, rig.d.command("u2", "new", "next=300", "turn=3600", extra=MEMBER))
    table = rig.host.by_chat[("fake", "g1")]
    assert (table.settings.next, table.settings.turn) == (300, 3600)
    assert "timers" not in (await rig.store.get_chat("fake", "g1") or {})
    await send(rig, rig.d.command("u2", "abandon"))
    await send(rig, rig.d.command("u3", "new", extra=MEMBER))
    later = rig.host.by_chat[("fake", "g1")]
    assert later.settings == rig.host.defaults


async def test_an_admins_timers_become_the_chats_own(rig: Rig) -> None:
    await send(rig, rig.d.command("u1", "new", "turn=45", extra=ADMIN))
    await send(rig, rig.d.command("u1", "abandon"))
    await send(rig, rig.d.command("u2", "new", "bury=70", extra=MEMBER))  # a member's bury: this table only
    table = rig.host.by_chat[("fake", "g1")]
    assert (table.settings.turn, table.settings.bury) == (45, 70)
    assert (await rig.store.get_chat("fake", "g1"))["timers"] == {"turn": "45"}


async def test_a_stored_timer_out_of_range_is_left_out_with_a_note(rig: Rig) -> None:
    await rig.store.set_chat("fake", "g1", {"lang": "en", "timers": {"next": "1e308", "turn": "45"}})
    answers = await send(rig, rig.d.command("u1", "new"))
    created, note = answers[0].split("\n")
    assert created == tr("en", "new.created", id=rig.host.by_chat[("fake", "g1")].id)
    assert "next=1e308" in note and SETTING_RANGES["next"].range_text("en") in note
    table = rig.host.by_chat[("fake", "g1")]
    assert table.settings.next == rig.host.defaults.next and table.settings.turn == 45
    assert (await rig.store.get_chat("fake", "g1"))["timers"] == {"turn": "45"}


async def test_a_tournament_checks_its_options_too(rig: Rig) -> None:
    answers = await send(rig, rig.d.command("u1", "tournament", "new", "knockout", "next=1e308", extra=ADMIN))
    assert len(answers) == 1 and "out of range" in answers[0]


def test_stored_settings_that_are_no_number_keep_the_default() -> None:
    got = TableSettings.from_dict({"turn": "nan", "next": float("inf"), "bury": -3, "lobby": "1e999", "deal": 0.2})
    assert (got.turn, got.next, got.bury, got.lobby, got.deal) == (60.0, 5.0, 120.0, 3600.0, 0.2)
