"""Several workers of one bot writing to Telegram at once, against the strict fake Bot API server, to
see the flood budgets kept across them (tests/cluster/test_telegram_flood.py,
benchmarks/telegram_workers.py).

Each worker is a `tractor-host run`'s Telegram side in this event loop: its own PostgreSQL store,
host and adapter (outboxes, flood gate, the real client), all against one fake server with
Telegram's limits on, on real time, or on a faster clock with `scale` (the seconds one Telegram
second lasts, as `fakes.telegram_api.Limits` has it; the adapter's gate and the windows it asks
the ledger for go by the same clock; the ledger's `hold` stays in real seconds). The load is what tables say, sent through each worker's
platform at once: announcements to the groups whose tables the worker drives, and hands to
private chats that every worker writes to (people sitting at tables driven by different workers).
Game tables themselves are not run: on the shared 2-core machine sixty of them in one process
are bound by the CPU long before they reach the bot's 30 messages a second.

With the budgets shared (`shared=True`, the ledger in PostgreSQL) the fake must never answer 429;
without, each worker keeps only to its own 25 a second and the chat's two messages at once.
"""

from __future__ import annotations

import asyncio
import random
import time
from dataclasses import dataclass, field

from adapters.telegram.config import FloodLimits, TelegramConfig
from adapters.telegram.run import TelegramRunner
from app.features import build_host
from bot.host import Host
from bot.platform import View, Where
from fakes.telegram_api import FakeTelegram, Limits
from persistence.postgres import PostgresStore

MESSAGE_CALLS = ("sendMessage", "editMessageText", "editMessageReplyMarkup", "sendPhoto", "sendDocument")
FIRST_GROUP = -100_700_000
FIRST_PERSON = 700_000


@dataclass
class FloodWorker:
    name: str
    store: PostgresStore
    host: Host
    runner: TelegramRunner

    async def stop(self) -> None:
        await self.runner.stop()
        await self.host.stop()
        await self.store.close()


@dataclass
class FloodRun:
    """What the fake saw, and what the workers' shared budgets did."""

    seconds: float  # from the first message asked for until the last one went out (Telegram seconds)
    wanted: int
    sent: int  # message calls Telegram took
    rejected_429: int
    rejected_by: dict[str, int]
    peak: int  # message calls taken within any one (Telegram) second
    failed: int = 0  # sends that gave up (SendFailed after retries)
    rounds: int = 0
    granted: int = 0
    round_seconds: float = 0.0
    by_method: dict[str, int] = field(default_factory=dict)

    @property
    def per_second(self) -> float:
        return self.sent / self.seconds if self.seconds else 0.0


async def start_worker(fake: FakeTelegram, url: str, name: str, *, shared: bool, scale: float = 1.0) -> FloodWorker:
    store = await PostgresStore.open(url, synchronous="OFF", worker=name)
    host = build_host(store, use_ai_threads=False, rng=random.Random(name))
    config = TelegramConfig(token=fake.token, api_base_url=fake.api_root, limits=FloodLimits(scale=scale))
    runner = TelegramRunner(config, host, ledger=store.flood_ledger() if shared else None)
    host.register(runner.platform)
    await runner.connect()
    return FloodWorker(name, store, host, runner)


async def run(url: str, *, workers: int = 3, groups: int = 30, per_group: int = 1, people: int = 10,
              per_person: int = 3, shared: bool = True, scale: float = 1.0) -> FloodRun:
    """Each worker says `per_group` things in each of its own `groups` groups and `per_person`
    things to each of the `people` private chats every worker writes to, all at once."""
    fake = FakeTelegram(limits=Limits(scale=scale))
    await fake.start()
    started: list[FloodWorker] = []
    try:
        started = [await start_worker(fake, url, f"w{k + 1}", shared=shared, scale=scale) for k in range(workers)]
        for p in range(people):
            fake.add_user(FIRST_PERSON + p, f"P{p}", opened=True)
        jobs: list[tuple[FloodWorker, Where, str]] = []
        for k, w in enumerate(started):
            for g in range(groups):
                chat = FIRST_GROUP - k * groups - g
                fake.add_group(chat)
                jobs += [(w, Where("telegram", str(chat)), f"{w.name}: trick {n} in group {g}") for n in range(per_group)]
            for p in range(people):
                where = Where("telegram", str(FIRST_PERSON + p), private=True)
                jobs += [(w, where, f"{w.name}: your hand, {n}") for n in range(per_person)]
        first = len(fake.calls)
        began = time.monotonic()
        results = await asyncio.gather(*(w.runner.platform.send(where, View(text)) for w, where, text in jobs),
                                       return_exceptions=True)
        ended = time.monotonic()
        calls = [c for c in fake.calls[first:] if c.method in MESSAGE_CALLS]
        ok = sorted(c.at for c in calls if c.ok)
        out = FloodRun((ended - began) / scale, len(jobs), len(ok), fake.rejected_429, dict(fake.rejected_by),
                       _peak(ok, scale),
                       failed=sum(isinstance(r, BaseException) for r in results))
        for c in calls:
            out.by_method[c.method] = out.by_method.get(c.method, 0) + 1
        for w in started:
            budget = w.runner.platform.outboxes.gate.shared
            if budget is not None:
                out.rounds += budget.stats.rounds
                out.granted += budget.stats.granted
                out.round_seconds += budget.stats.round_seconds
        return out
    finally:
        for w in started:
            await w.stop()
        await fake.stop()


def _peak(times: list[float], second: float) -> int:
    """The most calls inside any one second (`second` real seconds long)."""
    best, lo = 0, 0
    for hi, at in enumerate(times):
        while times[lo] <= at - second:
            lo += 1
        best = max(best, hi - lo + 1)
    return best
