"""Bad presses get a short private answer and change nothing: forged ids, stale buttons, strangers, wrong turns."""

from __future__ import annotations

from bot.i18n import tr
from bot.intents.types import ClearSelection, PlaySelection
from fakes.discord_api import FakeMessage, FakeUser
from tests.discord.rig import PEOPLE, Rig, open_table, play_until

EVE = FakeUser(299, "eve")


async def playing(rig: Rig) -> None:
    await open_table(rig)
    await play_until(rig, lambda: rig.table().match is not None and rig.table().match.phase == "playing")


def version(rig: Rig) -> int:
    m = rig.table().match
    assert m is not None
    return int(m.version)


def waiting(rig: Rig) -> FakeUser:
    """Someone seated whose turn it is not."""
    m = rig.table().match
    assert m is not None
    return next(p for p in PEOPLE if rig.table().seat_of(str(p.id)) not in m.to_act())


async def fresh_hand(rig: Rig, person: FakeUser) -> FakeMessage:
    await rig.fake.click(person, rig.table_message(), "My hand")
    await rig.idle()
    hand = rig.hand_message(person)
    assert hand is not None
    return hand


async def test_out_of_turn_play_is_explained_in_the_same_hand_message(rig: Rig) -> None:
    await playing(rig)
    person = waiting(rig)
    hand = await fresh_hand(rig, person)
    seat = rig.table().seat_of(str(person.id))
    assert seat is not None
    card = rig.table().match.view(seat)["hand"][0]
    await rig.choose_cards(person, seat, [card])
    count = len(rig.fake.private_messages(person))
    v = version(rig)
    await rig.press_code(person, hand, PlaySelection())
    await rig.idle()
    assert version(rig) == v
    assert len(rig.fake.private_messages(person)) == count  # no new message: the hand itself says why
    assert tr("en", "refuse.not_your_turn") in hand.content
    assert all(tr("en", "refuse.not_your_turn") not in m.text() for m in rig.fake.public_messages())
    assert rig.fake.unanswered() == [] and rig.fake.protocol_errors == []


async def test_forged_and_stale_presses_change_nothing(rig: Rig) -> None:
    fake = rig.fake
    await playing(rig)
    person = waiting(rig)
    m = rig.table().match
    assert m is not None
    mover = next(p for p in PEOPLE if rig.table().seat_of(str(p.id)) in m.to_act())
    older = await fresh_hand(rig, mover)
    rig.fake.advance(15 * 60 + 1)  # older's token dies: it can no longer be removed, and stays
    newer = await fresh_hand(rig, mover)
    assert older is not newer and not older.deleted
    # the mover plays: the older hand message names cards they no longer hold, so it is stale
    # (another seat's play would leave its buttons good: they still name the same cards)
    assert await rig.act(mover)
    v = version(rig)
    table = rig.table_message()

    # custom_ids that are not on the message (forged payloads) never reach the host
    for custom_id in ("b:1.0.0.p..zz", "hello", "s:0:" + "x" * 20, "b:" + "9" * 98):
        pressed = await fake.press(person, table, custom_id)
        assert pressed.callback_type == 4 and pressed.ephemeral_reply
        assert "not one of mine" in pressed.callback_data["content"]

    # a tampered token on the message itself: the host refuses it (checksum)
    table.components.append({"type": 1, "components": [
        {"type": 2, "style": 2, "label": "Evil", "custom_id": "b:1.1.0.p..00"}]})
    before = len(fake.private_messages(person))
    await fake.press(person, table, "b:1.1.0.p..00")
    await rig.idle()
    answers = fake.private_messages(person)[before:]
    assert [m.content for m in answers] == [tr("en", "err.bad_token")]

    # select values that the menu never offered are ignored
    hand = await fresh_hand(rig, person)
    select = hand.selects()[0]
    chosen = await fake.choose(person, hand, select["custom_id"], ["b:1.0.0.t.0.zz", "nonsense"])
    await rig.idle()
    assert chosen.callback_type == 6

    # a button on a hand message drawn before the last play: refused as stale, in that message,
    # which shows the current hand from now on (the newer one is removed: one hand a channel)
    await rig.press_code(mover, older, ClearSelection())  # "Clear"
    await rig.idle()
    assert any(tr(lang, "err.stale") in older.content for lang in ("en", "zh"))  # in the mover's language
    assert newer.deleted and rig.hand_message(mover) is older

    # a stranger asks for a hand: told privately, in the reply to that press
    stranger = await fake.click(EVE, table, "My hand")
    await rig.idle()
    assert stranger.ephemeral_reply
    assert [m.content for m in fake.private_messages(EVE)] == [tr("en", "err.not_seated")]

    assert version(rig) == v
    assert fake.unanswered() == []
    assert fake.protocol_errors == []
    refusals = [tr("en", k) for k in ("err.bad_token", "err.stale", "err.not_seated")] + ["not one of mine"]
    assert all(r not in m.text() for m in fake.public_messages() for r in refusals)
