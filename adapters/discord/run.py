"""Starting and stopping the Discord adapter inside a running event loop (the CLI and tests alike).

    runner = DiscordRunner(host, DiscordConfig.from_env())
    await runner.start()   # logs in, registers /tractor, connects the gateway
    ...
    await runner.stop()
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

import discord
import discord.gateway
import discord.http
import yarl

from adapters.discord.client import TractorClient
from adapters.discord.config import DEFAULT_API_BASE, DEFAULT_GATEWAY, DiscordConfig
from adapters.discord.inbound import HostLike, Inbound
from adapters.discord.platform import DiscordPlatform

log = logging.getLogger(__name__)


class DiscordRunner:
    """One bot connection: the client, the host's platform on it, and the inbound side."""

    def __init__(self, host: Any, config: DiscordConfig, *, ready_timeout: float = 60.0) -> None:
        self.host = host
        self.config = config
        self.ready_timeout = ready_timeout
        self.client = TractorClient(guild_ids=config.guild_ids, sync_commands=config.sync_commands,
                                    guild_ready_timeout=0.05)
        self.platform = DiscordPlatform(self.client, edit_interval=config.edit_interval)
        self.inbound = Inbound(self._host_like(host), self.platform)
        self.client.inbound = self.inbound
        self._task: asyncio.Task[None] | None = None
        self._saved: tuple[str, yarl.URL] | None = None
        if hasattr(host, "register"):
            host.register(self.platform)

    @staticmethod
    def _host_like(host: Any) -> HostLike:
        return host  # type: ignore[no-any-return]

    def _point(self) -> None:
        """discord.py has no per-client API address: set the module's, and put it back on stop."""
        if self.config.api_base == DEFAULT_API_BASE and self.config.gateway_url == DEFAULT_GATEWAY:
            return
        self._saved = (discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY)
        discord.http.Route.BASE = self.config.api_base.rstrip("/")
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(self.config.gateway_url)

    async def start(self) -> None:
        """Logs in, registers the commands, connects; returns once the gateway session is ready."""
        self._point()
        await self.client.login(self.config.token)
        self.platform.ready.set()
        self._task = asyncio.create_task(self.client.connect(reconnect=True), name="discord-gateway")
        ready = asyncio.ensure_future(self.client.wait_until_ready())
        done, _ = await asyncio.wait({ready, self._task}, timeout=self.ready_timeout,
                                     return_when=asyncio.FIRST_COMPLETED)
        if ready not in done:
            ready.cancel()
            await self.stop()
            if self._task in done and self._task.exception() is not None:
                raise RuntimeError("discord gateway failed") from self._task.exception()
            raise RuntimeError("discord gateway not ready in time")
        log.info("discord: connected as %s", self.client.user)

    async def idle(self) -> None:
        """Waits until interactions in hand are handed over and queued edits are out (tests)."""
        await self.inbound.idle()
        await self.platform.flush()

    async def stop(self) -> None:
        if self.platform.ready.is_set():
            await self.platform.flush()  # never logged in: nothing queued can go out, drop it
        await self.platform.outbox.close()
        await self.platform.pings.close()
        await self.client.close()
        if self._task is not None:
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await self._task
            self._task = None
        if self._saved is not None:
            discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = self._saved
            self._saved = None
