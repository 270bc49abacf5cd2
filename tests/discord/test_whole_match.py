"""A whole match, four people, the strict fake: two restarts, every token dead once, a second channel."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from fakes.discord_api import FakeDiscord
from persistence.store import SqliteStore
from tests.discord.rig import ALICE, BOB, CAROL, DAVE, PEOPLE, NewRig, Rig, leaks, play_until


def _hands_done(rig: Rig) -> int:
    m = rig.table().match
    return 0 if m is None else int(m.public_view().get("hand_no", 1)) - 1


@pytest.mark.slow(6)
async def test_a_whole_match_with_restarts_expiry_and_a_second_channel(fake_discord: FakeDiscord,
                                                                        tmp_path: Path, new_rig: NewRig) -> None:
    fake = fake_discord
    path = str(tmp_path / "match.sqlite3")
    # the host's deals, seeded: a match of two hands, so the second restart comes between them (some
    # deals end a match to level 3 in one hand, and there would be no table to restart with)
    rig = await new_rig(await SqliteStore.open(path, synchronous="NORMAL"), rng=random.Random(2))
    other = fake.channel_id + 1  # the same people also talk to the bot in another channel

    await fake.slash(ALICE, "new", {"preset": "classic", "options": "target=3"})
    await rig.idle()
    for person in (BOB, CAROL, DAVE):
        await fake.slash(person, "join")
        await rig.idle()
    await fake.slash(ALICE, "start")  # typed, not pressed
    await rig.idle()
    table_id = rig.table().id

    async def restart() -> None:
        await rig.shutdown()
        await rig.store.close()
        rig.store = await SqliteStore.open(path, synchronous="NORMAL")
        await rig.boot()
        assert rig.table().id == table_id

    # play a while, talk in the other channel, restart mid-hand
    await play_until(rig, lambda: len(rig.table().match.actions) > 60, limit=2000)  # type: ignore[union-attr]
    for person in PEOPLE:
        await fake.slash(person, "help", channel_id=other)
    await rig.idle()
    await restart()
    # every token seen so far dies (15 minutes): people go on with the messages they have
    fake.advance(15 * 60 + 5)
    await play_until(rig, lambda: _hands_done(rig) >= 1 or len(rig.table().match.actions) > 200,  # type: ignore[union-attr]
                     limit=3000)
    await restart()
    await play_until(rig, lambda: not rig.host.tables or rig.table().status == "finished", limit=6000)
    stored = await rig.store.get_match(table_id)
    assert stored is not None and stored.status == "finished", stored.status if stored else None
    assert stored.result.get("winner_team") in (0, 1)
    for person in PEOPLE:  # no hand ever went to the other channel
        assert all(m.channel_id == fake.channel_id for m in fake.private_messages(person) if m.components)
    assert fake.unanswered() == [] and fake.wordless() == []  # every press left its person words
    assert fake.protocol_errors == []
    assert rig.runner.inbound.errors == [] and rig.runner.client.errors == []
    assert leaks(fake) == []
    assert fake.identified == 3  # two restarts
    await rig.shutdown()
    await rig.store.close()
