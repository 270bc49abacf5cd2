"""Time as a port: the host asks a clock, so tests drive timers by hand (`fakes.clock.FakeClock`)."""

from __future__ import annotations

import asyncio
import time
from typing import Protocol, runtime_checkable


@runtime_checkable
class Clock(Protocol):
    """Wall time in seconds and a way to sleep until a moment."""

    def now(self) -> float: ...

    async def sleep_until(self, at: float) -> None: ...


class SystemClock:
    """The real clock."""

    def now(self) -> float:
        return time.time()

    async def sleep_until(self, at: float) -> None:
        await asyncio.sleep(max(0.0, at - time.time()))


class CallableClock:
    """Adapts a plain `() -> float` (e.g. `time.time`) to the Clock port."""

    def __init__(self, fn: object) -> None:
        self._fn = fn

    def now(self) -> float:
        return float(self._fn())  # type: ignore[operator]

    async def sleep_until(self, at: float) -> None:
        await asyncio.sleep(max(0.0, at - self.now()))
