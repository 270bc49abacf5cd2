"""The turn is seen and felt: a live countdown on the table, a mention for whose turn it is, an opt-out."""

from __future__ import annotations

import re

from bot.settings import TableSettings
from tests.discord.rig import PEOPLE, Rig, leaks, open_table, play_until, to_act

MENTION = re.compile(r"<@(\d+)>")


def _mentioned(rig: Rig) -> list[int]:
    """Everyone named by the bot's mention messages, in order (deleted ones too: they notified)."""
    out: list[int] = []
    for message in rig.fake.messages.values():
        if message.public and "<@" in message.history[0] and "⏰" not in message.history[0]:
            out += [int(u) for u in MENTION.findall(message.history[0])]
    return out


async def test_countdown_mentions_and_opt_out(rig: Rig) -> None:
    fake = rig.fake
    rig.host.defaults = TableSettings(turn=60, bury=90, declare=30, deal=0, next=30, lobby=0, ai_budget=0.05)
    await open_table(rig)
    quiet = PEOPLE[1]
    answered = await fake.slash(quiet, "ping", {"mode": "off"})
    assert "no longer" in answered.callback_data.get("content", "") or answered.callback_type == 5
    # people act the moment they can, faster than a mention goes out (a turn that passed is never
    # announced): they stop where someone who did not opt out must act, and the mention naming them
    # goes out at the latest when everything queued does
    await play_until(rig, lambda: rig.table().match is not None and rig.table().match.phase == "playing"
                     and len(rig.table().match.actions) > 40 and bool(to_act(rig) - {quiet.id}))
    await rig.settled()
    table_text = rig.table_message().content
    assert re.search(r"<t:\d+:R>", table_text), table_text  # Discord counts it down by itself
    assert "s left" not in table_text  # no fixed seconds that go stale
    named = _mentioned(rig)
    assert named, "nobody was told it was their turn"
    assert quiet.id not in named  # asked to be left alone
    assert set(named) <= {p.id for p in PEOPLE}
    # one mention message at a time in the channel: the older ones were removed
    live = [m for m in fake.channel_messages() if "<@" in m.content and "⏰" not in m.content]
    assert len(live) <= 1
    assert fake.global_limited == 0 and fake.protocol_errors == [] and leaks(fake) == []
