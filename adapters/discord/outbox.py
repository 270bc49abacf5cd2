"""Latest-wins delivery per message: a burst of edits to one message becomes one or two requests."""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Awaitable, Callable

log = logging.getLogger(__name__)

Job = Callable[[], Awaitable[None]]


class Coalescer:
    """Runs at most one job per key at a time; a job submitted while one runs replaces any waiting one.

    So while an edit of a table message is in flight, further edits of it
    collapse into the newest, and a pause of `interval` after each keeps a
    busy table under Discord's per-channel limits.
    """

    def __init__(self, *, interval: float = 0.0) -> None:
        self.interval = interval
        self._waiting: dict[str, Job] = {}
        self._workers: dict[str, asyncio.Task[None]] = {}
        self.sent = 0
        self.coalesced = 0

    def submit(self, key: str, job: Job) -> None:
        if key in self._waiting:
            self.coalesced += 1
        self._waiting[key] = job
        if key not in self._workers:
            self._workers[key] = asyncio.create_task(self._drain(key), name=f"discord-outbox-{key}")

    def pending(self, key: str) -> bool:
        return key in self._waiting or key in self._workers

    async def _drain(self, key: str) -> None:
        try:
            while key in self._waiting:
                job = self._waiting.pop(key)
                try:
                    await job()
                    self.sent += 1
                except Exception:
                    log.exception("discord: delivering %s failed", key)
                if self.interval > 0 and key in self._waiting:
                    await asyncio.sleep(self.interval)
        finally:
            self._workers.pop(key, None)

    async def flush(self, only: Callable[[str], bool] | None = None) -> None:
        """Waits until everything submitted so far (and anything it led to) is delivered; with `only`,
        just the keys it accepts (a person's hand, not a channel message waiting out its rate limit)."""
        while True:
            busy = [task for key, task in self._workers.items() if only is None or only(key)]
            if not busy:
                return
            await asyncio.gather(*busy, return_exceptions=True)

    async def close(self) -> None:
        for task in list(self._workers.values()):
            task.cancel()
        await asyncio.gather(*list(self._workers.values()), return_exceptions=True)
        self._workers.clear()
        self._waiting.clear()


class InOrder:
    """Jobs per key run one at a time, each of them, in the order given: a channel's announcements
    go out as said, without the table that said them waiting for the channel's rate limit."""

    def __init__(self) -> None:
        self._queues: dict[str, deque[Job]] = {}
        self._workers: dict[str, asyncio.Task[None]] = {}

    def submit(self, key: str, job: Job) -> None:
        self._queues.setdefault(key, deque()).append(job)
        if key not in self._workers:
            self._workers[key] = asyncio.create_task(self._drain(key), name=f"discord-in-order-{key}")

    async def _drain(self, key: str) -> None:
        try:
            queue = self._queues[key]
            while queue:
                job = queue.popleft()
                try:
                    await job()
                except Exception:
                    log.exception("discord: delivering %s failed", key)
        finally:
            self._workers.pop(key, None)
            self._queues.pop(key, None)

    async def flush(self) -> None:
        while self._workers:
            await asyncio.gather(*list(self._workers.values()), return_exceptions=True)

    async def close(self) -> None:
        for task in list(self._workers.values()):
            task.cancel()
        await asyncio.gather(*list(self._workers.values()), return_exceptions=True)
        self._workers.clear()
        self._queues.clear()
