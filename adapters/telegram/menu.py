"""Telegram's "/" menu, written by the bot itself from the host's command registry, per language and scope.

Telegram shows a person the menu of the narrowest scope that has one, in their language if it has
that: a chat's own (`set_chat_menu`, when someone chooses the chat's language with `lang`), else the
group chats' or the private chats' (`set_menus`) for the person's two-letter language code, else the
same without a code. Each place lists the commands usable there (`Registry.menu`). 简体中文 is the
default, as everywhere in the host; 繁體中文 has no two-letter code of its own, so a group or a person
choosing it gets their own chat's menu in it.
"""

from __future__ import annotations

import logging
from typing import Literal

from telegram import (
    Bot,
    BotCommand,
    BotCommandScope,
    BotCommandScopeAllGroupChats,
    BotCommandScopeAllPrivateChats,
    BotCommandScopeChat,
)
from telegram.error import TelegramError

from bot.commands import Registry
from bot.i18n import DEFAULT_LANG

log = logging.getLogger(__name__)

#: (Telegram's language_code, the catalog's language): None is everyone without a menu of their own.
MENU_LANGS: tuple[tuple[str | None, str], ...] = ((None, DEFAULT_LANG), ("zh", "zh"), ("en", "en"))
#: Telegram's limits: 100 commands a menu, 256 characters a description.
MAX_COMMANDS = 100
MAX_DESCRIPTION = 256


def menu(registry: Registry, lang: str, place: Literal["group", "private"]) -> list[BotCommand]:
    """The commands of one place, described in one language, as Telegram takes them."""
    items = [BotCommand(name, text[:MAX_DESCRIPTION]) for name, text in registry.menu(lang, place)]
    return sorted(items, key=lambda c: c.command)[:MAX_COMMANDS]


async def set_menus(bot: Bot, registry: Registry) -> int:
    """The menus of group chats and private chats in each language; the calls made."""
    calls = 0
    scopes: tuple[tuple[Literal["group", "private"], BotCommandScope], ...] = (
        ("group", BotCommandScopeAllGroupChats()), ("private", BotCommandScopeAllPrivateChats()))
    for place, scope in scopes:
        for code, lang in MENU_LANGS:
            await bot.set_my_commands(menu(registry, lang, place), scope=scope, language_code=code)
            calls += 1
    return calls


async def set_chat_menu(bot: Bot, registry: Registry, chat_id: int, lang: str, private: bool) -> bool:
    """One chat's menu in the language it chose (everyone there reads the chat's language). False
    when Telegram refused it (the chat is gone): the menus of all chats still apply there."""
    try:
        await bot.set_my_commands(menu(registry, lang, "private" if private else "group"),
                                  scope=BotCommandScopeChat(chat_id))
    except TelegramError as exc:
        log.info("telegram: menu of chat %s not set: %s", chat_id, exc)
        return False
    return True
