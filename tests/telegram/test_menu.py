"""The bot sets its own "/" menu (issue 29, item 7): from the command registry, per language and scope,
through the real python-telegram-bot client against the fake, which refuses what Telegram refuses."""

from __future__ import annotations

from pathlib import Path

import pytest
from telegram import BotCommand, BotCommandScopeChat
from telegram.error import BadRequest

from bot.i18n import tr
from fakes.telegram_rig import booted

GROUP = -100777
ANN, BO = 501, 502


def _names(menu: list[dict[str, str]]) -> set[str]:
    return {c["command"] for c in menu}


async def test_each_place_and_language_has_its_menu(tmp_path: Path) -> None:
    async with booted(str(tmp_path / "m.sqlite3")) as rig:
        fake = rig.fake
        fake.add_group(GROUP, admins=(ANN,))
        fake.add_user(ANN, "Ann", opened=True, language="en")
        fake.add_user(BO, "Bo", opened=True, language="zh-hans")
        group_en = fake.menu_for(ANN, GROUP)
        assert {"new", "join", "start", "standings", "tournament", "help"} <= _names(group_en)
        assert {c["description"] for c in group_en} >= {tr("en", "help.cmd.new"), tr("en", "help.cmd.join")}
        assert [c["description"] for c in fake.menu_for(BO, GROUP) if c["command"] == "new"] == [tr("zh", "help.cmd.new")]
        private = fake.menu_for(ANN, ANN)
        assert "start" in _names(private) and "new" not in _names(private) and "join" not in _names(private)
        assert [c["description"] for c in private if c["command"] == "start"] == [tr("en", "help.cmd.start_private")]
        # 繁體中文 has no two-letter code: a group that chooses it gets a menu of its own, for everyone there
        await rig.command(ANN, GROUP, "/lang zht")
        assert [c["description"] for c in fake.menu_for(ANN, GROUP) if c["command"] == "new"] == [
            tr("zh-Hant", "help.cmd.new")]
        assert [c["description"] for c in fake.menu_for(BO, GROUP) if c["command"] == "new"] == [
            tr("zh-Hant", "help.cmd.new")]
        await rig.command(BO, BO, "/lang zht")  # a person's own private chat
        assert [c["description"] for c in fake.menu_for(BO, BO) if c["command"] == "start"] == [
            tr("zh-Hant", "help.cmd.start_private")]


async def test_a_chat_that_takes_its_first_tables_language_gets_its_menu(tmp_path: Path) -> None:
    async with booted(str(tmp_path / "m.sqlite3")) as rig:
        fake = rig.fake
        fake.add_group(GROUP)
        fake.add_user(ANN, "Ann", opened=True, language="zh-hant")
        fake.add_user(BO, "Bo", opened=True, language="en")
        await rig.command(ANN, GROUP, "/new")  # the chat speaks Ann's 繁體中文 from now on
        assert [c["description"] for c in fake.menu_for(BO, GROUP) if c["command"] == "new"] == [
            tr("zh-Hant", "help.cmd.new")]


async def test_the_fake_refuses_what_telegram_refuses(tmp_path: Path) -> None:
    async with booted(str(tmp_path / "m.sqlite3")) as rig:
        bot = rig.runner.app.bot
        for commands in ([BotCommand("New", "x")], [BotCommand("a" * 33, "x")], [BotCommand("a-b", "x")],
                         [BotCommand("ok", "")], [BotCommand("ok", "x" * 257)],
                         [BotCommand(f"c{i}", "x") for i in range(101)]):
            with pytest.raises(BadRequest):
                await bot.set_my_commands(commands)
        with pytest.raises(BadRequest, match=r"(?i)language code"):
            await bot.set_my_commands([BotCommand("ok", "x")], language_code="zh-hant")
        with pytest.raises(BadRequest, match=r"(?i)chat not found"):
            await bot.set_my_commands([BotCommand("ok", "x")], scope=BotCommandScopeChat(-1))
        await bot.set_my_commands([BotCommand("ok", "x" * 256)], language_code="fr")
        assert await bot.get_my_commands(language_code="fr") == (BotCommand("ok", "x" * 256),)
