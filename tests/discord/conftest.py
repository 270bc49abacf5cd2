"""Fixtures: a fake Discord server on 127.0.0.1 with discord.py pointed at it, and a host behind it.

The fake keeps Discord's limits on a fast clock (`rig.FAST`); `real_time_rig` keeps them in real time,
for the one whole-hand test that runs at Discord's own speed.
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import AsyncIterator
from typing import Any

import pytest

from fakes.clock import FakeClock
from fakes.discord_api import FakeDiscord, running_fake
from persistence.memory import MemoryStore
from tests.discord.rig import FAST, NewRig, Rig


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
async def new_rig(fake_discord: FakeDiscord) -> AsyncIterator[NewRig]:
    """Builds and boots a rig on a store the test opened (SQLite, to restart on): `await new_rig(store,
    rng=...)`. A rig a failed test left running is stopped, and its store closed, after the test."""
    made: list[Rig] = []

    async def make(store: Any, rng: random.Random | None = None) -> Rig:
        r = Rig(fake_discord, store, FakeClock(), rng=rng)
        fake_discord.observer = r.observe
        made.append(r)
        await r.boot()
        return r

    yield make
    for r in made:
        if r.running:
            await r.stop()
            with contextlib.suppress(Exception):
                await r.store.close()


@pytest.fixture
async def real_time_rig() -> AsyncIterator[Rig]:
    """As `rig`, against a fake whose clock is Discord's own: windows and `retry_after` in real seconds."""
    async with running_fake(scale=1.0) as fake:
        r = await _rig(fake)
        try:
            yield r
        finally:
            await r.shutdown()
