"""Telegram figures: API calls per play and update-to-last-API-call latency, on the fake server.

Four simulated people play whole matches through the real python-telegram-bot
client, the real host and engine, and the fake Bot API server on 127.0.0.1.

    python -m benchmarks.telegram_bench [--matches 2] [--scale 0.01] [--seed 6]

Two runs: one with Telegram's flood limits on a fast clock (`--scale` real
seconds per Telegram second), which gives the calls per play a group really
costs and checks that no 429 happens; one with the limits out of the way, in
which every update's messages go out before the next update, which gives the
latency of the bot itself.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import random
import statistics
import sys
import tempfile
import time
import warnings
from dataclasses import dataclass

import bot.host
from adapters.telegram.config import FloodLimits, TelegramConfig
from adapters.telegram.run import TelegramRunner
from app.features import build_host
from bot.settings import TableSettings
from fakes.clock import FakeClock
from fakes.players import Sim
from fakes.telegram_api import FakeTelegram, Limits
from fakes.telegram_rig import HandledOrder
from persistence.store import SqliteStore

GROUP = -1005555
SETTINGS = TableSettings(deal=0, declare=30, next=0, turn=0, bury=0, lobby=0)


@dataclass
class Run:
    plays: int
    hands: int
    calls: int
    calls_by_method: dict[str, int]
    latencies: list[float]
    rejected_429: int
    seconds: float
    group_peak_minute: int


async def play_one(scale: float, *, limits_on: bool) -> Run:
    fake = FakeTelegram(limits=Limits(scale=scale) if limits_on else None)
    await fake.start()
    fake.add_group(GROUP)
    tmp = tempfile.TemporaryDirectory()
    store, clock = await SqliteStore.open(os.path.join(tmp.name, "bench.sqlite3")), FakeClock()
    host = build_host(store, clock=clock, defaults=SETTINGS, use_ai_threads=False)
    limits = FloodLimits(scale=scale if limits_on else 1e-9)
    runner = TelegramRunner(TelegramConfig(token=fake.token, api_base_url=fake.api_root, poll_timeout=1,
                                           limits=limits), host, order=HandledOrder())
    runner.inbound.answer_deadline = 0.5
    host.register(runner.platform)
    await runner.connect()
    await host.start()
    await runner.listen()
    sim = Sim(fake, host, runner, GROUP, drain_each=not limits_on)
    started = time.perf_counter()
    try:
        await sim.open_table("classic target=3")
        await sim.start_until_reachable()
        first_play_call = len(fake.calls)
        await sim.play_to_the_end()
        await runner.platform.drain()
    finally:
        await runner.stop()
        await host.stop()
        await store.close()
        await fake.stop()
        tmp.cleanup()
    seconds = time.perf_counter() - started
    calls = [c for c in fake.calls[first_play_call:]]
    by_method: dict[str, int] = {}
    for c in calls:
        by_method[c.method] = by_method.get(c.method, 0) + 1
    return Run(sim.plays, len(sim.hands_done), len(calls), by_method, _latencies(fake),
               fake.rejected_429, seconds, _peak(fake, GROUP, 60.0 * scale))


def _latencies(fake: FakeTelegram) -> list[float]:
    """For each update, the time from its arrival to the last API call before the next update."""
    pushes = sorted(fake.pushed_at.items(), key=lambda kv: kv[1])
    times = sorted(c.at for c in fake.calls)
    out: list[float] = []
    for i, (_, at) in enumerate(pushes):
        until = pushes[i + 1][1] if i + 1 < len(pushes) else float("inf")
        caused = [t for t in times if at <= t < until]
        if caused:
            out.append(caused[-1] - at)
    return out


def _peak(fake: FakeTelegram, chat_id: int, window: float) -> int:
    """The most messages (sends and edits) the group got within one Telegram minute."""
    times = sorted(c.at for c in fake.calls if c.ok and c.params.get("chat_id") == chat_id
                   and c.method in ("sendMessage", "editMessageText", "sendPhoto", "sendDocument"))
    best, start = 0, 0
    for end, t in enumerate(times):
        while times[start] <= t - window:
            start += 1
        best = max(best, end - start + 1)
    return best


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def main(matches: int, scale: float, seed: int | None, *, only_limited: bool = False) -> None:
    if seed is not None:  # the host draws match seeds from the system; fix them for a repeatable run
        rng = random.Random(seed)
        bot.host.random.SystemRandom = lambda: rng  # type: ignore[assignment,misc]
    for limits_on in (True,) if only_limited else (True, False):
        if seed is not None:
            rng.seed(seed)
        runs = [await play_one(scale, limits_on=limits_on) for _ in range(matches)]
        plays = sum(r.plays for r in runs)
        calls = sum(r.calls for r in runs)
        methods: dict[str, int] = {}
        for r in runs:
            for k, v in r.calls_by_method.items():
                methods[k] = methods.get(k, 0) + v
        lat = [x for r in runs for x in r.latencies]
        title = f"flood limits on (1 Telegram s = {scale} s)" if limits_on else "flood limits off, drained"
        print(f"== {title}: {matches} match(es), {sum(r.hands for r in runs)} hands, {plays} plays, "
              f"{sum(r.seconds for r in runs):.1f} s")
        print(f"   API calls per play: {calls / plays:.2f}  "
              + ", ".join(f"{k} {v / plays:.2f}" for k, v in sorted(methods.items(), key=lambda kv: -kv[1])))
        print(f"   429 answers: {sum(r.rejected_429 for r in runs)}")
        if limits_on:
            print(f"   busiest Telegram minute in the group: {max(r.group_peak_minute for r in runs)} messages")
        if lat:
            print(f"   update -> last API call: median {statistics.median(lat) * 1000:.1f} ms, "
                  f"p99 {_pct(lat, 0.99) * 1000:.1f} ms over {len(lat)} updates")


if __name__ == "__main__":
    warnings.filterwarnings("ignore")
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--matches", type=int, default=1)
    parser.add_argument("--scale", type=float, default=0.01)
    parser.add_argument("--seed", type=int, default=None, help="fix the match seeds (repeatable runs)")
    parser.add_argument("--only-limited", action="store_true", help="skip the run without flood limits")
    args = parser.parse_args()
    logging.disable(logging.CRITICAL)
    asyncio.run(main(args.matches, args.scale, args.seed, only_limited=args.only_limited))
    sys.exit(0)
