"""`tractor-host run`: one host, one store, and every platform that has a token."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from collections.abc import Sequence
from typing import Protocol

from adapters.discord.config import DiscordConfig
from adapters.discord.run import DiscordRunner
from adapters.telegram.config import TelegramConfig
from adapters.telegram.run import TelegramRunner
from adapters.web.config import WebConfig
from adapters.web.server import WebTable
from app import collector
from app.console import play_console
from app.store import open_store
from bot.host import Host


class Runner(Protocol):
    async def stop(self) -> None: ...


async def run_bots(db: str | None, *, fresh: bool = False, options: Sequence[str] = (),
                   again: str = "make run") -> int:
    """Starts every platform with a token; with none, the terminal table."""
    telegram_config = TelegramConfig.from_env()
    discord_config = DiscordConfig.from_env()
    store = await open_store(db)
    if telegram_config is None and discord_config is None:
        try:
            return await play_console(store, fresh=fresh, inp=sys.stdin, out=sys.stdout,
                                      lang=os.environ.get("TRACTOR_LANG"), options=list(options), again=again)
        finally:
            await store.close()
    host = Host(store)
    started: list[Runner] = []
    web_config = WebConfig.from_env()
    try:
        if web_config is not None:  # the web table: links in the chats only with a public address
            web = WebTable(host, web_config)
            if web_config.public_url:
                host.live.links = web
            await web.start()
            started.append(web)
        telegram = TelegramRunner(telegram_config, host) if telegram_config is not None else None
        if telegram is not None:
            host.register(telegram.platform)
            await telegram.connect()
        discord_runner = DiscordRunner(host, discord_config) if discord_config is not None else None
        await host.start()  # the Discord runner registered its platform on the host when it was built
        collector.tune()  # after resuming: what is loaded now stays for the process's life
        if telegram is not None:
            await telegram.listen()
            started.append(telegram)
        if discord_runner is not None:
            await discord_runner.start()
            started.append(discord_runner)
        await asyncio.Event().wait()
    finally:
        for runner in started:
            with contextlib.suppress(Exception):
                await runner.stop()
        await host.stop()
        await store.close()
    return 0
