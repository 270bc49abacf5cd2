"""The bot process restarts mid-hand: buttons drawn by the old process still work, the hand goes on,
and what people chose (a hand by DM, no mentions) still holds."""

from __future__ import annotations

import re
from pathlib import Path

from adapters.discord.texts import text
from fakes.discord_api import FakeDiscord
from persistence.store import SqliteStore
from tests.discord.rig import (
    BOB,
    CAROL,
    PEOPLE,
    NewRig,
    Rig,
    hand_over,
    leaks,
    open_table,
    play_until,
    to_act,
)


def cards_played(rig: Rig) -> int:
    m = rig.table().match
    assert m is not None
    return sum(len(a["cards"]) for a in m.actions_json() if a["t"] == "play")


async def test_restart_mid_hand_and_play_on(fake_discord: FakeDiscord, tmp_path: Path, new_rig: NewRig) -> None:
    fake = fake_discord
    path = str(tmp_path / "tractor.sqlite3")
    rig = await new_rig(await SqliteStore.open(path, synchronous="NORMAL"))
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
    before_mine = {m.id for m in fake.private_messages(person)}
    pressed = await fake.click(person, table_message, "My hand")
    await rig.idle()
    assert pressed.callback_type == 5 and pressed.ephemeral_reply
    mine = fake.private_messages(person)
    assert mine[-1].id not in before_mine and "hand 1" in mine[-1].content
    # the hand drawn before the restart is gone: the token that can remove it outlived the process
    assert [m.id for m in mine if m.components] == [mine[-1].id]

    await play_until(rig, lambda: hand_over(rig))
    assert cards_played(rig) == 100
    assert fake.unanswered() == []
    assert fake.protocol_errors == []
    assert rig.runner.inbound.errors == [] and rig.runner.client.errors == []
    assert leaks(fake) == []
    await rig.shutdown()
    await rig.store.close()


async def _restart(rig: Rig, path: str) -> None:
    await rig.shutdown()  # the process goes away; the database file (and Discord) stay
    await rig.store.close()
    rig.store = await SqliteStore.open(path, synchronous="NORMAL")
    await rig.boot()


def _dms(fake: FakeDiscord) -> list[str]:
    return [m.content for m in fake.private_messages(CAROL) if m.via == "dm"]


async def test_dm_and_ping_choices_survive_a_restart(fake_discord: FakeDiscord, tmp_path: Path, new_rig: NewRig) -> None:
    fake = fake_discord
    path = str(tmp_path / "tractor.sqlite3")
    rig = await new_rig(await SqliteStore.open(path, synchronous="NORMAL"))
    await fake.slash(CAROL, "dm", {"mode": "on"})
    await open_table(rig)
    await fake.slash(BOB, "ping", {"mode": "off"})
    await play_until(rig, lambda: rig.table().match is not None and rig.table().match.phase == "playing")
    assert _dms(fake)

    await _restart(rig, path)
    first_new = max(fake.messages) + 1
    before = len(_dms(fake))
    pressed = await fake.click(CAROL, rig.table_message(), "My hand")
    await rig.idle()
    assert fake.messages[pressed.original_id or 0].content == "手牌已通过私信发送。"  # "sent by DM"
    assert len(_dms(fake)) == before + 1 and "carol" in _dms(fake)[-1]

    # people act the moment they can, faster than a mention goes out (a turn that passed is never
    # announced): they stop where someone who did not opt out must act, and the mention naming them
    # goes out at the latest when everything queued does
    await play_until(rig, lambda: cards_played(rig) >= 12 and bool(to_act(rig) - {BOB.id}))
    await rig.settled()
    turn_words = (text("en", "your_turn"), text("en", "your_turn_untimed"))
    turn_lines = [line for m in fake.messages.values() if m.id >= first_new and m.public
                  for line in m.history[0].splitlines() if any(w in line for w in turn_words)]
    named = [int(u) for line in turn_lines for u in re.findall(r"<@(\d+)>", line)]
    assert named, "nobody was told it was their turn after the restart"
    assert BOB.id not in named  # still left alone
    assert fake.unanswered() == [] and fake.protocol_errors == [] and leaks(fake) == []
    await rig.shutdown()
    await rig.store.close()
