"""Issue 20 item 4: Telegram in webhook mode with two workers behind one URL, through the real client.

The test stands in for Telegram's webhook delivery behind a load balancer: it takes each update
from the fake Bot API server and posts it, with the webhook's secret, to one of the two workers'
webhook servers at random. Every update must reach its table's owner once, and a button press
received by the other worker must be answered (by that worker, with the owner's words) once.
Telegram's limits run on the rig's fast clock (fakes/telegram_rig.py), the fake's and the adapter's alike.
"""

from __future__ import annotations

import random
import socket
from dataclasses import dataclass
from typing import Any

import aiohttp
import pytest

from adapters.telegram.config import FloodLimits, TelegramConfig
from adapters.telegram.run import TelegramRunner
from app.features import build_host
from bot.cluster import Cluster
from bot.host import Host
from fakes.telegram_api import FakeTelegram
from fakes.telegram_rig import RIG_LIMITS, RIG_SCALE, HandledOrder
from persistence.postgres import PostgresStore
from tests.cluster.conftest import until
from tests.host.conftest import FAST

pytestmark = pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")

SECRET = "webhook-secret-1"
GROUP = -100_500
USERS = [71, 72, 73, 74]


@dataclass
class TgWorker:
    host: Host
    store: PostgresStore
    runner: TelegramRunner
    cluster: Cluster
    port: int

    async def stop(self) -> None:
        await self.runner.stop()
        await self.cluster.stop()
        await self.host.stop()
        await self.store.close()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def _worker(fake: FakeTelegram, url: str, name: str) -> TgWorker:
    store = await PostgresStore.open(url, synchronous="OFF", worker=name)
    host = build_host(store, defaults=FAST, use_ai_threads=False, rng=random.Random(5))
    port = _free_port()
    config = TelegramConfig(token=fake.token, api_base_url=fake.api_root, mode="webhook",
                            webhook_url="https://bot.example/telegram", webhook_listen="127.0.0.1",
                            webhook_port=port, webhook_secret=SECRET, limits=FloodLimits(scale=RIG_SCALE))
    runner = TelegramRunner(config, host, order=HandledOrder())
    host.register(runner.platform)
    await runner.connect()
    cluster = Cluster(host, store, store.cluster(), beat=3600)
    await cluster.start()
    await runner.listen()
    return TgWorker(host, store, runner, cluster, port)


class Balancer:
    """Telegram's webhook delivery through a load balancer: each update to one worker at random."""

    def __init__(self, fake: FakeTelegram, workers: list[TgWorker], session: aiohttp.ClientSession) -> None:
        self.fake, self.workers, self.session = fake, workers, session
        self.offset = 0
        self.rng = random.Random(11)
        self.to: dict[int, int] = {}  # update id -> the worker index it went to

    async def deliver(self, *, to: int | None = None) -> None:
        async with self.session.post(f"{self.fake.api_root}/bot{self.fake.token}/getUpdates",
                                     json={"offset": self.offset, "timeout": 0}) as r:
            updates: list[dict[str, Any]] = (await r.json())["result"]
        for update in updates:
            k = self.rng.randrange(len(self.workers)) if to is None else to
            self.to[update["update_id"]] = k
            async with self.session.post(f"http://127.0.0.1:{self.workers[k].port}/telegram", json=update,
                                         headers={"X-Telegram-Bot-Api-Secret-Token": SECRET}) as r:
                assert r.status == 200
            self.offset = update["update_id"] + 1


async def test_two_workers_behind_one_webhook_url(pg_url: str) -> None:
    fake = FakeTelegram(limits=RIG_LIMITS)
    await fake.start()
    fake.add_group(GROUP)
    for uid in USERS:
        fake.add_user(uid, f"P{uid}", opened=True)
    workers: list[TgWorker] = []
    try:
        workers = [await _worker(fake, pg_url, "w1"), await _worker(fake, pg_url, "w2")]
        assert fake.webhook == "https://bot.example/telegram"
        async with aiohttp.ClientSession() as session:
            lb = Balancer(fake, workers, session)
            fake.command(USERS[0], GROUP, "/new classic")
            await lb.deliver()
            await until(lambda: any(w.host.tables for w in workers))
            for uid in USERS[1:]:
                fake.command(uid, GROUP, "/join")
            await lb.deliver()
            owner = next(w for w in workers if w.host.tables)
            other = next(w for w in workers if w is not owner)
            table = next(iter(owner.host.tables.values()))
            await until(lambda: all(table.seat_of(str(u)) is not None for u in USERS), 10)
            fake.command(USERS[0], GROUP, "/start")
            await lb.deliver()
            await until(lambda: table.match is not None and table.match.phase != "dealing", 20)
            assert not other.host.tables  # one table, driven by one worker

            # a press on a private hand, delivered to the worker that does not drive the table
            def buttons() -> list[tuple[int, int, str]]:
                return [(chat, mid, data) for (chat, mid) in list(fake.messages)
                        for data in fake.callback_data_on(chat, mid)]

            await until(lambda: bool(buttons()), 10)
            chat, mid, data = buttons()[-1]
            presser = chat if chat in USERS else USERS[0]
            _, query_id = fake.press(presser, chat, mid, data)
            await lb.deliver(to=workers.index(other))
            await until(lambda: query_id in fake.callback_answers, 10)
            assert other.cluster.stats.forwarded >= 1 and owner.cluster.stats.received >= 1
            for w in workers:  # every press answered or given up on: no answer can follow
                await w.runner.inbound.settle()
                await w.host.settle()
            answers = [c for c in fake.calls if c.method == "answerCallbackQuery"
                       and str(c.params.get("callback_query_id")) == query_id]
            assert len(answers) == 1 and answers[0].ok
            assert fake.callback_answers[query_id]["text"]  # the owner's words, not the empty deadline answer
            for w in workers:
                assert w.runner.inbound.errors == []
            assert not [c for c in fake.calls if c.status == 429]
    finally:
        for w in workers:
            await w.stop()
        await fake.stop()
