"""Every press gets an answer in words (issue 29, finding 10), through discord.py against the strict fake.

Discord shows a press acknowledged with nothing after it as if nothing happened, and one never
answered as "This interaction failed". Here each press must leave the person something to read: a
reply, the message they pressed changed, or their hand redrawn (`FakeDiscord.wordless`).
"""

from __future__ import annotations

import copy

from bot.i18n import tr
from fakes.discord_api import FakeDiscord, FakeInteraction, FakeMessage, FakeUser
from tests.discord.rig import ALICE, BOB, CAROL, DAVE, PEOPLE, Rig, play_until

EVE = FakeUser(299, "eve")
LOBBY = ("Join", "Leave", "Add AI", "Start")


def _words(fake: FakeDiscord, pressed: FakeInteraction) -> str:
    assert pressed.callback_type is not None and not pressed.late, pressed
    return "\n".join(pressed.words)


def _told(fake: FakeDiscord, pressed: FakeInteraction, key: str, lang: str = "en") -> None:
    said = _words(fake, pressed)
    assert tr(lang, key) in said, (key, said)


async def _lobby(rig: Rig) -> FakeMessage:
    fake = rig.fake
    await fake.slash(ALICE, "new", {"preset": "classic"})
    await rig.settled()
    return rig.table_message()


async def test_every_lobby_press_is_answered_in_words_before_and_after_the_start(rig: Rig) -> None:
    fake = rig.fake
    lobby = await _lobby(rig)
    presses = []
    for person, label in ((BOB, "Join"), (CAROL, "Join"), (BOB, "Leave"), (BOB, "Join"), (DAVE, "Join"),
                          (EVE, "Join"), (EVE, "Leave"), (BOB, "Add AI")):
        presses.append(await fake.click(person, lobby, label))
        await rig.settled()  # the lobby's edit (the answer) may wait out the channel's rate limit
    # The lobby as Discord still has it while its edit at the start waits out the channel's rate
    # limit: its four buttons can be pressed after the start.
    held = copy.deepcopy(lobby)
    assert [b["label"] for b in held.buttons()] == list(LOBBY)
    await fake.click(ALICE, lobby, "Start")
    await rig.settled()
    assert rig.table().match is not None and lobby.buttons() == []
    assert fake.wordless() == [], [(i.user.name, i.data) for i in fake.wordless()]

    after = {}
    for person in (BOB, CAROL, EVE):
        for label in LOBBY:
            after[person.name, label] = await fake.click(person, held, label)
            await rig.settled()
    for label in ("Join", "Add AI", "Start"):
        _told(fake, after["bob", label], "join.not_lobby")
        _told(fake, after["eve", label], "join.not_lobby")
        _told(fake, after["carol", label], "join.not_lobby", "zh")  # in her language
    _told(fake, after["bob", "Leave"], "leave.started")
    _told(fake, after["carol", "Leave"], "leave.started", "zh")
    # a press on the lobby as it is now (its buttons gone: an old custom_id) is told so too
    late = await fake.press(DAVE, lobby, held.button("Join")["custom_id"])
    await rig.settled()
    _told(fake, late, "discord.bad_button")
    assert fake.wordless() == [] and fake.unanswered() == [] and fake.protocol_errors == []


async def test_presses_on_what_is_not_the_persons_own_are_answered_in_words(rig: Rig) -> None:
    fake = rig.fake
    lobby = await _lobby(rig)
    for person in (BOB, CAROL, DAVE):
        await fake.click(person, lobby, "Join")
        await rig.settled()
    await fake.click(ALICE, lobby, "Start")
    await rig.settled()
    await play_until(rig, lambda: rig.table().match is not None and rig.table().match.phase == "playing")
    hands: dict[str, FakeMessage] = {}
    for person in PEOPLE:
        if rig.hand_message(person) is None:
            await fake.click(person, rig.table_message(), "My hand")
            await rig.idle()
        hand = rig.hand_message(person)
        assert hand is not None
        hands[person.name] = hand
    # Discord shows nobody another's ephemeral hand; a client that sends such a press anyway (a
    # forged one) is answered all the same, never left to "This interaction failed"
    for owner, other in ((ALICE, BOB), (BOB, EVE), (CAROL, DAVE)):
        hand = hands[owner.name]
        custom_id = (hand.buttons() or hand.selects())[0]["custom_id"]
        pressed = await fake.interact(other, 3, {"custom_id": custom_id, "component_type": 2}, message=hand,
                                      forged=True)
        await rig.settled()
        _told(fake, pressed, "discord.bad_button")
    # the table is everyone's, the hand behind "My hand" only a player's
    stranger = await fake.click(EVE, rig.table_message(), "My hand")
    await rig.settled()
    _told(fake, stranger, "err.not_seated")
    # a seated person's press on their own hand out of turn is told why, there
    m = rig.table().match
    assert m is not None
    waiting = next(p for p in PEOPLE if rig.table().seat_of(str(p.id)) not in m.to_act())
    hand = rig.hand_message(waiting)
    assert hand is not None
    plays = [b for b in hand.buttons() if b["custom_id"].startswith("b:")]
    for button in plays:
        pressed = await fake.press(waiting, hand, button["custom_id"])
        await rig.settled()
        assert _words(fake, pressed), button["label"]  # Clear with nothing chosen said nothing before
    assert fake.wordless() == [] and fake.unanswered() == [] and fake.protocol_errors == []
