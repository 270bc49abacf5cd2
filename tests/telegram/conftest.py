"""Fixtures: the fake Bot API server and the real adapter (python-telegram-bot) pointed at it."""

from __future__ import annotations

import asyncio
import warnings
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest
from telegram.warnings import PTBDeprecationWarning

from adapters.telegram.config import FloodLimits, TelegramConfig
from adapters.telegram.run import TelegramRunner
from bot.platform import Incoming, User, Where
from bot.views import Mention
from fakes.telegram_api import FakeTelegram, Limits

warnings.filterwarnings("ignore", category=PTBDeprecationWarning)

GROUP = -1001234
# One Telegram second lasts 0.1 real seconds in these tests: a minute is six.
SCALE = 0.1


@dataclass(frozen=True)
class Choice:
    title: str
    description: str
    token: str
    message: str = ""
    mention: Mention | None = None


@dataclass
class ScriptedHost:
    """Stands in for bot.host.Host in adapter-only tests: records events, runs a script."""

    events: list[Incoming] = field(default_factory=list)
    on_event: Callable[[Incoming], Awaitable[None]] | None = None
    choices: list[Choice] = field(default_factory=list)
    inline_asks: list[tuple[User, Where, str]] = field(default_factory=list)
    arrived: asyncio.Event = field(default_factory=asyncio.Event)
    journals: dict[str, dict[str, Any]] = field(default_factory=dict)

    async def handle(self, event: Incoming) -> None:
        self.events.append(event)
        self.arrived.set()
        if self.on_event is not None:
            await self.on_event(event)

    async def inline_choices(self, user: User, where: Where, query: str) -> Sequence[Choice]:
        self.inline_asks.append((user, where, query))
        return self.choices

    def inline_reason(self, user: User, where: Where) -> str:
        return "Not your turn"

    async def load_journal(self, platform: str, name: str) -> dict[str, Any]:
        return dict(self.journals.get(name, {}))

    async def save_journal(self, platform: str, name: str, data: dict[str, Any]) -> None:
        self.journals[name] = dict(data)

    async def wait_events(self, n: int) -> list[Incoming]:
        async with asyncio.timeout(5):
            while len(self.events) < n:
                self.arrived.clear()
                await self.arrived.wait()
        return self.events


@pytest.fixture
async def fake() -> AsyncIterator[FakeTelegram]:
    server = FakeTelegram(limits=Limits(scale=SCALE))
    await server.start()
    server.add_group(GROUP)
    yield server
    await server.stop()


def make_config(fake: FakeTelegram) -> TelegramConfig:
    return TelegramConfig(token=fake.token, api_base_url=fake.api_root, poll_timeout=1,
                          limits=FloodLimits(scale=SCALE))


@pytest.fixture
async def adapter(fake: FakeTelegram) -> AsyncIterator[tuple[TelegramRunner, ScriptedHost]]:
    host = ScriptedHost()
    runner = TelegramRunner(make_config(fake), host)
    runner.inbound.answer_deadline = 0.2
    await runner.start()
    yield runner, host
    await runner.stop()
    assert runner.inbound.errors == []
    assert fake.rejected_429 == 0
