"""Fixtures: a fake Discord server on 127.0.0.1 with discord.py pointed at it, and a host behind it.

The fake keeps Discord's limits on a fast clock (`rig.FAST`); `real_time_rig` keeps them in real time,
for the one whole-hand test that runs at Discord's own speed.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from fakes.clock import FakeClock
from fakes.discord_api import FakeDiscord, running_fake
from persistence.memory import MemoryStore
from tests.discord.rig import FAST, Rig


@pytest.fixture
async def fake_discord() -> AsyncIterator[FakeDiscord]:
    async with running_fake(scale=FAST) as fake:
        yield fake


async def _rig(fake: FakeDiscord) -> Rig:
    r = Rig(fake, await MemoryStore.open(), FakeClock())
    fake.observer = r.observe
    await r.boot()
    return r


@pytest.fixture
async def rig(fake_discord: FakeDiscord) -> AsyncIterator[Rig]:
    """A host (in-memory store, fake clock) behind the Discord adapter, connected to the fake."""
    r = await _rig(fake_discord)
    try:
        yield r
    finally:
        await r.shutdown()


@pytest.fixture
async def real_time_rig() -> AsyncIterator[Rig]:
    """As `rig`, against a fake whose clock is Discord's own: windows and `retry_after` in real seconds."""
    async with running_fake(scale=1.0) as fake:
        r = await _rig(fake)
        try:
            yield r
        finally:
            await r.shutdown()
