"""The host as its features see it: `bot.feature.Context`, built over the host by `Host.context`.

Why a separate object. A feature handed the host itself could write its routing maps; handed this,
it reads tables through `Tables` (no dict to change), opens one through `open_table`, and keeps its
chat's settings through `Chats`. The host is reached through `HostSide`, the few members this
needs, so this module never imports `bot.host`.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

from bot.clock import Clock
from bot.commands import Registry
from bot.feature import JSON, NewTable, TableView
from bot.i18n import normalize_lang
from bot.platform import Incoming, Platform, PlatformError, Unreachable, User, View, Where
from bot.settings import TableSettings
from bot.table import Table
from bot.table.context import TableHost

if TYPE_CHECKING:
    from engine import Rules

log = logging.getLogger(__name__)


class Engine(Protocol):
    def preset(self, name: str = "classic", **overrides: str) -> Rules: ...


class Store(Protocol):
    """The store calls opening a table and keeping chats need."""

    async def create_match(self, platform: str, chat_id: str, rules: dict[str, object],
                           seats: list[dict[str, object]], seed: int, meta: dict[str, object], *,
                           status: str = ..., exclusive: bool = ...) -> int: ...

    async def set_deadline(self, match_id: int, kind: str, at: float) -> None: ...

    async def set_chat(self, platform: str, chat_id: str, data: dict[str, JSON]) -> None: ...

    async def upsert_player(self, platform: str, user_id: str, name: str, language: str | None) -> None: ...


class HostSide(TableHost, Protocol):
    """What this reads of `bot.host.Host`."""

    tables: dict[int, Table]
    by_chat: dict[tuple[str, str], Table]
    platforms: dict[str, Platform]
    chat_locks: dict[tuple[str, str], asyncio.Lock]
    user_langs: dict[tuple[str, str], str]
    rng: random.Random
    defaults: TableSettings
    registry: Registry
    engine: Engine

    def add_table(self, table: Table) -> None: ...

    async def load_chat(self, platform: str, chat_id: str) -> dict[str, JSON]: ...

    async def post(self, event: Incoming, text: str, files: Sequence[tuple[str, bytes]] = ()) -> None: ...

    def one_screen(self, where: Where) -> bool: ...

    def presets(self) -> tuple[str, ...]: ...


class _Tables:
    def __init__(self, host: HostSide) -> None:
        self._host = host

    def get(self, match_id: int) -> TableView | None:
        return self._host.tables.get(match_id)

    def in_chat(self, platform: str, chat_id: str) -> TableView | None:
        return self._host.by_chat.get((platform, chat_id))

    def seated(self, platform: str, user_id: str) -> list[TableView]:
        return [t for t in self._host.tables.values() if t.platform_name == platform and t.seat_of(user_id) is not None]

    def all(self) -> list[TableView]:
        return list(self._host.tables.values())


class _Chats:
    def __init__(self, host: HostSide) -> None:
        self._host = host

    async def load(self, platform: str, chat_id: str) -> dict[str, JSON]:
        return await self._host.load_chat(platform, chat_id)

    async def save(self, platform: str, chat_id: str, data: dict[str, JSON]) -> None:
        await self._store.set_chat(platform, chat_id, data)

    @property
    def _store(self) -> Store:
        store: Store = self._host.store
        return store

    def lang(self, platform: str, chat_id: str) -> str:
        return self._host.chat_lang(platform, chat_id)

    def user_lang(self, user: User) -> str | None:
        return self._host.user_lang(user)

    async def set_user_lang(self, user: User, lang: str | None) -> None:
        if lang is not None and normalize_lang(lang) == lang:
            self._host.user_langs[(user.platform, user.user_id)] = lang
        await self._store.upsert_player(user.platform, user.user_id, user.name, lang or user.language)

    def lock(self, platform: str, chat_id: str) -> asyncio.Lock:
        return self._host.chat_locks.setdefault((platform, chat_id), asyncio.Lock())


class HostContext:
    """`bot.feature.Context` over a host."""

    def __init__(self, host: HostSide) -> None:
        self._host = host
        self.tables = _Tables(host)
        self.chats = _Chats(host)
        self.clock: Clock = host.clock
        self.rng = host.rng
        self.commands = host.registry

    @property
    def defaults(self) -> TableSettings:
        return self._host.defaults  # tests change the host's defaults as they go

    async def open_table(self, new: NewTable) -> TableView:
        host = self._host
        store: Store = host.store
        w = new.where
        mid = await store.create_match(w.platform, w.chat_id, new.rules, new.seats, new.seed, new.meta,
                                       status="lobby", exclusive=new.exclusive)
        deadlines: dict[str, float] = {}
        if new.lobby > 0:
            deadlines["lobby"] = host.clock.now() + new.lobby
            await store.set_deadline(mid, "lobby", deadlines["lobby"])
        table = Table(host, match_id=mid, platform=w.platform, chat_id=w.chat_id, rules=dict(new.rules),
                      seats=[dict(s) for s in new.seats], seed=new.seed, meta=dict(new.meta), status="lobby",
                      deadlines=deadlines)
        host.add_table(table)
        return table

    async def answer(self, event: Incoming, text: str) -> None:
        await self._host.answer(event, text)

    async def post(self, event: Incoming, text: str, files: Sequence[tuple[str, bytes]] = ()) -> None:
        await self._host.post(event, text, files)

    async def say(self, where: Where, text: str, files: Sequence[tuple[str, bytes]] = ()) -> bool:
        platform = self._host.platforms.get(where.platform)
        if platform is None:
            return False
        try:
            if text:
                await platform.send(where, View(text))
            if platform.sends_files:
                for name, data in files:
                    await platform.send_file(where, name, data)
        except (PlatformError, Unreachable):
            log.info("message to %s not delivered", where.chat_id)
            return False
        return True

    def one_screen(self, where: Where) -> bool:
        return self._host.one_screen(where)

    async def language_chosen(self, where: Where, lang: str) -> None:
        hook = getattr(self._host.platforms.get(where.platform), "language_chosen", None)
        if callable(hook):  # a platform's own follow-up (Telegram's menu): never the person's answer's loss
            try:
                await hook(where, lang)
            except Exception:
                log.warning("%s: language of %s not followed", where.platform, where.chat_id, exc_info=True)

    def in_group(self, where: Where) -> bool:
        return not where.private or self._host.one_screen(where)

    def platforms(self) -> frozenset[str]:
        return frozenset(self._host.platforms)

    def presets(self) -> tuple[str, ...]:
        return self._host.presets()

    def preset(self, name: str, **overrides: str) -> Rules:
        return self._host.engine.preset(name, **overrides)
