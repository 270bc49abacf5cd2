"""The table message: one message edited in place, bursts coalesced, Discord's limits kept."""

from __future__ import annotations

import asyncio

from adapters.discord.config import DiscordConfig
from adapters.discord.run import DiscordRunner
from bot.platform import Button, Incoming, View, Where
from fakes.discord_api import FakeDiscord, running_fake
from tests.discord.rig import ALICE, full_registry


class NoHost:
    registry = full_registry()

    async def handle(self, event: Incoming) -> None:
        """This test speaks to the platform directly."""


async def test_a_burst_of_updates_is_coalesced_into_a_few_edits() -> None:
    """Discord's 5 writes per 5 s in a channel and the adapter's usual pause between edits, both on a
    clock ten times faster than Discord's."""
    async with running_fake(scale=0.1) as fake:
        await _burst(fake)


async def _burst(fake_discord: FakeDiscord) -> None:
    config = DiscordConfig(token=fake_discord.token, api_base=fake_discord.api_base,
                           gateway_url=fake_discord.gateway_url, edit_interval=0.5, scale=fake_discord.scale)
    runner = DiscordRunner(NoHost(), config, ready_timeout=10)
    await runner.start()
    try:
        platform = runner.platform
        where = Where("discord", str(fake_discord.channel_id))
        table = await platform.send(where, View("trick 0", ((Button("My hand", "1.1.0.h..00"),),)))
        for i in range(1, 41):  # 40 plays in quick succession, each re-rendering the table
            await platform.edit(where, table, View(f"trick {i}", ((Button("My hand", "1.1.0.h..00"),),)))
            if i % 10 == 0:
                await asyncio.sleep(fake_discord.real(0.1))  # a tenth of a Discord second between bursts
        await platform.edit(where, table, View("trick 40", ((Button("My hand", "1.1.0.h..00"),),)))  # same
        await runner.idle()
        message = fake_discord.messages[int(table)]
        assert message.content == "trick 40"
        assert len(message.history) <= 6  # a handful of edits carried 40 updates
        assert platform.stats()["edits_coalesced"] >= 30
        assert [m for m in fake_discord.channel_messages()] == [message]  # one message, edited in place
        assert fake_discord.protocol_errors == []
    finally:
        await runner.stop()


async def test_a_rate_limited_edit_is_retried(fake_discord: FakeDiscord) -> None:
    config = DiscordConfig(token=fake_discord.token, api_base=fake_discord.api_base,
                           gateway_url=fake_discord.gateway_url, edit_interval=0.0, scale=fake_discord.scale)
    runner = DiscordRunner(NoHost(), config, ready_timeout=10)
    await runner.start()
    try:
        where = Where("discord", str(fake_discord.channel_id))
        table = await runner.platform.send(where, View("v0"))
        # another process of the bot spent the channel's bucket: this one learns it from a 429
        fake_discord.spend(f"channel{fake_discord.channel_id}")
        await runner.platform.edit(where, table, View("v1"))
        await runner.idle()
        assert fake_discord.rate_limited >= 1  # Discord said 429; the client waited and tried again
        assert fake_discord.messages[int(table)].content == "v1"
    finally:
        await runner.stop()


async def test_the_gateway_resumes_after_a_reconnect_request(fake_discord: FakeDiscord) -> None:
    class Echo:
        def __init__(self) -> None:
            self.events: list[Incoming] = []

        async def handle(self, event: Incoming) -> None:
            self.events.append(event)
            if event.reply is not None:
                await event.reply.notice(f"got {event.name}")

    host = Echo()
    config = DiscordConfig(token=fake_discord.token, api_base=fake_discord.api_base,
                           gateway_url=fake_discord.gateway_url, edit_interval=0.0,
                           scale=fake_discord.scale)
    runner = DiscordRunner(host, config, ready_timeout=10, commands=full_registry())
    await runner.start()
    try:
        await fake_discord.ask_reconnect()
        assert fake_discord.resumed == 1 and fake_discord.identified == 1  # resumed, not a new session
        answered = await fake_discord.slash(ALICE, "help")
        assert answered.callback_data["content"] == "got help"
    finally:
        await runner.stop()


async def test_a_deleted_table_message_comes_back(fake_discord: FakeDiscord) -> None:
    config = DiscordConfig(token=fake_discord.token, api_base=fake_discord.api_base,
                           gateway_url=fake_discord.gateway_url, edit_interval=0.0,
                           scale=fake_discord.scale)
    runner = DiscordRunner(NoHost(), config, ready_timeout=10)
    await runner.start()
    try:
        where = Where("discord", str(fake_discord.channel_id))
        table = await runner.platform.send(where, View("v0"))
        fake_discord.messages[int(table)].deleted = True  # a moderator removed it
        await runner.platform.edit(where, table, View("v1"))
        await runner.idle()
        await runner.platform.edit(where, table, View("v2"))  # the host still knows the old id
        await runner.idle()
        (shown,) = fake_discord.channel_messages()
        assert shown.id != int(table) and shown.content == "v2" and len(shown.history) == 2
    finally:
        await runner.stop()
