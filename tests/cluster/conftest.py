"""Several workers (hosts with their own PostgreSQL store and cluster link) on one throwaway database.

Time stands still for them until a test moves it: the hosts' timers run on a FakeClock, and the
database's clock (leases, heartbeats) is a test one too (`db_clock`, tests/persistence/db_clock.py).
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass

import pytest

from app.features import build_host
from bot.cluster import Cluster
from bot.host import Host
from bot.settings import TableSettings
from fakes.clock import FakeClock
from persistence.postgres import PostgresStore
from tests.host.conftest import PACED
from tests.host.fakes import RecordingPlatform
from tests.persistence.conftest import db_clock, pg_server, pg_url
from tests.persistence.db_clock import DbClock

__all__ = ["db_clock", "pg_server", "pg_url"]


@dataclass
class Worker:
    name: str
    host: Host
    store: PostgresStore
    cluster: Cluster

    async def stop(self) -> None:
        await self.cluster.stop()
        await self.host.stop()
        await self.store.close()


@dataclass
class Workers:
    url: str
    platform: RecordingPlatform
    clock: FakeClock
    db_clock: DbClock
    started: list[Worker]
    async def start(self, name: str, settings: TableSettings = PACED, ttl: float | None = None) -> Worker:
        """A worker that beats only when the test says (`cluster.beat()`); NOTIFY still wakes it."""
        store = await PostgresStore.open(self.url, synchronous="OFF", worker=name)
        host = build_host(store, clock=self.clock, defaults=settings, use_ai_threads=False, rng=random.Random(len(name)))
        host.register(self.platform)
        cluster = Cluster(host, store, store.cluster(), beat=3600, ttl=ttl)
        await cluster.start()
        w = Worker(name, host, store, cluster)
        self.started.append(w)
        return w


async def until(check: Callable[[], bool], seconds: float = 30.0) -> None:
    """Waits for something another worker does in the background (a NOTIFY from the database, its
    actor), looking every few milliseconds: nothing in this process signals it. `seconds` only
    guards against waiting for ever."""
    async with asyncio.timeout(seconds):
        while not check():
            await asyncio.sleep(0.005)


@pytest.fixture
async def workers(pg_url: str, db_clock: DbClock) -> AsyncIterator[Workers]:
    ws = Workers(pg_url, RecordingPlatform(), FakeClock(), db_clock, [])
    yield ws
    for w in ws.started:
        if w.host.router is not None:
            await w.stop()
        else:
            await w.host.stop()
            await w.store.close()
