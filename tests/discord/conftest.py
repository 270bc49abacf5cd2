"""Fixtures: a fake Discord server on 127.0.0.1 with discord.py pointed at it, and a host behind it."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from fakes.clock import FakeClock
from fakes.discord_api import FakeDiscord, running_fake
from persistence.memory import MemoryStore
from tests.discord.rig import Rig


@pytest.fixture
async def fake_discord() -> AsyncIterator[FakeDiscord]:
    async with running_fake() as fake:
        yield fake


@pytest.fixture
async def rig(fake_discord: FakeDiscord) -> AsyncIterator[Rig]:
    """A host (in-memory store, fake clock) behind the Discord adapter, connected to the fake."""
    r = Rig(fake_discord, await MemoryStore.open(), FakeClock())
    fake_discord.observer = r.observe
    await r.boot()
    try:
        yield r
    finally:
        await r.shutdown()
