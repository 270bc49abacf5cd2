"""Fixtures: a fake Discord server on 127.0.0.1 with discord.py pointed at it."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from tests.fakes.discord_api import FakeDiscord, running_fake


@pytest.fixture
async def fake_discord() -> AsyncIterator[FakeDiscord]:
    async with running_fake() as fake:
        yield fake
