"""Issue 29, finding 11: a table lives in a thread, with the permissions the README asks for.

The fake gives the bot exactly the permission integer of the README's invite link: a post in a
thread needs Send Messages in Threads (1 << 38), and without it Discord answers 403, 50013."""

from __future__ import annotations

import re
from pathlib import Path

from fakes.discord_api import SEND_IN_THREADS, FakeDiscord
from persistence.memory import MemoryStore
from tests.discord.rig import PEOPLE, NewRig, Rig, leaks, open_table, play_until

README = Path(__file__).resolve().parents[2] / "README.md"
THREAD = 9200


def invite_permissions() -> int:
    """The permission integer of the README's invite link (it must match the number written beside it)."""
    text = README.read_text(encoding="utf-8")
    (link,) = set(re.findall(r"discord\.com/oauth2/authorize\?\S*permissions=(\d+)", text))
    assert f"(`{link}`)" in text, "the README's invite link and the integer it names differ"
    return int(link)


async def test_a_table_plays_in_a_thread_with_the_readmes_permissions(fake_discord: FakeDiscord,
                                                                     new_rig: NewRig) -> None:
    fake = fake_discord
    fake.bot_permissions = invite_permissions()
    assert fake.bot_permissions & SEND_IN_THREADS
    fake.add_thread(THREAD)
    fake.channel_id = THREAD  # the people use the thread: commands, buttons, hands
    rig: Rig = await new_rig(await MemoryStore.open())
    await open_table(rig)
    await play_until(rig, lambda: rig.table().match is not None and rig.table().match.phase == "playing")
    assert rig.table().chat_id == str(THREAD)
    assert all(m.channel_id == THREAD for m in fake.messages.values() if m.public)
    for person in PEOPLE:
        hand = rig.hand_message(person)
        assert hand is not None and hand.channel_id == THREAD
    assert fake.protocol_errors == [] and fake.unanswered() == []
    assert rig.runner.inbound.errors == [] and rig.runner.client.errors == []
    assert leaks(fake) == []
    await rig.shutdown()
