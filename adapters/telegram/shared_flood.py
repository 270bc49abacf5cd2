"""Telegram's flood budgets shared by every worker of one bot (several `tractor-host run` processes
on one PostgreSQL database).

Telegram counts a bot's messages, whichever process sent them: three workers each keeping to 25
a second send 75. So, besides its own gate, each worker takes a place for every message in a
ledger all workers share (persistence/postgres_flood.py), which grants it only while the bot's
second, the group's minute and the chat's window have room counting everyone's messages.

Cheap by batching: the messages waiting in a worker ask together, one round (one transaction)
at a time, so a busy worker pays a round for many messages and an idle one nothing; a round also
says when the earlier messages arrived, which frees their places as soon as Telegram's windows do.
A worker that dies leaves places that run out `hold` seconds after they were granted.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from adapters.telegram.config import FloodLimits

log = logging.getLogger(__name__)

#: Messages asked for in one round at most.
ROUND_MAX = 50
#: Real seconds an arrival waits to be told to the ledger when no message is asking (they go with
#: the next round otherwise): until then the place counts as arriving at its `hold`.
SETTLE_EVERY = 0.05
#: Real seconds to wait before asking again when the ledger could not be reached.
RETRY = 0.5


class LedgerRound(Protocol):
    now: float
    places: list[int | None]
    waits: list[float]


class Ledger(Protocol):
    """The shared places (persistence.postgres_flood.FloodLedger); budgets as (cap, window)."""

    async def claim(self, chats: Sequence[int], limits: tuple[tuple[int, float], tuple[int, float], tuple[int, float]],
                    hold: float, arrived: Sequence[tuple[int, float | None]] = ()) -> LedgerRound: ...

    async def close(self) -> None: ...


@dataclass
class SharedStats:
    """What the shared budget did (benchmarks, tests)."""

    rounds: int = 0
    granted: int = 0
    refused: int = 0
    expired: int = 0  # granted but not used in time (a stalled loop): asked again
    failures: int = 0
    round_seconds: float = 0.0  # real seconds spent waiting for rounds


@dataclass
class Place:
    """A message's place in the shared budgets: usable until `use_by` (local clock)."""

    id: int
    use_by: float


class SharedBudget:
    """One worker's side; see the module docstring. Times are the local clock unless they say db."""

    def __init__(self, ledger: Ledger, limits: FloodLimits, clock: Callable[[], float] = time.monotonic) -> None:
        self.ledger = ledger
        self.clock = clock
        s = limits.scale
        self.budgets = ((limits.global_per_second, s),
                        (limits.group_per_minute, 60.0 * s),
                        (limits.chat_burst, limits.chat_burst / limits.chat_per_second * s))
        self.hold = limits.shared_hold
        self.use_within = limits.shared_use_within
        self.stats = SharedStats()
        self._asking: list[tuple[int, asyncio.Future[Place | float]]] = []
        self._arrived: dict[int, float | None] = {}
        self._offset: float | None = None  # db time minus local time, at most (from the latest round)
        self._task: asyncio.Task[None] | None = None

    async def place(self, chat_id: int) -> Place:
        """Waits until a message to `chat_id` fits every worker's budgets; its place."""
        while True:
            future: asyncio.Future[Place | float] = asyncio.get_running_loop().create_future()
            self._asking.append((chat_id, future))
            self._kick()
            got = await future
            if isinstance(got, Place):
                if self.clock() <= got.use_by:
                    return got
                self.stats.expired += 1
                self._arrived[got.id] = None
                continue
            await asyncio.sleep(got)

    def arrived(self, place: Place) -> None:
        """The message reached Telegram by now at the latest: its place counts from now."""
        if self._offset is not None:
            at = self.clock() + self._offset
            previous = self._arrived.get(place.id)
            self._arrived[place.id] = at if previous is None else max(previous, at)
            self._kick()

    async def close(self) -> None:
        """Says the last arrivals (the others' budgets free up at once), then stops."""
        if self._task is not None and not self._task.done():
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        for _, future in self._asking:
            if not future.done():
                future.cancel()
        self._asking.clear()
        if self._arrived:
            try:
                await self.ledger.claim([], self.budgets, self.hold, list(self._arrived.items()))
            except Exception as exc:
                log.warning("telegram: last arrivals not told to the flood ledger (%s: %s)", type(exc).__name__, exc)
            self._arrived.clear()
        await self.ledger.close()

    def _kick(self) -> None:
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._rounds())

    async def _rounds(self) -> None:
        while self._asking or self._arrived:
            if not self._asking:
                await asyncio.sleep(SETTLE_EVERY)
            asking, self._asking = self._asking[:ROUND_MAX], self._asking[ROUND_MAX:]
            arrived, self._arrived = self._arrived, {}
            started = self.clock()
            try:
                answer = await self.ledger.claim([c for c, _ in asking], self.budgets, self.hold,
                                                 list(arrived.items()))
            except Exception as exc:  # one line: a database restart fails every round until it is back
                self.stats.failures += 1
                log.warning("telegram: the shared flood ledger failed (%s: %s); asking again", type(exc).__name__, exc)
                self._arrived = {**arrived, **self._arrived}
                for _, future in asking:
                    if not future.done():
                        future.set_result(RETRY)
                await asyncio.sleep(RETRY)
                continue
            done = self.clock()
            self.stats.rounds += 1
            self.stats.round_seconds += done - started
            # the database's `now` was read at some moment between `started` and `done`
            self._offset = answer.now - started
            for (_, future), place, wait in zip(asking, answer.places, answer.waits, strict=True):
                if place is not None:
                    self.stats.granted += 1
                    if future.done():  # its asker gave up (stopped): the place goes unused
                        self._arrived[place] = None
                    else:
                        future.set_result(Place(place, started + self.use_within))
                else:
                    self.stats.refused += 1
                    if not future.done():
                        future.set_result(max(wait, 0.001))
