"""Several workers (hosts with their own PostgreSQL store and cluster link) on one throwaway database.

Time stands still for them until a test moves it: the hosts' timers run on a FakeClock, and the
database's clock (leases, heartbeats) is a test one too (`db_clock`, tests/persistence/db_clock.py).
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Callable, Coroutine
from dataclasses import dataclass
from typing import Any

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
        await stop_or_show_what_waits(_stop(w), f"stopping worker {w.name}")


async def _stop(w: Worker) -> None:
    if w.host.router is not None:
        await w.stop()
    else:
        await w.host.stop()
        await w.store.close()


async def stop_or_show_what_waits(stop: Coroutine[Any, Any, None], what: str, seconds: float = 60.0) -> None:
    """A stop that hangs fails in `seconds` (a guard only: a stop takes well under one) with every
    task's stack, the stop's included, which says what it waits for; pytest-timeout's dump shows
    threads only."""
    task = asyncio.ensure_future(stop)
    done, _ = await asyncio.wait({task}, timeout=seconds)
    if done:
        return task.result()
    stacks = "\n".join(_awaiting(t) for t in asyncio.all_tasks())
    task.cancel()
    raise AssertionError(f"{what} hung for {seconds:.0f} s; the tasks:\n{stacks}")


def _awaiting(task: asyncio.Task[Any]) -> str:
    """A task's chain of awaits down to what it waits on (Task.print_stack shows its outermost frame)."""
    lines = [repr(task)]
    step: Any = task.get_coro()
    while step is not None:
        frame = getattr(step, "cr_frame", None) or getattr(step, "gi_frame", None) or getattr(step, "ag_frame", None)
        if frame is None:
            lines.append(f"  waits on {step!r}")
            break
        lines.append(f"  {frame.f_code.co_filename}:{frame.f_lineno} {frame.f_code.co_name}")
        step = getattr(step, "cr_await", None) or getattr(step, "gi_yieldfrom", None) or getattr(step, "ag_await", None)
    return "\n".join(lines)
