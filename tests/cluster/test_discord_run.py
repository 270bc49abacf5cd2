"""`tractor-host run` workers sharing Discord's shards as real processes: the second takes a share,
a SIGKILLed one's shard is taken over, a SIGTERMed one gives its shards up at once."""

from __future__ import annotations

import asyncio
import os
import signal
import sys

import asyncpg

from fakes.discord_api import FakeDiscord, running_fake
from tests.cluster.discord_shop import wait_for

GUILD_B, CHANNEL_B = (1 << 22) + 9, 9200  # shard 1 of 2


async def worker(fake: FakeDiscord, pg_url: str, name: str) -> asyncio.subprocess.Process:
    env = {**os.environ, "DISCORD_BOT_TOKEN": fake.token, "DISCORD_API_BASE": fake.api_base,
           "DISCORD_GATEWAY_URL": fake.gateway_url, "DISCORD_SHARD_COUNT": "2",
           "TRACTOR_DATABASE_URL": pg_url, "TRACTOR_WORKER": name}
    for key in ("TELEGRAM_BOT_TOKEN", "TRACTOR_HTTP", "TRACTOR_WEB_PORT"):
        env.pop(key, None)
    return await asyncio.create_subprocess_exec(sys.executable, "-m", "app.cli", "run", env=env)


async def test_worker_processes_share_the_shards_and_take_a_killed_ones_over(pg_url: str) -> None:
    both = [(0, 2), (1, 2)]
    async with running_fake() as fake:
        fake.shard_count = 2
        fake.add_guild(GUILD_B, CHANNEL_B)
        a = await worker(fake, pg_url, "w-a")
        b: asyncio.subprocess.Process | None = None
        try:
            await wait_for(lambda: fake.live_shards() == both, 90, "w-a runs both shards")
            b = await worker(fake, pg_url, "w-b")
            # w-a is above its share (1 of 2) for 10 beats, gives one shard up, w-b takes it
            await wait_for(lambda: fake.session_starts == 3 and fake.live_shards() == both, 90, "w-b takes one")

            await asyncio.sleep(6)  # past w-b's identify window: what follows is detection and connecting
            a.send_signal(signal.SIGKILL)
            await a.wait()
            await wait_for(lambda: len(fake.live_shards()) == 1, 10, "w-a's session closed")
            took = await wait_for(lambda: fake.live_shards() == both, 60, "w-b takes w-a's shard over")
            print(f"\nshard taken over {took:.2f} s after the kill's socket closed")

            b.send_signal(signal.SIGTERM)
            assert await asyncio.wait_for(b.wait(), 30) == 0
            await wait_for(lambda: fake.live_shards() == [], 10, "w-b's sessions closed")
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
