"""Every press and slash command gets an answer in words (issue 29, finding 10), through discord.py
against the strict fake.

Discord shows an interaction acknowledged with nothing after it as if nothing happened, and one
never answered as "This interaction failed". Here each must leave the person something to read: a
reply, the command's public response, the message they pressed changed, or their hand redrawn
(`FakeDiscord.wordless`).
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from bot.i18n import tr
from fakes.discord_api import FakeDiscord, FakeInteraction, FakeMessage, FakeUser
from persistence.store import SqliteStore
from tests.discord.rig import ALICE, BOB, CAROL, DAVE, PEOPLE, NewRig, Rig, play_until

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


def _required(option: dict[str, Any], people: dict[int, FakeUser]) -> str | int:
    """A value a person would give a required option: the first choice, the lowest number, someone."""
    if option.get("choices"):
        return option["choices"][0]["value"]
    if option["type"] == 4:
        return int(option.get("min_value", 1))
    if option["type"] == 6:
        return str(next(iter(people)))
    return "1"


async def _every_command(fake: FakeDiscord, rig: Rig, person: FakeUser) -> list[tuple[str, FakeInteraction]]:
    """Every registered subcommand once, by `person` (the admin group by an admin), required options
    given; `dm` last and switched off (on, their hands would leave the channel)."""
    people = {p.id: p for p in PEOPLE}
    done = []
    subs = [(group["name"], sub) for group in fake.commands for sub in group["options"]]
    for group, sub in sorted(subs, key=lambda gs: (gs[1]["name"] == "dm", gs[0], gs[1]["name"])):
        options = {o["name"]: _required(o, people) for o in sub.get("options", []) if o.get("required")}
        if sub["name"] == "dm":
            options = {"mode": "off"}
        who = ALICE if group == "tractoradmin" else person
        done.append((f"/{group} {sub['name']}", await fake.slash(who, sub["name"], options, command=group)))
        await rig.settled()
    return done


async def test_every_slash_command_is_answered_in_words(fake_discord: FakeDiscord, tmp_path: Path,
                                                        new_rig: NewRig) -> None:
    """Every slash command, with no table in the channel and in a running match, leaves its person
    words: a reply only they see, or the command's own public response (help, rules, standings, a
    vote). Before, 31 of the two rounds' commands were wordless: their words went out as channel
    messages tied to nothing, and the command was a "thinking" placeholder removed."""
    fake = fake_discord
    store = await SqliteStore.open(str(tmp_path / "words.sqlite3"))
    rig = await new_rig(store)
    asked = await _every_command(fake, rig, BOB)  # its /tractor new opened a lobby: bob's
    for person in (ALICE, CAROL, DAVE):
        await fake.slash(person, "join")
        await rig.settled()
    await fake.slash(BOB, "start")
    await rig.settled()
    assert rig.table().match is not None
    asked += await _every_command(fake, rig, CAROL)
    silent = {i.id for i in fake.wordless()}
    assert [name for name, i in asked if i.id in silent] == []
    public = {name for name, i in asked if i.callback_type == 4 and not i.ephemeral_reply}
    assert {"/tractor help", "/tractor rules", "/league standings", "/tractor pause"} <= public, public
    assert fake.wordless() == [] and fake.unanswered() == [] and fake.protocol_errors == []
    await rig.shutdown()
    await store.close()
