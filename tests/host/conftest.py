"""Shared fixtures: a host on an in-memory store, a fake clock and a recording platform."""

from __future__ import annotations

import random
import tempfile
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from app.features import build_host
from bot.host import Host
from bot.settings import TableSettings
from fakes.clock import FakeClock
from persistence.store import SqliteStore
from tests.host.fakes import Driver, RecordingPlatform

FAST = TableSettings(deal=0, declare=0, next=0, turn=0, bury=0, lobby=0)
PACED = TableSettings(deal=0, declare=10, next=0, turn=30, bury=30, lobby=0, away_after=2)


@dataclass
class Rig:
    host: Host
    store: Any
    platform: RecordingPlatform
    clock: FakeClock
    d: Driver


async def open_sqlite() -> SqliteStore:
    """A fresh SQLite file through the real persistence layer (synchronous=OFF: tests need no fsync)."""
    return await SqliteStore.open(Path(tempfile.mkdtemp(prefix="host-test-")) / "t.sqlite3", synchronous="OFF")


async def make_rig(settings: TableSettings = FAST, store: Any = None, seed: int = 7, *,
                   platform: RecordingPlatform | None = None) -> Rig:
    """A started host on a fresh SQLite file (or `store`), recording what it sends on `platform`."""
    store = store if store is not None else await open_sqlite()
    platform = platform if platform is not None else RecordingPlatform()
    clock = FakeClock()
    host = build_host(store, clock=clock, defaults=settings, use_ai_threads=False, rng=random.Random(seed))
    host.register(platform)
    await host.start()
    return Rig(host, store, platform, clock, Driver(platform))


@pytest.fixture
async def rig() -> AsyncIterator[Rig]:
    r = await make_rig()
    yield r
    await r.host.stop()
    await r.store.close()


@pytest.fixture
async def paced() -> AsyncIterator[Rig]:
    r = await make_rig(PACED)
    yield r
    await r.host.stop()
    await r.store.close()
