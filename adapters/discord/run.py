"""Starting and stopping the Discord adapter inside a running event loop (the CLI and tests alike).

    runner = DiscordRunner(host, DiscordConfig.from_env())
    await runner.start()   # logs in, registers /tractor, connects the gateway
    ...
    await runner.stop()

With several workers (bot.shards) each runs only the shards it holds: `login()` alone (REST: the
commands, the platform's messages), then `start_shard(k)` / `stop_shard(k)` as shards come and go,
one discord.py client a shard (`shard_id`, `shard_count`), all feeding the same inbound side.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

import aiohttp
import discord
import discord.gateway
import discord.http
import yarl

from adapters.discord.client import IdentifyGate, TractorClient
from adapters.discord.config import DEFAULT_API_BASE, DEFAULT_GATEWAY, DiscordConfig
from adapters.discord.dm import Journal
from adapters.discord.inbound import HostLike, Inbound
from adapters.discord.pings import PING_GAP
from adapters.discord.platform import DiscordPlatform
from bot.commands import Registry
from bot.platform import CredentialsRefused, PlatformDown

log = logging.getLogger(__name__)

#: Seconds a stop waits for the interactions in hand to be answered before it closes the HTTP
#: session (Discord takes an interaction's first answer for 3 s).
IDLE_ON_STOP = 3.0


class DiscordRunner:
    """One bot connection: the client, the host's platform on it, and the inbound side."""

    def __init__(self, host: Any, config: DiscordConfig, *, ready_timeout: float = 60.0,
                 identify_gate: IdentifyGate | None = None, commands: Registry | None = None) -> None:
        """`commands`: the slash commands' registry, the host's own (`Host.registry`) unless given."""
        self.host = host
        self.commands: Registry = commands if commands is not None else host.registry
        self.config = config
        self.ready_timeout = ready_timeout
        self.identify_gate = identify_gate
        self.shard_count = config.shard_count
        self.max_concurrency = 1  # identifies a 5-second window (session_start_limit)
        self.shards: dict[int, tuple[TractorClient, asyncio.Task[None]]] = {}
        self._retired: list[TractorClient] = []
        self.client = TractorClient(commands=self.commands, guild_ids=config.guild_ids,
                                    sync_commands=config.sync_commands, guild_ready_timeout=0.05,
                                    scale=config.scale)
        self.platform = DiscordPlatform(self.client, edit_interval=config.edit_interval * config.scale,
                                        ping_gap=PING_GAP * config.scale)
        self.platform.dm.journal = self._journal(host)
        self.platform.tickets.journal = self.platform.dm.journal
        self.inbound = Inbound(self._host_like(host), self.platform)
        self.client.inbound = self.inbound
        self._task: asyncio.Task[None] | None = None
        self._saved: tuple[str, yarl.URL] | None = None
        if hasattr(host, "register"):
            host.register(self.platform)

    @staticmethod
    def _host_like(host: Any) -> HostLike:
        return host  # type: ignore[no-any-return]

    @staticmethod
    def _journal(host: Any) -> Journal | None:
        """The host keeps the DM choices when it has a journal (a bot.host.Host; test doubles may not)."""
        return host if callable(getattr(host, "update_journal", None)) else None

    def _point(self) -> None:
        """discord.py has no per-client API address: set the module's, and put it back on stop."""
        if self._saved is not None or (self.config.api_base == DEFAULT_API_BASE
                                       and self.config.gateway_url == DEFAULT_GATEWAY):
            return
        self._saved = (discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY)
        discord.http.Route.BASE = self.config.api_base.rstrip("/")
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(self.config.gateway_url)

    async def start(self) -> None:
        """Logs in, registers the commands, connects; returns once the gateway session is ready."""
        await self.login()
        await self.open_gateway()

    async def open_gateway(self) -> None:
        """After `login`: connects the gateway (all shards, one client); returns once it is ready."""
        self._task = asyncio.create_task(self.client.connect(reconnect=True), name="discord-gateway")
        if not await self._until_ready(self.client, self._task):
            await self.stop()
            raise RuntimeError("discord gateway not ready in time")
        log.info("discord: connected as %s", self.client.user)

    async def login(self) -> None:
        """REST alone: logs in, registers the commands; the platform may speak from now on. The
        number of shards is fixed here (Discord's recommendation unless configured).

        :raises CredentialsRefused: Discord refused the token (wrong or reset).
        :raises PlatformDown: Discord could not be reached (worth trying again later).
        """
        self._point()
        await self.platform.dm.load()  # who asked for their hand by DM, before a restart
        try:
            await self.client.login(self.config.token)
            recommended, _, limit = await self.client.http.get_bot_gateway()
        except discord.LoginFailure:
            await self._close_http()
            raise CredentialsRefused("discord", "Discord refused the token in DISCORD_BOT_TOKEN (wrong or reset);"
                                     " copy the current one from the Developer Portal (your application, Bot,"
                                     " Reset Token) and start again") from None
        except (OSError, aiohttp.ClientError, TimeoutError, discord.DiscordServerError) as exc:
            await self._close_http()
            raise PlatformDown("discord", f"{type(exc).__name__}: {exc}") from None
        self.platform.ready.set()
        self.max_concurrency = max(1, int(limit.get("max_concurrency", 1)))
        if self.shard_count < 1:
            self.shard_count = recommended

    async def _close_http(self) -> None:
        """After a failed login: its HTTP session closed with its connector, so that the next
        attempt opens new ones (discord.py would reuse the closed connector)."""
        await self.client.http.close()
        self.client.http.connector = discord.utils.MISSING

    async def _until_ready(self, client: discord.Client, task: asyncio.Task[None]) -> bool:
        ready = asyncio.ensure_future(client.wait_until_ready())
        done, _ = await asyncio.wait({ready, task}, timeout=self.ready_timeout,
                                     return_when=asyncio.FIRST_COMPLETED)
        if ready in done:
            return True
        ready.cancel()
        if task in done and task.exception() is not None:
            raise RuntimeError("discord gateway failed") from task.exception()
        return False

    async def start_shard(self, shard_id: int) -> None:
        """Connects one shard of the bot's gateway; returns once its session is ready."""
        gate = self.identify_gate

        async def paced(sid: int) -> None:  # Discord's rate-limit bucket of this shard's identify
            if gate is not None:
                await gate(sid % self.max_concurrency)

        client = TractorClient(commands=self.commands, sync_commands=False, guild_ready_timeout=0.05,
                               shard_id=shard_id, shard_count=self.shard_count,
                               identify_gate=paced if gate else None, scale=self.config.scale)
        client.inbound = self.inbound
        await client.login(self.config.token)
        task = asyncio.create_task(client.connect(reconnect=True), name=f"discord-shard-{shard_id}")
        self.shards[shard_id] = (client, task)
        try:
            ok = await self._until_ready(client, task)
        except BaseException:
            await self.stop_shard(shard_id)
            raise
        if not ok:
            await self.stop_shard(shard_id)
            raise RuntimeError(f"discord shard {shard_id} not ready in time")
        log.info("discord: shard %s of %s connected", shard_id, self.shard_count)

    async def stop_shard(self, shard_id: int) -> None:
        """Closes the shard's gateway session but keeps its HTTP session until `stop`: the tokens of
        interactions it received (hand messages to edit) stay usable after the shard moves on."""
        found = self.shards.pop(shard_id, None)
        if found is None:
            return
        client, task = found
        task.cancel()
        with contextlib.suppress(Exception, asyncio.CancelledError):
            await task
        if client.ws is not None:
            with contextlib.suppress(Exception):
                await client.ws.close(code=1000)
        self._retired.append(client)

    async def idle(self) -> None:
        """Waits until interactions in hand are handed over and queued edits are out (tests)."""
        await self.inbound.idle()
        await self.platform.flush()

    async def stop(self) -> None:
        # the interactions in hand are answered first: closing the session under one that is
        # still being answered fails it (and its clean-up) on a closed connector
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.inbound.idle(), IDLE_ON_STOP)
        if self.platform.ready.is_set():
            await self.platform.flush()  # never logged in: nothing queued can go out, drop it
        await self.platform.outbox.close()
        await self.platform.said.close()
        await self.platform.pings.close()
        for shard_id in list(self.shards):
            await self.stop_shard(shard_id)
        for client in self._retired:
            await client.close()
        self._retired.clear()
        await self.client.close()
        if self._task is not None:
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await self._task
            self._task = None
        if self._saved is not None:
            discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = self._saved
            self._saved = None
