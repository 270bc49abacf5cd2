"""Four people play 80分 on Discord through the real discord.py client and the fake server."""

from __future__ import annotations

import pytest

from tests.discord.rig import Rig, hand_over, leaks, open_table, play_until


@pytest.mark.slow(20)
async def test_real_time_whole_hand_four_people_on_discord(real_time_rig: Rig) -> None:
    """A whole hand against the fake at Discord's own speed: every rate-limit window, `retry_after`
    and identify window in real seconds (the other Discord tests run them on a clock twenty times
    faster). It keeps real time on purpose, as the one whole-hand compliance test: the adapter's
    pacing (coalesced table edits, the channel's 5 writes in 5 s, a token's webhook) is checked
    against Discord's windows as they really pass. It waits on events only; its wall time is mostly
    the channel's window, as the bot's would be."""
    rig = real_time_rig
    fake = rig.fake
    await open_table(rig)
    table = rig.table()
    assert table.status == "active"
    await play_until(rig, lambda: hand_over(rig))

    m = table.match
    assert m is not None
    played = sum(len(a["cards"]) for a in m.actions_json() if a["t"] == "play")
    assert played == 100  # every card of the hand was played by a person through Discord
    assert {a["seat"] for a in m.actions_json() if a["t"] in ("play", "bury", "declare", "pass")} <= {0, 1, 2, 3}
    assert any(a["t"] == "bury" for a in m.actions_json())
    assert fake.unanswered() == []
    assert fake.protocol_errors == []
    assert rig.runner.inbound.errors == [] and rig.runner.client.errors == []
    assert leaks(fake) == []
    # the dealer chose 8 of 33 cards: more than one select menu holds (25 options each)
    assert max(msg.peak_selects for msg in fake.messages.values()) >= 2
    # hands were private: every message showing a selectable hand is seen by one person only
    for message in fake.messages.values():
        if message.selects():
            assert message.visible_to is not None and message.ephemeral
    # the table message stayed one message, edited in place
    tables = [msg for msg in fake.public_messages() if "My hand" in msg.text()]
    assert len(tables) <= 2  # hand 1 (and hand 2 once dealt)
    assert len(tables[0].history) >= 3  # edited in place, as often as the channel's rate limit allows
    # the client keeps to the limits the headers announce; a 429 is rare (a route's bucket not yet
    # learnt) and waited out, nothing lost
    assert fake.global_limited == 0 and fake.rate_limited <= 12, fake.limited_buckets

    # one or two clicks a play in the common case, and the bury in one (the AI's pick, accepted)
    plays = [n for t, n in rig.clicks if t == "play"]
    assert len(plays) == 100 - sum(len(a["cards"]) - 1 for a in m.actions_json() if a["t"] == "play")
    assert sorted(plays)[len(plays) // 2] <= 2 and sum(plays) / len(plays) <= 2.2, plays
    assert [n for t, n in rig.clicks if t == "bury"] == [1]
