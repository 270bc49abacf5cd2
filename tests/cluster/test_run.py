"""`tractor-host run` as an operator runs a worker: PostgreSQL, Telegram, TRACTOR_HTTP; ready,
metrics, then SIGTERM (a deploy) hands its table over at once and the worker leaves.

Real time, because the worker is a process of its own (started, signalled and waited for as an
operator's supervisor does): the test sees it only through its endpoints, the fake server and the
database, so it asks them every few hundredths of a second until they show what it waits for."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import sys

import aiohttp
import asyncpg
import pytest

import engine
from fakes.telegram_api import FakeTelegram
from persistence.postgres import PostgresStore

pytestmark = pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def test_a_worker_serves_its_endpoints_and_hands_over_on_sigterm(pg_url: str) -> None:
    store = await PostgresStore.open(pg_url)
    rules = engine.preset("classic").to_dict()
    seats = [{"kind": "human", "user_id": str(100 + i), "name": f"P{i}"} for i in range(4)]
    match_id = await store.create_match("telegram", "-42", rules, seats, 7, {"preset": "classic"}, status="lobby")
    await store.close()
    fake = FakeTelegram()
    await fake.start()
    port = _free_port()
    env = {**os.environ, "TELEGRAM_BOT_TOKEN": fake.token, "TELEGRAM_API_BASE_URL": fake.api_root,
           "TRACTOR_DATABASE_URL": pg_url, "TRACTOR_WORKER": "w-run", "TRACTOR_HTTP": f"127.0.0.1:{port}"}
    env.pop("DISCORD_BOT_TOKEN", None)
    proc = await asyncio.create_subprocess_exec(sys.executable, "-m", "app.cli", "run", env=env,
                                                stderr=asyncio.subprocess.PIPE)
    try:
        async with aiohttp.ClientSession() as session:
            for _ in range(1500):
                try:
                    async with session.get(f"http://127.0.0.1:{port}/readyz") as r:
                        if r.status == 200 and (await r.json())["tables"] == 1:
                            break
                except aiohttp.ClientError:
                    pass
                await asyncio.sleep(0.02)
            else:
                raise AssertionError("the worker never became ready")
            async with session.get(f"http://127.0.0.1:{port}/metrics") as r:
                metrics = await r.text()
        assert "tractor_tables 1.0" in metrics and "tractor_workers 1.0" in metrics
        assert "tractor_telegram_api_calls_total" in metrics and "tractor_telegram_429_total 0.0" in metrics
        for _ in range(500):  # the only worker holds the long-polling role and polls
            if any(c.method == "getUpdates" for c in fake.calls) or fake.pending_polls:
                break
            await asyncio.sleep(0.02)
        else:
            raise AssertionError("nobody polls")
        conn = await asyncpg.connect(pg_url)
        try:
            assert await conn.fetchval("SELECT worker FROM leases WHERE match_id = $1", match_id) == "w-run"
            proc.send_signal(signal.SIGTERM)
            assert await asyncio.wait_for(proc.wait(), 30) == 0
            assert await conn.fetchval("SELECT count(*) FROM leases") == 0  # handed over at once
            assert await conn.fetchval("SELECT count(*) FROM workers") == 0  # and gone
        finally:
            await conn.close()
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
        await fake.stop()
