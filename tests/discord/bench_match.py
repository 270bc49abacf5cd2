"""Benchmark: a whole match of four people on Discord with two restarts and every token dead once.

    python -m tests.discord.bench_match [scale]

Real client against the fake at Discord's speed (`scale` 1: its rate-limit windows in real
seconds). The process is killed twice (queued edits lost) and restarted on the same SQLite file;
between, 16 quiet minutes kill every interaction token. Prints clicks a play, extra clicks (My hand
for want of a hand, a press only to bring a hand up to date, a press refused) and where they came
from, REST requests a play, 429s, and the turn lag: from a person's click to the moment every hand
is drawn for the next turn (an upper bound of what the next person waits to see their turn).
Figures go into docs/discord.md; tests never assert timings.
"""

from __future__ import annotations

import asyncio
import random
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from adapters.discord.config import DiscordConfig
from adapters.discord.texts import text
from fakes.clock import FakeClock
from fakes.discord_api import FakeDiscord, handled, running_fake
from persistence.store import SqliteStore
from tests.discord.rig import ALICE, BOB, CAROL, DAVE, PEOPLE, Rig


async def _kill_and_boot(rig: Rig, path: str) -> None:
    await rig.fake.answered()
    await handled()
    await rig.runner.inbound.idle()
    await rig.host.settle()
    await rig.kill()
    await rig.store.close()
    rig.store = await SqliteStore.open(path, synchronous="NORMAL")
    await rig.boot()


def _actions(rig: Rig) -> int:
    m = rig.table().match if rig.host.tables else None
    return 0 if m is None else len(m.actions)


async def bench(scale: float) -> None:
    path = str(Path(tempfile.mkdtemp()) / "bench.sqlite3")
    lags: list[float] = []
    extra_at: list[tuple[str, int]] = []  # (after what, extra clicks it cost)
    async with running_fake(scale=scale) as fake:
        rig = Rig(fake, await SqliteStore.open(path, synchronous="NORMAL"), FakeClock(), rng=random.Random(2),
                  edit_interval=DiscordConfig.edit_interval)  # as in production
        fake.observer = rig.observe
        await rig.boot()
        await fake.slash(ALICE, "new", {"preset": "classic", "options": "target=3"})
        await rig.idle()
        for person in (BOB, CAROL, DAVE):
            await fake.slash(person, "join")
            await rig.idle()
        await fake.slash(ALICE, "start")
        await rig.idle()
        table_id = rig.table().id
        started = time.perf_counter()
        plan = [(60, "restart"), (120, "16 quiet minutes"), (200, "restart")]
        mark = len(rig.extra)
        label = "start"
        for _ in range(20_000):
            if not rig.host.tables or rig.table().status == "finished":
                break
            if plan and _actions(rig) > plan[0][0]:
                extra_at.append((label, len(rig.extra) - mark))
                mark, label = len(rig.extra), plan[0][1]
                if plan.pop(0)[1] == "restart":
                    await _kill_and_boot(rig, path)
                else:
                    fake.advance(16 * 60)
            acted = False
            for person in PEOPLE:
                t0 = time.perf_counter()
                if await rig.act(person):
                    lags.append(time.perf_counter() - t0)
                    acted = True
                    break
            if not acted:
                rig.clock.advance(31)
                await rig.idle()
        extra_at.append((label, len(rig.extra) - mark))
        elapsed = time.perf_counter() - started
        stored = await rig.store.get_match(table_id)
        await rig.shutdown()
        await rig.store.close()
        _report(fake, rig, lags, extra_at, elapsed, stored.status if stored else "?")


def _report(fake: FakeDiscord, rig: Rig, lags: list[float], extra_at: list[tuple[str, int]], elapsed: float,
            status: str) -> None:
    plays = [n for t, n in rig.clicks if t == "play"]
    lags.sort()
    requests = len(fake.requests)
    print(f"match {status}, {len(rig.clicks)} actions ({len(plays)} plays), wall time {elapsed:.1f} s")
    print(f"clicks a play: mean {statistics.mean(plays):.2f}, median {statistics.median(plays):.0f}, "
          f"max {max(plays)}; {Counter(plays).most_common()} (clicks, plays)")
    told = [text(lang, "press_my_hand") for lang in ("en", "zh", "zh_Hant")]
    asked = sum(1 for m in fake.messages.values() if m.public and any(w in m.history[0] for w in told))
    print(f"extra clicks: {len(rig.extra)} in all; by stretch (the stretch after ...): {extra_at}; {rig.extra}; "
          f"plays picked card by card for want of the plays menu (over 2 clicks): "
          f"{sum(1 for n in plays if n > 2)}, {sum(n - 2 for n in plays if n > 2)} clicks over the menu's 2; "
          f"channel messages asking to press My hand: {asked}")
    print(f"REST requests: {requests}, {requests / len(plays):.2f} a play; 429s: {fake.rate_limited} "
          f"{dict(fake.limited_buckets)}; "
          f"protocol errors: {len(fake.protocol_errors)}; unanswered: {len(fake.unanswered())}")
    print(f"turn lag (click -> every hand drawn for the next turn): median {statistics.median(lags) * 1000:.0f} ms, "
          f"p99 {lags[int(len(lags) * 0.99)] * 1000:.0f} ms, max {lags[-1] * 1000:.0f} ms over {len(lags)} turns")


if __name__ == "__main__":
    asyncio.run(bench(float(sys.argv[1]) if len(sys.argv) > 1 else 1.0))
