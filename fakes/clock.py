"""A clock for the host's `Clock` port that moves only when a test (or a benchmark) says so."""

from __future__ import annotations

import asyncio
import heapq
import itertools


class FakeClock:
    """A clock that only moves when a test calls `advance`; sleepers wake in deadline order."""

    def __init__(self, start: float = 1_000_000.0) -> None:
        self._now = start
        self._sleepers: list[tuple[float, int, asyncio.Future[None]]] = []
        self._ids = itertools.count()

    def now(self) -> float:
        return self._now

    async def sleep_until(self, at: float) -> None:
        if at <= self._now:
            await asyncio.sleep(0)
            return
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._sleepers, (at, next(self._ids), fut))
        await fut

    def advance(self, seconds: float) -> None:
        """Moves time forward and wakes every sleeper whose moment has come."""
        self._now += seconds
        while self._sleepers and self._sleepers[0][0] <= self._now:
            _, _, fut = heapq.heappop(self._sleepers)
            if not fut.done():
                fut.set_result(None)

    def pending(self) -> int:
        """How many sleepers still wait (cancelled ones excluded)."""
        return sum(1 for _, _, f in self._sleepers if not f.done())
