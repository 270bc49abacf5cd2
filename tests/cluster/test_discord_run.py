"""`tractor-host run` workers sharing Discord's shards as real processes: the second takes a share,
a SIGKILLed one's shard is taken over, a SIGTERMed one gives its shards up at once.

It keeps real time: the workers are `tractor-host run` as deployed, with their real beats, leases
and identify pace, so the fake keeps Discord's clock at real speed too. It waits on the fake's
events (sessions, identifies), never for a fixed time."""

from __future__ import annotations

import asyncio
import os
import signal
import sys

import asyncpg
import pytest

from bot.cluster import IDENTIFY_PACE
from fakes.discord_api import FakeDiscord, running_fake

GUILD_B, CHANNEL_B = (1 << 22) + 9, 9200  # shard 1 of 2


async def worker(fake: FakeDiscord, pg_url: str, name: str) -> asyncio.subprocess.Process:
    env = {**os.environ, "DISCORD_BOT_TOKEN": fake.token, "DISCORD_API_BASE": fake.api_base,
           "DISCORD_GATEWAY_URL": fake.gateway_url, "DISCORD_SHARD_COUNT": "2",
           "TRACTOR_DATABASE_URL": pg_url, "TRACTOR_WORKER": name}
    for key in ("TELEGRAM_BOT_TOKEN", "TRACTOR_HTTP", "TRACTOR_WEB_PORT"):
        env.pop(key, None)
    return await asyncio.create_subprocess_exec(sys.executable, "-m", "app.cli", "run", env=env)


@pytest.mark.slow(27)
async def test_worker_processes_share_the_shards_and_take_a_killed_ones_over(pg_url: str) -> None:
    both = [(0, 2), (1, 2)]
    async with running_fake() as fake:
        fake.shard_count = 2
        fake.add_guild(GUILD_B, CHANNEL_B)
        a = await worker(fake, pg_url, "w-a")
        b: asyncio.subprocess.Process | None = None
        try:
            await fake.until(lambda: fake.live_shards() == both, "w-a runs both shards", 90)
            b = await worker(fake, pg_url, "w-b")
            # w-a is above its share (1 of 2) for 10 beats, gives one shard up, w-b takes it
            await fake.until(lambda: fake.session_starts == 3 and fake.live_shards() == both, "w-b takes one", 90)

            # past w-b's identify pace (from its identify, as the fake saw it): what follows is
            # detection and connecting
            await asyncio.sleep(max(0.0, IDENTIFY_PACE - (fake.since_identify(0) or 0.0)))
            a.send_signal(signal.SIGKILL)
            await a.wait()
            await fake.until(lambda: len(fake.live_shards()) == 1, "w-a's session closed", 10)
            closed = asyncio.get_running_loop().time()
            await fake.until(lambda: fake.live_shards() == both, "w-b takes w-a's shard over", 60)
            took = asyncio.get_running_loop().time() - closed
            print(f"\nshard taken over {took:.2f} s after the kill's socket closed")

            b.send_signal(signal.SIGTERM)
            assert await asyncio.wait_for(b.wait(), 30) == 0
            await fake.until(lambda: fake.live_shards() == [], "w-b's sessions closed", 10)
            conn = await asyncpg.connect(pg_url)
            try:
                assert await conn.fetchval("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'") == 0
            finally:
                await conn.close()
            assert fake.identify_refused == 0 and fake.shard_overlaps == 0 and fake.protocol_errors == []
        finally:
            for proc in (a, b):
                if proc is not None and proc.returncode is None:
                    proc.kill()
                    await proc.wait()
