"""The table never waits for the channel's rate limit before drawing the next turn (issue 29's turn lag).

An announcement ("… buried the kitty") is a channel message, and a channel takes 5 writes in 5 s.
When the channel's window is spent, the announcement waits it out; the hands of the next turn must
not wait with it. Measured over a whole match before the fix: turn lag p99 5.0 s, one channel
window (`tests/discord/bench_match.py`).

The scene is set on the fast clock; the moment watched runs at Discord's own speed (`rescale(0.4)`),
so the announcement waits a real window (2 s at 0.4) while the test waits on events: the hand drawn first."""

from __future__ import annotations

from adapters.discord.components import PLAYS_PREFIX
from bot.intents.types import BurySelection, PlayCards
from fakes.discord_api import FakeDiscord, FakeMessage
from tests.discord.rig import FAST, PEOPLE, Rig, leaks, open_table, play_until, to_act, token_of


def _offers_plays(message: FakeMessage | None) -> bool:
    if message is None:
        return False
    buttons = any(isinstance(tok[1], PlayCards) for b in message.buttons()
                  if (tok := token_of(str(b.get("custom_id", "")))) is not None)
    return buttons or any(str(s["custom_id"]).startswith(PLAYS_PREFIX) for s in message.selects())


async def test_the_next_turn_is_drawn_while_an_announcement_waits_for_the_channel(rig: Rig) -> None:
    fake: FakeDiscord = rig.fake
    await open_table(rig)
    await play_until(rig, lambda: rig.table().match.phase == "burying")  # type: ignore[union-attr]
    await rig.settled()
    (burier,) = [p for p in PEOPLE if p.id in to_act(rig)]
    hand = rig.hand_message(burier)
    assert hand is not None and not _offers_plays(hand)
    posted = {m.id for m in fake.public_messages()}

    fake.rescale(0.4)  # near Discord's own speed: a spent window lasts 2 real seconds
    fake.spend(f"channel{fake.channel_id}")  # the channel's 5 writes of this window are gone
    await rig.press_code(burier, hand, BurySelection)  # the AI's pick of 8, shown selected
    # the burier leads the first trick: their plays come while the channel still refuses writes
    await fake.until(lambda: _offers_plays(rig.hand_message(burier)), "the leader's plays drawn", timeout=20)
    assert {m.id for m in fake.public_messages()} == posted  # nothing new in the channel yet

    fake.rescale(FAST)
    await rig.settled()
    new = [m for m in fake.public_messages() if m.id not in posted]
    assert new, "the announcement of the bury never came"
    assert fake.protocol_errors == [] and fake.unanswered() == [] and leaks(fake) == []
