"""Benchmark: one hand of four people on Discord, real client against the fake server.

    python -m tests.discord.bench_hand [hands]

Prints how long interactions waited for their answer (Discord allows 3 s), clicks per play and
per bury, how many REST requests a hand and a play cost, 429s, and how many edits were coalesced.
The fake's limits are on (Discord's). Figures go into docs/discord.md; tests never assert timings.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from collections import Counter

from fakes.clock import FakeClock
from fakes.discord_api import running_fake
from persistence.memory import MemoryStore
from tests.discord.rig import Rig, hand_over, open_table, play_until


def _kind(method: str, path: str) -> str:
    if path.endswith("/callback"):
        return "interaction callbacks"
    if "/webhooks/" in path:
        return "webhook edits" if method == "PATCH" else "follow-ups"
    if "/channels/" in path:
        return {"PATCH": "channel edits", "DELETE": "channel deletes"}.get(method, "channel posts")
    return "other"


async def bench(hands: int) -> None:
    waits: list[float] = []
    requests: Counter[str] = Counter()
    coalesced = edits = 0
    boots: list[float] = []
    clicks: list[tuple[str, int]] = []
    plays = limited = mentions = 0
    start = time.perf_counter()
    cpu = time.process_time()
    for _ in range(hands):
        async with running_fake() as fake:
            rig = Rig(fake, await MemoryStore.open(), FakeClock())
            t0 = time.perf_counter()
            await rig.boot()
            boots.append(time.perf_counter() - t0)
            await open_table(rig)
            await play_until(rig, lambda r=rig: hand_over(r))
            m = rig.table().match
            plays += sum(1 for a in m.actions if a.t == "play") if m is not None else 0
            await rig.shutdown()
            waits += [i.answered_at - i.created for i in fake.interactions.values() if i.answered_at is not None]
            requests += Counter(_kind(m, p) for m, p, _ in fake.requests)
            clicks += rig.clicks
            limited += fake.rate_limited
            stats = rig.runner.platform.stats()
            mentions += stats["mentions"]
            coalesced += stats["edits_coalesced"]
            edits += stats["edits_sent"]
    elapsed = time.perf_counter() - start
    cpu = time.process_time() - cpu
    waits.sort()
    print(f"hands: {hands}, wall time {elapsed:.1f} s ({elapsed / hands:.1f} s a hand)")
    print(f"start-up (login, /tractor registered, gateway ready, host started): "
          f"median {statistics.median(boots) * 1000:.0f} ms")
    print(f"interactions: {len(waits)}; answer wait median {statistics.median(waits) * 1000:.1f} ms, "
          f"p95 {waits[int(len(waits) * 0.95)] * 1000:.1f} ms, max {waits[-1] * 1000:.1f} ms (limit 3000 ms)")
    total = sum(requests.values())
    print(f"REST requests: {total} ({total / hands:.0f} a hand): "
          + ", ".join(f"{k} {v / hands:.0f}" for k, v in requests.most_common()))
    print(f"edits delivered {edits / hands:.0f} a hand, coalesced away {coalesced / hands:.0f} a hand")
    per_play = [n for t, n in clicks if t == "play"]
    print(f"plays: {plays}; clicks a play: mean {statistics.mean(per_play):.2f}, median "
          f"{statistics.median(per_play):.0f}, max {max(per_play)}; "
          f"{Counter(per_play).most_common()} (clicks, plays); bury: {[n for t, n in clicks if t == 'bury']}")
    print(f"REST requests a play: {total / plays:.2f}; 429s: {limited}; mentions: {mentions / hands:.0f} a hand; "
          f"CPU {cpu:.1f} s for {hands} hands (bot, fake and people in one process)")


if __name__ == "__main__":
    asyncio.run(bench(int(sys.argv[1]) if len(sys.argv) > 1 else 3))
