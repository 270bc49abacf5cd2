"""Discord's shards spread over workers on one PostgreSQL: two guilds on two shards, a hand played at
each through the real discord.py client, a worker killed, its shards and table taken over.

Workers run in this process (each its own store, host, cluster link and discord.py clients); a kill
ends a worker's database sessions and gateway sockets at once, as the kernel does for a killed
process, and its table actors stop without a word. They beat when the test says (discord_shop): the
takeover is counted in the survivor's beats.
"""

from __future__ import annotations

import pytest

from tests.cluster.discord_shop import (
    CHANNEL_A,
    CHANNEL_B,
    Shop,
    db_clock,
    done,
    guild_rig,
    observe,
    open_table,
    pg_server,
    pg_url,
    play,
    played,
    shop,
)
from tests.discord.rig import leaks

__all__ = ["db_clock", "pg_server", "pg_url", "shop"]


@pytest.mark.slow(15)
async def test_two_workers_share_the_shards_and_a_killed_ones_are_taken_over(shop: Shop) -> None:
    fake = shop.fake
    w1 = await shop.start("w1")  # alone: runs both shards
    await fake.until(lambda: fake.live_shards() == [(0, 2), (1, 2)], "both shards up", 30)
    assert w1.keeper.held == {0, 1}
    rigs = [guild_rig(shop, CHANNEL_A), guild_rig(shop, CHANNEL_B)]
    fake.observer = lambda: observe(shop, rigs)
    for rig in rigs:
        await open_table(rig)
    assert all(r.owner() is w1 for r in rigs)

    # a second worker takes its share of the tables; the shards stay with w1, so one table is driven
    # by w2 while its interactions reach w1's shard and go on to w2 through the inbox
    w2 = await shop.start("w2")
    await shop.beat_until(lambda: {r.owner().name for r in rigs if r.owner()} == {"w1", "w2"}, "tables shared")
    await play(rigs, lambda r: played(r) >= 12)
    assert w2.keeper.held == set() and w1.cluster.stats.forwarded > 0 and w2.cluster.stats.received > 0

    # w1 dies (it runs both shards and drives a table); w2 takes the shards and the table over
    await rigs[0].idle()
    w1_sessions = fake.live_sessions()
    await shop.kill(w1)
    # w1's own sessions: w2 may identify for a shard within a fraction of a second, so "no session at
    # all" is a moment this loop can miss
    await fake.until(lambda: not w1_sessions & fake.live_sessions(), "w1's gateway sessions closed", 10)
    back: dict[str, int] = {}  # what w2 took over, at which of its beats since the kill
    beats = 0

    def note() -> bool:
        for shard in fake.live_shards():
            if shard[0] in w2.keeper.held:  # connected and ready
                back.setdefault(f"shard {shard[0]}", beats)
        if all(r.owner() is w2 for r in rigs):
            back.setdefault("table", beats)
        return len(back) == 3

    while not note():
        assert beats < 3, f"after {beats} beats only {back} taken over"  # the life lock: at the next beat
        await shop.beat()
        beats += 1
    assert w2.keeper.held == {0, 1}
    print("\ntaken over at w2's beat:", dict(sorted(back.items())))

    await play(rigs, done)
    for rig in rigs:
        assert played(rig) == 100  # every card of each hand played by a person through Discord
    assert fake.unanswered() == [] and fake.undelivered == []
    assert fake.protocol_errors == [] and fake.shard_overlaps == 0
    assert fake.identify_refused == 0  # the workers paced their identifies together
    for w in shop.workers:
        assert w.runner.inbound.errors == [] and w.runner.client.errors == []
    assert leaks(fake) == []
