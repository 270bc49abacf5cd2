"""Issue 18's findings 1-6, each as four people met it, through the real discord.py client and the strict fake."""

from __future__ import annotations

from pathlib import Path

from bot.i18n import tr
from bot.intents.types import PlaySelection
from fakes.discord_api import FakeMessage
from persistence.store import SqliteStore
from tests.discord.rig import (
    ALICE,
    BOB,
    CAROL,
    DAVE,
    PEOPLE,
    NewRig,
    Rig,
    leaks,
    open_table,
    play_until,
    token_of,
)

STALE = {tr(lang, "err.stale") for lang in ("en", "zh")}


def _clean(rig: Rig) -> None:
    assert rig.fake.unanswered() == []
    assert rig.fake.protocol_errors == []
    assert rig.runner.inbound.errors == [] and rig.runner.client.errors == []
    assert leaks(rig.fake) == []


def _playing(rig: Rig) -> bool:
    m = rig.table().match
    return m is not None and m.phase == "playing"


async def test_1_after_a_restart_the_first_pick_on_an_old_hand_counts(tmp_path: Path, new_rig: NewRig) -> None:
    path = str(tmp_path / "t.sqlite3")
    rig = await new_rig(await SqliteStore.open(path, synchronous="NORMAL"))
    await open_table(rig)
    await play_until(rig, lambda: _playing(rig) and len(rig.table().match.public_view().get("trick") or []) == 0)
    table = rig.table()
    m = table.match
    assert m is not None
    mover = next(p for p in PEOPLE if table.seat_of(str(p.id)) in m.to_act())
    old = rig.hand_message(mover)
    assert old is not None
    version = m.version
    await rig.shutdown()
    await rig.store.close()
    rig.store = await SqliteStore.open(path, synchronous="NORMAL")
    await rig.boot()

    # the person picks a card on the hand message the old process drew, then plays it there
    table = rig.table()
    seat = table.seat_of(str(mover.id))
    assert seat is not None and table.match is not None
    card = table.match.auto_action(seat, rng_seed=1).to_json()["cards"][:1]  # type: ignore[union-attr]
    single = next(a for a in table.match.legal_actions(seat) if len(a.to_json().get("cards", [])) == 1)
    card = list(single.to_json()["cards"])
    await rig.choose_cards(mover, seat, card)
    assert rig.hand_message(mover) is old
    assert not any(s in old.content for s in STALE)
    await rig.press_code(mover, old, PlaySelection())
    await rig.idle()
    assert table.match.version == version + 1, old.content
    assert [a for a in table.match.actions_json()][version]["cards"] == card
    _clean(rig)
    await rig.shutdown()
    await rig.store.close()


async def test_2_start_typed_as_a_command_gives_the_starter_a_hand(rig: Rig) -> None:
    fake = rig.fake
    await fake.slash(ALICE, "new", {"preset": "classic"})
    await rig.idle()
    for person in (BOB, CAROL, DAVE):
        await fake.slash(person, "join")
        await rig.idle()
    fake.advance(15 * 60)  # the joins are old: only the starter's token lives
    started = await fake.slash(ALICE, "start")
    await rig.idle()
    assert rig.table().status == "active"
    hand = rig.hand_message(ALICE)
    assert hand is not None and hand.ephemeral and hand.components
    assert started.original_id == hand.id or hand.id in started.owned
    _clean(rig)


async def test_3_a_hand_never_appears_in_another_channel(rig: Rig) -> None:
    fake = rig.fake
    await open_table(rig)
    elsewhere = fake.channel_id + 1
    for person in PEOPLE:  # everyone's latest interaction is in another channel now
        await fake.slash(person, "help", channel_id=elsewhere)
    await rig.idle()
    await play_until(rig, lambda: _playing(rig))
    for person in PEOPLE:
        for message in fake.private_messages(person):
            if message.components:
                assert message.channel_id == fake.channel_id, (person.name, message.content[:80])
    _clean(rig)


async def test_4_a_long_lobby_tells_everyone_without_a_hand_to_press_my_hand(rig: Rig) -> None:
    fake = rig.fake
    await fake.slash(ALICE, "new", {"preset": "classic"})
    await rig.idle()
    lobby = rig.table_message()
    for person in (BOB, CAROL, DAVE):
        await fake.click(person, lobby, "Join")
        await rig.idle()
    fake.advance(14 * 60 + 30)  # a long wait in the lobby
    await fake.click(ALICE, lobby, "Start")
    await rig.settled()
    assert rig.hand_message(ALICE) is not None
    told = "\n".join(m.content for m in fake.channel_messages())
    for person in (BOB, CAROL, DAVE):
        assert rig.hand_message(person) is None
        assert f"<@{person.id}>" in told, told  # named in the channel, with what to press
    for person in (BOB, CAROL, DAVE):
        await fake.click(person, rig.table_message(), "My hand")
        await rig.idle()
        assert rig.hand_message(person) is not None
    _clean(rig)


async def test_5_a_refusal_on_the_current_hand_is_seen_there(rig: Rig) -> None:
    fake = rig.fake
    await open_table(rig)
    await play_until(rig, lambda: _playing(rig))
    table = rig.table()
    m = table.match
    assert m is not None
    waiter = next(p for p in PEOPLE if table.seat_of(str(p.id)) not in m.to_act())
    hand = rig.hand_message(waiter)
    if hand is None:
        await fake.click(waiter, rig.table_message(), "My hand")
        await rig.idle()
        hand = rig.hand_message(waiter)
    assert hand is not None
    seat = table.seat_of(str(waiter.id))
    assert seat is not None
    await rig.choose_cards(waiter, seat, list(m.view(seat)["hand"])[:1])
    await rig.press_code(waiter, hand, PlaySelection())  # not their turn
    await rig.idle()
    assert tr("en", "refuse.not_your_turn") in hand.content or tr("zh", "refuse.not_your_turn") in hand.content
    _clean(rig)


async def test_6_my_hand_again_leaves_one_hand_message(rig: Rig) -> None:
    fake = rig.fake
    await open_table(rig)
    await play_until(rig, lambda: _playing(rig))
    for _ in range(3):
        await fake.click(BOB, rig.table_message(), "My hand")
        await rig.idle()
    live = [msg for msg in fake.private_messages(BOB) if msg.components and _has_our_buttons(msg)]
    assert len(live) == 1, [msg.id for msg in live]
    _clean(rig)


def _has_our_buttons(message: FakeMessage) -> bool:
    return any(token_of(str(b.get("custom_id", ""))) is not None for b in message.buttons())
