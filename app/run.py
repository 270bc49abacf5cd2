"""`tractor-host run`: one host, one store, and every platform that has a token.

A platform's client library is imported only when it has a token: a worker for one platform does not
pay for the other's (python-telegram-bot or discord.py, about half a second of CPU each at every start
and restart; worker processes that only need `drain` import this module too).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import random
import signal
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Protocol

from aiohttp import web

from adapters.discord.config import DiscordConfig
from adapters.telegram.config import TelegramConfig
from adapters.web.config import WebConfig
from app import collector
from app.features import build_host
from app.store import open_store
from app.web import Figures, Health, worker_app
from bot.cluster import Cluster, worker_name
from bot.platform import PlatformDown
from bot.shards import ShardKeeper
from persistence.postgres import PostgresStore
from persistence.sql_store import SqlStore

if TYPE_CHECKING:
    from adapters.telegram.run import TelegramRunner

log = logging.getLogger(__name__)


class Runner(Protocol):
    async def stop(self) -> None: ...


#: Seconds between two attempts to reach a platform that could not be reached: doubling from the
#: first to the last, each with up to a fifth more at random (workers restarted together spread out).
RETRY_FIRST = 1.0
RETRY_LAST = 60.0


async def run_bots(db: str | None) -> int:
    """Starts every platform with a token (`tractor-host run` with one set; with none it is the
    terminal table, app/cli.py).

    A platform that refuses its token ends the start (CredentialsRefused, exit status 2 from the
    command line: no restart helps). One that cannot be reached is tried again in the background,
    with a one-line warning each time, while the rest runs."""
    telegram_config = TelegramConfig.from_env()
    discord_config = DiscordConfig.from_env()
    store = await open_store(db, worker=worker_name())
    host = build_host(store)
    # On PostgreSQL every process is a worker among possibly several: it drives the tables it holds.
    cluster = Cluster(host, store, store.cluster()) if isinstance(store, PostgresStore) else None
    started: list[Runner] = []
    background: list[asyncio.Task[None]] = []
    fatal: asyncio.Future[BaseException] = asyncio.get_running_loop().create_future()
    web_config = WebConfig.from_env()
    # One aiohttp Application for the process: health, readiness and metrics, and the web table's
    # routes when it is on (then on its port), else on $TRACTOR_HTTP.
    figures: Figures = {}
    health = Health()
    app = worker_app(host, store if isinstance(store, SqlStore) else None, cluster, figures, health)
    http = await serve_http(app) if web_config is None else None
    telegram: TelegramRunner | None = None
    keepers: list[ShardKeeper] = []
    try:
        if web_config is not None:  # the web table: links in the chats only with a public address
            from adapters.web.server import WebTable

            web_table = WebTable(host, web_config)
            if web_config.public_url:
                host.live.links = web_table
            web_table.add_routes(app)
            await web_table.start(app)
            started.append(web_table)
        # several workers on one database share Telegram's flood budgets through it
        ledger = store.flood_ledger() if isinstance(store, PostgresStore) else None
        if telegram_config is not None:
            from adapters.telegram.run import TelegramRunner

            telegram = TelegramRunner(telegram_config, host, ledger=ledger)
            figures.update(telegram_figures(telegram))
            host.register(telegram.platform)
        discord_runner = None
        if discord_config is not None:
            from adapters.discord.run import DiscordRunner

            # several workers: each runs the shards it holds, identifies paced across all of them
            discord_runner = DiscordRunner(host, discord_config,
                                           identify_gate=cluster.identify_gate if cluster else None)
        # the Discord runner registered its platform on the host when it was built
        # First attempts before the tables start: a refused token ends the start here.
        telegram_up = telegram is not None and await _reached(telegram.connect)
        discord_up = discord_runner is not None and await _reached(discord_runner.login)
        if cluster is not None:
            await cluster.start()  # takes its share of the tables
        else:
            await host.start()
        collector.tune()  # after resuming: what is loaded now stays for the process's life

        async def telegram_listen() -> None:
            assert telegram is not None
            await telegram.set_menus(host.registry)  # the "/" menu in each language, from the commands
            if cluster is not None and telegram.config.mode != "webhook":
                # long polling: one worker polls, the others wait to take over; updates reach every table's owner
                await cluster.when_holding("telegram-polling", telegram.listen)
            else:
                await telegram.listen()  # a webhook: every worker behind the one URL takes updates
            await telegram.until_refused()  # a token revoked while running ends the process (exit 2)

        async def discord_open() -> None:
            assert discord_runner is not None
            if cluster is not None:
                keeper = ShardKeeper(cluster, discord_runner)
                await keeper.start()
                keepers.append(keeper)
            else:
                await discord_runner.open_gateway()

        if telegram is not None:
            started.append(telegram)
            background.append(_background("telegram", fatal, telegram.connect, telegram_up, telegram_listen))
        if discord_runner is not None:
            started.append(discord_runner)
            background.append(_background("discord", fatal, discord_runner.login, discord_up, discord_open))
        await _until_stopped(fatal)
    finally:
        await drain(health, background, telegram, keepers, cluster, started)
        if http is not None:
            await http.cleanup()
        await host.stop()
        await store.close()
    return 0


async def drain(health: Health, background: list[asyncio.Task[None]], telegram: TelegramRunner | None,
                 keepers: list[ShardKeeper], cluster: Cluster | None, started: list[Runner]) -> None:
    """A clean stop (SIGTERM: a deploy, a supervisor), in the order that leaves no table undriven:

    1. /readyz says no (a proxy sends nothing new here) and no update is taken any more: the
       webhook answers 503, polling stops, Discord's shards close and are given up; the updates
       in hand are stored and confirmed.
    2. Every table goes to the other workers at once (`Cluster.release`): they take them at the
       beat it triggers, well within a second, while this worker still has messages to send.
    3. Only then the drain: the messages queued for the platforms go out (Telegram's up to 10 s).
    """
    health.drain()
    for task in background:
        task.cancel()
    if telegram is not None:
        with contextlib.suppress(Exception):
            await telegram.stop_taking()
    for keeper in keepers:
        with contextlib.suppress(Exception):
            await keeper.stop()  # its shards closed and given up at once
    if cluster is not None:
        with contextlib.suppress(Exception):
            await cluster.release()
    for runner in started:
        with contextlib.suppress(Exception):
            await runner.stop()
    if cluster is not None:
        await cluster.stop()


async def _reached(connect: Callable[[], Awaitable[None]]) -> bool:
    """One attempt to reach a platform: True when it answered; False (with a one-line warning) when
    it could not be reached. A refused token is raised: the start ends."""
    try:
        await connect()
    except PlatformDown as exc:
        log.warning("%s; trying again in %.0f s", exc, RETRY_FIRST)
        return False
    return True


def _background(name: str, fatal: asyncio.Future[BaseException], connect: Callable[[], Awaitable[None]],
                connected: bool, then: Callable[[], Awaitable[None]]) -> asyncio.Task[None]:
    """Reaches the platform (unless `connected`), retrying with backoff, then runs `then` (listen,
    open the gateway). A refused token, or anything else `then` raises, ends the process."""

    async def run() -> None:
        delay, up = RETRY_FIRST, connected
        try:
            while not up:
                await asyncio.sleep(delay * (1 + random.random() / 5))
                delay = min(delay * 2, RETRY_LAST)
                try:
                    await connect()
                except PlatformDown as exc:
                    log.warning("%s; trying again in %.0f s", exc, delay)
                    continue
                log.info("%s: reached", name)
                up = True
            await then()
        except asyncio.CancelledError:
            raise
        except BaseException as exc:
            if not fatal.done():
                fatal.set_result(exc)

    return asyncio.create_task(run(), name=f"{name}-start")


def telegram_figures(telegram: TelegramRunner) -> Figures:
    """The Bot API calls the outboxes made and the 429s Telegram answered, for /metrics."""
    stats = telegram.platform.outboxes.stats
    return {
        "tractor_telegram_api_calls": ("Bot API calls that send or change messages",
                                       lambda: float(sum(stats.by_method.values()))),
        "tractor_telegram_429": ("Bot API calls Telegram refused with 429 (retry_after)",
                                 lambda: float(stats.retry_after)),
        "tractor_telegram_updates_not_taken": ("Telegram updates not confirmed because they could not be"
                                               " stored (Telegram sends them again)",
                                               lambda: float(telegram.intake.stats.failed)),
        "tractor_telegram_oldest_update_seconds": ("Age of the oldest Telegram update in hand",
                                                   telegram.intake.oldest),
    }


async def _until_stopped(fatal: asyncio.Future[BaseException]) -> None:
    """Runs until SIGTERM (a supervisor's stop, a deploy) or SIGINT: the `finally` above then hands
    this worker's tables over at once instead of leaving them to wait for their leases to run out.
    Should a platform's start fail in the background (`fatal`), that is raised instead."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    stopped, failed = asyncio.ensure_future(stop.wait()), asyncio.ensure_future(_settled(fatal))
    try:
        await asyncio.wait([stopped, failed], return_when=asyncio.FIRST_COMPLETED)
    finally:
        stopped.cancel()
        failed.cancel()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.remove_signal_handler(sig)
    if fatal.done():
        raise fatal.result()


async def _settled(future: asyncio.Future[BaseException]) -> bool:
    await asyncio.shield(future)
    return True


async def serve_http(app: web.Application) -> web.AppRunner | None:
    """Serves the worker's endpoints (app/web.py) at $TRACTOR_HTTP ("host:port", e.g.
    127.0.0.1:8080); nothing when it is not set."""
    where = os.environ.get("TRACTOR_HTTP", "")
    if not where:
        return None
    address, _, port = where.rpartition(":")
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    await web.TCPSite(runner, address or "0.0.0.0", int(port)).start()
    return runner
