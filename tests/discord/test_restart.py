"""The bot process restarts mid-hand: buttons drawn by the old process still work, the hand goes on."""

from __future__ import annotations

from pathlib import Path

from fakes.clock import FakeClock
from fakes.discord_api import FakeDiscord
from persistence.store import SqliteStore
from tests.discord.rig import PEOPLE, Rig, hand_over, leaks, open_table, play_until


def cards_played(rig: Rig) -> int:
    m = rig.table().match
    assert m is not None
    return sum(len(a["cards"]) for a in m.actions_json() if a["t"] == "play")


async def test_restart_mid_hand_and_play_on(fake_discord: FakeDiscord, tmp_path: Path) -> None:
    fake = fake_discord
    path = str(tmp_path / "tractor.sqlite3")
    rig = Rig(fake, await SqliteStore.open(path, synchronous="NORMAL"), FakeClock())
    fake.observer = rig.observe
    await rig.boot()
    await open_table(rig)
    await play_until(rig, lambda: cards_played(rig) >= 20)
    before = rig.table().match
    assert before is not None and before.phase == "playing"
    version = before.version
    table_message = rig.table_message()

    await rig.shutdown()  # the process goes away; the database file (and Discord) stay
    await rig.store.close()
    rig.store = await SqliteStore.open(path, synchronous="NORMAL")
    await rig.boot()
    assert fake.identified == 2
    after = rig.table().match
    assert after is not None and after.version == version and after.phase == "playing"
    assert rig.table_message() is table_message  # the same table message, re-rendered in place

    # someone presses "My hand" on the message the old process drew: the new one answers it
    person = next(p for p in PEOPLE if rig.table().seat_of(str(p.id)) is not None)
    before_mine = len(fake.private_messages(person))
    pressed = await fake.click(person, table_message, "My hand")
    await rig.idle()
    assert pressed.callback_type == 5 and pressed.ephemeral_reply
    mine = fake.private_messages(person)
    assert len(mine) == before_mine + 1 and "hand 1" in mine[-1].content

    await play_until(rig, lambda: hand_over(rig))
    assert cards_played(rig) == 100
    assert fake.unanswered() == []
    assert fake.protocol_errors == []
    assert rig.runner.inbound.errors == [] and rig.runner.client.errors == []
    assert leaks(fake) == []
    await rig.shutdown()
    await rig.store.close()
