"""The fake gateway shards as Discord does: each guild's events to its shard's session, identifies paced."""

from __future__ import annotations

import asyncio
import json
import math
from typing import Any

import aiohttp
import discord

from fakes.discord_api import FakeDiscord, FakeUser, running_fake

OTHER_GUILD, OTHER_CHANNEL = (1 << 22) + 7, 9200  # (guild_id >> 22) % 2 == 1
ALICE = FakeUser(201, "alice")


class Seen(discord.Client):
    def __init__(self, **options: Any) -> None:
        super().__init__(intents=discord.Intents(guilds=True), chunk_guilds_at_startup=False,
                         guild_ready_timeout=0.05, **options)
        self.interactions: list[int] = []

    async def on_interaction(self, interaction: discord.Interaction[Any]) -> None:
        self.interactions.append(interaction.id)
        await interaction.response.defer()

    async def before_identify_hook(self, shard_id: int | None, *, initial: bool = False) -> None:
        await asyncio.sleep(0)  # the test paces identifies itself


async def connect(fake: FakeDiscord, client: discord.Client) -> asyncio.Task[None]:
    await client.login(fake.token)
    task = asyncio.create_task(client.connect(reconnect=True))
    await asyncio.wait_for(client.wait_until_ready(), 20)
    return task


async def test_each_guild_reaches_only_its_shard_and_dms_shard_zero(fake_discord: FakeDiscord) -> None:
    fake = fake_discord
    fake.shard_count = 2
    fake.add_guild(OTHER_GUILD, OTHER_CHANNEL)
    with fake.pointed_at():
        async with aiohttp.ClientSession() as http, http.get(
                fake.api_base + "/gateway/bot", headers={"Authorization": "Bot fake-token"}) as r:
            info = await r.json()
        assert info["shards"] == 2 and info["session_start_limit"]["max_concurrency"] == 1
        zero, one = Seen(shard_id=0, shard_count=2), Seen(shard_id=1, shard_count=2)
        tasks = [await connect(fake, zero)]
        fake.identify_window = 0.0  # the test's own pacing: both shards at once
        tasks.append(await connect(fake, one))
        try:
            assert [g.id for g in zero.guilds] == [fake.guild_id] and [g.id for g in one.guilds] == [OTHER_GUILD]
            here = await fake.interact(ALICE, 3, {"custom_id": "a", "component_type": 2})
            there = await fake.interact(ALICE, 3, {"custom_id": "a", "component_type": 2},
                                        channel_id=OTHER_CHANNEL)
            dm = await fake.interact(ALICE, 3, {"custom_id": "a", "component_type": 2}, guild_id=0)
            assert zero.interactions == [here.id, dm.id] and one.interactions == [there.id]
            assert fake.live_shards() == [(0, 2), (1, 2)] and fake.shard_overlaps == 0

            await one.close()  # shard 1 is gone: its guild's events are lost, as on Discord
            await fake.until(lambda: fake.live_shards() == [(0, 2)], "shard 1's session closed")
            lost = await fake.interact(ALICE, 3, {"custom_id": "a", "component_type": 2},
                                       channel_id=OTHER_CHANNEL, wait=False)
            assert [d["id"] for _, d in fake.undelivered] == [str(lost.id)] and fake.unanswered() == [lost]
        finally:
            for client in (zero, one):
                await client.close()
            await asyncio.gather(*tasks, return_exceptions=True)


async def raw_identify(fake: FakeDiscord, shard: list[int]) -> tuple[aiohttp.ClientSession, Any, dict[str, Any]]:
    http = aiohttp.ClientSession()
    ws = await http.ws_connect(fake.gateway_url)
    await ws.receive_json()  # HELLO
    await ws.send_json({"op": 2, "d": {"token": fake.token, "intents": 1, "properties": {}, "shard": shard}})
    msg = await ws.receive()
    first = json.loads(msg.data) if msg.type == aiohttp.WSMsgType.TEXT else {"close": ws.close_code}
    return http, ws, first


async def test_identify_is_paced_and_a_bad_shard_is_refused() -> None:
    """Discord's clock stands still here (only `advance` would move it): the second identify comes
    within the first's 5 s however slow the machine."""
    async with running_fake(scale=math.inf) as fake:
        await _identifies(fake)


async def _identifies(fake: FakeDiscord) -> None:
    fake.shard_count = fake.required_shards = 2
    opened = []
    try:
        for shard, expected in (([0, 2], "READY"), ([1, 2], 9), ([2, 2], 4010), ([0, 1], 4011)):
            http, ws, first = await raw_identify(fake, shard)
            opened.append((http, ws))
            got = first.get("t") or first.get("op") or first.get("close")
            assert got == expected, (shard, first)
        assert fake.identify_refused == 1 and fake.session_starts == 1  # within 5 s of the first
        fake.max_concurrency = 2  # a large bot's buckets: shard 1 is in the other one
        http, ws, first = await raw_identify(fake, [1, 2])
        opened.append((http, ws))
        assert first["t"] == "READY" and first["d"]["shard"] == [1, 2]
        fake.identify_window = 0.0
        http, ws, first = await raw_identify(fake, [1, 2])  # Discord allows it: the fake counts it
        opened.append((http, ws))
        assert first["t"] == "READY" and fake.shard_overlaps == 1
    finally:
        for http, ws in opened:
            await ws.close()
            await http.close()
