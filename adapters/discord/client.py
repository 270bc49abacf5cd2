"""The discord.py client: slash commands, persistent component items, and a net for stray presses."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys
from collections.abc import Awaitable, Callable
from typing import Any

import discord
from discord import app_commands

from adapters.discord.commands import CatalogTranslator, groups
from adapters.discord.components import (
    CardSelect,
    HostButton,
    PlaySelect,
    drawn_on,
    interaction_data,
    is_ours,
)
from adapters.discord.inbound import Inbound
from adapters.discord.pace import CHANNEL_WRITES, ChannelPace
from adapters.discord.private import Recent
from bot.commands import Registry

#: Waits for this shard's turn to IDENTIFY (Discord's limit is the whole bot's, across workers).
IdentifyGate = Callable[[int], Awaitable[None]]
#: Discord seconds between two identifies of one bucket (discord.py's own wait before identifying again).
IDENTIFY_WAIT = 5.0

log = logging.getLogger(__name__)

# The bot never joins a voice channel: discord.py's start-up warnings that voice would need PyNaCl
# and davey are about a feature it does not use, and an operator would look for a fault in them.
discord.VoiceClient.warn_nacl = False
discord.VoiceClient.warn_dave = False


class TractorClient(discord.Client):
    """Needs no privileged intent: everything arrives as interactions."""

    inbound: Inbound

    def __init__(self, *, commands: Registry, guild_ids: tuple[int, ...] = (), sync_commands: bool = True,
                 identify_gate: IdentifyGate | None = None, scale: float = 1.0, **options: Any) -> None:
        """`commands`: the host's registry, whose group commands become `/tractor` and `/league`."""
        options.setdefault("intents", discord.Intents(guilds=True))
        options.setdefault("chunk_guilds_at_startup", False)
        super().__init__(**options)
        self.identify_gate = identify_gate
        # every write to a channel's messages within the channel's limit, before discord.py knows it
        self.pace = ChannelPace(CHANNEL_WRITES[0], CHANNEL_WRITES[1] * scale)
        self.http.request = self.pace.wrap(self.http.request)  # type: ignore[method-assign,assignment]
        self.identify_wait = IDENTIFY_WAIT * scale  # real seconds (DiscordConfig.scale)
        # Each interaction's payload as it came, for a worker that drives its table to answer it
        # (discord.py keeps only the parsed object): the parser is wrapped, no other way in.
        self.raw_interactions: Recent[int, dict[str, Any]] = Recent(2_000)
        # ... and when it was read (the loop's clock): Discord's 3 s run from before that, so the
        # adapter counts its budget from there, not from whenever its loop gets to the interaction
        self.received_at: Recent[int, float] = Recent(2_000)
        parse = self._connection.parsers["INTERACTION_CREATE"]

        def keep(data: dict[str, Any]) -> None:
            self.raw_interactions[int(data["id"])] = data
            self.received_at[int(data["id"])] = asyncio.get_running_loop().time()
            parse(data)

        self._connection.parsers["INTERACTION_CREATE"] = keep
        self.tree = app_commands.CommandTree(self)
        for group in groups(commands):
            self.tree.add_command(group)
        self.tree.on_error = self._on_tree_error  # type: ignore[method-assign]
        self.guild_ids = guild_ids
        self.sync_commands = sync_commands
        self.errors: list[BaseException] = []

    async def setup_hook(self) -> None:
        """Registers the persistent items (presses work for messages sent before a restart) and the commands."""
        self.add_dynamic_items(HostButton, CardSelect, PlaySelect)
        if not self.sync_commands:
            return
        await self.tree.set_translator(CatalogTranslator())
        if self.guild_ids:
            for gid in self.guild_ids:
                guild = discord.Object(gid)
                self.tree.copy_global_to(guild=guild)
                await self.tree.sync(guild=guild)
        else:
            await self.tree.sync()

    async def before_identify_hook(self, shard_id: int | None, *, initial: bool = False) -> None:
        """With several workers, identifies are paced across all of them (`identify_gate`); alone, as
        discord.py does, 5 s before identifying again (on the adapter's clock)."""
        if self.identify_gate is not None:
            await self.identify_gate(shard_id or 0)
        elif not initial:
            await asyncio.sleep(self.identify_wait)

    async def on_interaction(self, interaction: discord.Interaction[Any]) -> None:
        """Components discord.py would drop silently (unknown custom_id) still get an answer."""
        if interaction.type is not discord.InteractionType.component:
            return
        custom_id = str(interaction_data(interaction).get("custom_id", ""))
        if not is_ours(custom_id) or not drawn_on(interaction.message, custom_id):
            await self.inbound.refuse_unknown(interaction)

    async def _on_tree_error(self, interaction: discord.Interaction[Any],
                             error: app_commands.AppCommandError) -> None:
        log.error("discord: command failed", exc_info=error)
        self.errors.append(error)
        if not interaction.response.is_done():
            with contextlib.suppress(discord.HTTPException):
                await interaction.response.send_message(str(getattr(error, "message", "")) or "✗", ephemeral=True)

    async def on_error(self, event_method: str, /, *args: Any, **kwargs: Any) -> None:
        log.exception("discord: error in %s", event_method)
        exc = sys.exc_info()[1]
        if exc is not None:
            self.errors.append(exc)
