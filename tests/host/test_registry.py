"""The command registry (bot/commands.py): one declaration per command feeds routing, checks, help and menus."""

from __future__ import annotations

import grimp
import pytest

from bot.commands import Arg, Command, Number, Refusal, Registry, known_keys
from bot.i18n import LANGS, catalog, tr
from tests.host.conftest import Rig
from tests.host.helpers import send

FEATURE_MODULES = ("bot.features", "bot.league", "bot.duplicate", "bot.inline", "bot.cluster", "bot.live_follow",
                   "bot.live_peers", "bot.move_on")


def test_the_registry_refuses_names_the_platforms_refuse_and_a_second_declaration() -> None:
    r = Registry()
    for bad in ("", "New", "a-b", "x" * 33, "开"):
        with pytest.raises(ValueError):
            r.add(Command(bad, "help.cmd.new"))
    r.add(Command("start", "help.cmd.start", place="group"))
    r.add(Command("start", "help.cmd.start_private", place="private"))  # one per place
    with pytest.raises(ValueError):
        r.add(Command("start", "help.cmd.start"))


def test_words_are_typed_and_a_bad_one_is_refused() -> None:
    r = Registry()
    c = Command("kick", "help.cmd.kick", (Arg("seat", "help.arg.kick.seat", Number(1, 4, integer=True), required=True),))
    r.add(c)
    assert r.parse(c, ("3",), "en").int("seat") == 3
    for words, key in ((("9",), "arg.out_of_range"), (("nan",), "arg.not_number"), (("2.5",), "arg.not_whole"),
                       ((), "arg.missing")):
        with pytest.raises(Refusal) as got:
            r.parse(c, words, "en")
        assert got.value.key == key


def test_every_command_has_help_in_every_language_that_fits_the_menus(rig: Rig) -> None:
    commands = rig.host.registry.commands()
    assert len(commands) >= 29
    for lang in LANGS:
        cat = catalog(lang)
        for key in known_keys(commands):
            assert key in cat, (lang, key)
        for c in commands:
            text = tr(lang, c.summary)
            assert 1 <= len(text) <= 100, (lang, c.name, text)  # Discord's limit (Telegram's is 256)


async def test_help_lists_this_places_commands_and_help_new_the_ranges(rig: Rig) -> None:
    await send(rig, rig.d.command("u1", "help"))
    group = rig.platform.group_texts()[-1]
    assert "/new — Open a new table here" in group and "/standings" in group and "/start — Deal" in group
    await send(rig, rig.d.command("u1", "help", "new"))
    text = rig.platform.group_texts()[-1]
    assert text.startswith("/new [preset] [option=value…]")
    assert "turn: seconds to play a card or answer (0: no limit) (0 (never) or 5–3600 s)" in text
    await send(rig, rig.d.command("u1", "help", private=True))
    private = [s.view.text for s in rig.platform.log if s.where.chat_id == "u1"][-1]
    assert "/start — Open the bot here" in private and "/new" not in private
    await send(rig, rig.d.command("u1", "help", "nosuch"))
    assert rig.platform.group_texts()[-1] == tr("en", "help.no_such", name="nosuch")


async def test_the_host_checks_a_commands_words_and_place_before_the_table_sees_them(rig: Rig) -> None:
    await send(rig, rig.d.command("u1", "new"))
    assert await send(rig, rig.d.command("u2", "join", "9")) == [
        tr("en", "arg.out_of_range", what="9", name=tr("en", "help.arg.join.seat"), range="1–4")]
    table = rig.host.by_chat[("fake", "g1")]
    assert table.seat_of("u2") is None
    assert await send(rig, rig.d.command("u2", "join", private=True)) == [tr("en", "cmd.in_group", command="join")]
    assert await send(rig, rig.d.command("u2", "standings", private=True)) == [tr("en", "league.group_only")]
    assert (await send(rig, rig.d.command("u2", "kick")))[0].startswith("Missing:")


def test_the_host_imports_no_feature() -> None:
    graph = grimp.build_graph("bot", cache_dir=None)
    for module in FEATURE_MODULES:
        assert not graph.chain_exists(importer="bot.host", imported=module, as_packages=True), module
