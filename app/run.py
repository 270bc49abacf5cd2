"""`tractor-host run`: one host, one store, and every platform that has a token."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from collections.abc import Sequence
from typing import Protocol

from aiohttp import web

from adapters.discord.config import DiscordConfig
from adapters.discord.run import DiscordRunner
from adapters.telegram.config import TelegramConfig
from adapters.telegram.run import TelegramRunner
from adapters.web.config import WebConfig
from adapters.web.server import WebTable
from app import collector
from app.console import play_console
from app.features import build_host
from app.store import open_store
from app.web import Figures, worker_app
from bot.cluster import Cluster, worker_name
from bot.shards import ShardKeeper
from persistence.postgres import PostgresStore
from persistence.sql_store import SqlStore


class Runner(Protocol):
    async def stop(self) -> None: ...


async def run_bots(db: str | None, *, fresh: bool = False, options: Sequence[str] = (),
                   again: str = "make run", lang: str | None = None, preset: str = "classic",
                   daily: bool = False) -> int:
    """Starts every platform with a token; with none, the terminal table (`lang`, `preset`, `daily`
    are the table's, as `console` takes them)."""
    telegram_config = TelegramConfig.from_env()
    discord_config = DiscordConfig.from_env()
    bots = telegram_config is not None or discord_config is not None
    store = await open_store(db, worker=worker_name() if bots else None)
    if telegram_config is None and discord_config is None:
        try:
            return await play_console(store, fresh=fresh, inp=sys.stdin, out=sys.stdout,
                                      lang=lang or os.environ.get("TRACTOR_LANG"), options=list(options),
                                      again=again, preset=preset, daily=daily)
        finally:
            await store.close()
    host = build_host(store)
    # On PostgreSQL every process is a worker among possibly several: it drives the tables it holds.
    cluster = Cluster(host, store, store.cluster()) if isinstance(store, PostgresStore) else None
    started: list[Runner] = []
    roles: list[asyncio.Task[None]] = []
    web_config = WebConfig.from_env()
    # One aiohttp Application for the process: health, readiness and metrics, and the web table's
    # routes when it is on (then on its port), else on $TRACTOR_HTTP.
    figures: Figures = {}
    app = worker_app(host, store if isinstance(store, SqlStore) else None, cluster, figures)
    http = await serve_http(app) if web_config is None else None
    try:
        if web_config is not None:  # the web table: links in the chats only with a public address
            web_table = WebTable(host, web_config)
            if web_config.public_url:
                host.live.links = web_table
            web_table.add_routes(app)
            await web_table.start(app)
            started.append(web_table)
        # several workers on one database share Telegram's flood budgets through it
        ledger = store.flood_ledger() if isinstance(store, PostgresStore) else None
        telegram = TelegramRunner(telegram_config, host, ledger=ledger) if telegram_config is not None else None
        if telegram is not None:
            figures.update(telegram_figures(telegram))
            host.register(telegram.platform)
            await telegram.connect()
            await telegram.set_menus(host.registry)  # the "/" menu in each language, from the commands
        discord_runner = None
        if discord_config is not None:
            # several workers: each runs the shards it holds, identifies paced across all of them
            discord_runner = DiscordRunner(host, discord_config,
                                           identify_gate=cluster.identify_gate if cluster else None)
        # the Discord runner registered its platform on the host when it was built
        if cluster is not None:
            await cluster.start()  # takes its share of the tables
        else:
            await host.start()
        collector.tune()  # after resuming: what is loaded now stays for the process's life
        if telegram is not None and cluster is not None and telegram.config.mode != "webhook":
            # long polling: one worker polls, the others wait to take over; updates reach every table's owner
            started.append(telegram)
            roles.append(asyncio.create_task(cluster.when_holding("telegram-polling", telegram.listen)))
        elif telegram is not None:
            await telegram.listen()  # a webhook: every worker behind the one URL takes updates
            started.append(telegram)
        if discord_runner is not None and cluster is not None:
            await discord_runner.login()
            started.append(discord_runner)
            keeper = ShardKeeper(cluster, discord_runner)
            await keeper.start()
            started.insert(0, keeper)  # stopped first: its shards closed and given up at once
        elif discord_runner is not None:
            await discord_runner.start()
            started.append(discord_runner)
        await _until_stopped()
    finally:
        for task in roles:
            task.cancel()
        if http is not None:
            await http.cleanup()
        for runner in started:
            with contextlib.suppress(Exception):
                await runner.stop()
        if cluster is not None:
            await cluster.stop()  # hands its tables over at once
        await host.stop()
        await store.close()
    return 0


def telegram_figures(telegram: TelegramRunner) -> Figures:
    """The Bot API calls the outboxes made and the 429s Telegram answered, for /metrics."""
    stats = telegram.platform.outboxes.stats
    return {
        "tractor_telegram_api_calls": ("Bot API calls that send or change messages",
                                       lambda: float(sum(stats.by_method.values()))),
        "tractor_telegram_429": ("Bot API calls Telegram refused with 429 (retry_after)",
                                 lambda: float(stats.retry_after)),
    }


async def _until_stopped() -> None:
    """Runs until SIGTERM (a supervisor's stop, a deploy) or SIGINT: the `finally` above then hands
    this worker's tables over at once instead of leaving them to wait for their leases to run out."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    try:
        await stop.wait()
    finally:
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.remove_signal_handler(sig)


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
