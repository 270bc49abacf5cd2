"""`/tractor dm on` holds across workers: the choice reaches the worker that drives the person's
table, though another worker received the command, and two workers writing choices at once both
land. Through the real discord.py client, two workers on one throwaway PostgreSQL.
"""

from __future__ import annotations

import asyncio

from adapters.discord.dm import DmChoices
from adapters.discord.texts import text
from tests.cluster.discord_shop import (
    CHANNEL_A,
    CHANNEL_B,
    PEOPLE,
    Shop,
    db_clock,
    guild_rig,
    observe,
    open_table,
    pg_server,
    pg_url,
    shop,
)
from tests.discord.rig import leaks

__all__ = ["db_clock", "pg_server", "pg_url", "shop"]


async def test_a_dm_choice_made_through_one_worker_reaches_the_owner_of_the_table(shop: Shop) -> None:
    fake = shop.fake
    await shop.start("w1")  # runs both shards: every interaction reaches w1 first
    await fake.until(lambda: fake.live_shards() == [(0, 2), (1, 2)], "both shards up", 30)
    rigs = [guild_rig(shop, CHANNEL_A), guild_rig(shop, CHANNEL_B)]
    fake.observer = lambda: observe(shop, rigs)
    for rig in rigs:
        await open_table(rig)
    w2 = await shop.start("w2")  # logs in (reads the DM choices) before anyone asks for DMs
    await shop.beat_until(lambda: {r.owner().name for r in rigs if r.owner()} == {"w1", "w2"}, "tables shared")
    rig = next(r for r in rigs if r.owner() is w2)
    person = PEOPLE[rig.channel][2]
    await rig.idle()
    assert not [m for m in fake.private_messages(person) if m.via == "dm"]

    answer = await fake.slash(person, "dm", {"mode": "on"}, channel_id=rig.channel)
    await rig.idle()
    assert answer.ephemeral_reply  # answered by w1, which holds the shard; w2 drives the table

    pressed = await fake.click(person, rig.table_message(), "My hand")
    await rig.idle()
    dms = [m for m in fake.private_messages(person) if m.via == "dm"]
    assert dms and person.name in dms[-1].content, "the hand went out as an ephemeral message"
    assert fake.messages[pressed.original_id or 0].content == text("en", "dm_sent")
    assert fake.unanswered() == [] and fake.protocol_errors == [] and leaks(fake) == []
    for w in shop.workers:
        assert w.runner.inbound.errors == [] and w.runner.client.errors == []


async def test_choices_written_at_once_by_two_workers_both_land(shop: Shop) -> None:
    w1, w2 = await shop.start("w1"), await shop.start("w2")
    choices = [DmChoices(w.host) for w in (w1, w2)]
    await asyncio.gather(*(choices[uid % 2].choose(uid, True) for uid in range(1, 21)))
    await choices[0].choose(3, False)
    for c in choices:
        await c.load()
        assert c.users == set(range(1, 21)) - {3}
