"""Several workers (hosts with their own PostgreSQL store and cluster link) on one throwaway database."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass

import pytest

from bot.cluster import Cluster
from bot.host import Host
from bot.settings import TableSettings
from fakes.clock import FakeClock
from persistence.postgres import PostgresStore
from tests.host.conftest import PACED
from tests.host.fakes import RecordingPlatform
from tests.persistence.conftest import pg_server, pg_url

__all__ = ["pg_server", "pg_url"]


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
    started: list[Worker]

    async def start(self, name: str, settings: TableSettings = PACED, ttl: float | None = None) -> Worker:
        """A worker that beats only when the test says (`cluster.beat()`); NOTIFY still wakes it."""
        store = await PostgresStore.open(self.url, synchronous="OFF", worker=name)
        host = Host(store, clock=self.clock, defaults=settings, use_ai_threads=False, rng=random.Random(len(name)))
        host.register(self.platform)
        cluster = Cluster(host, store, store.cluster(), beat=3600, ttl=ttl)
        await cluster.start()
        w = Worker(name, host, store, cluster)
        self.started.append(w)
        return w


async def until(check: Callable[[], bool], seconds: float = 5.0) -> None:
    """Waits for something another worker does in the background (a NOTIFY, its actor)."""
    for _ in range(int(seconds / 0.02)):
        if check():
            return
        await asyncio.sleep(0.02)
    raise AssertionError("timed out")


@pytest.fixture
async def workers(pg_url: str) -> AsyncIterator[Workers]:
    ws = Workers(pg_url, RecordingPlatform(), FakeClock(), [])
    yield ws
    for w in ws.started:
        if w.host.router is not None:
            await w.stop()
        else:
            await w.host.stop()
            await w.store.close()
