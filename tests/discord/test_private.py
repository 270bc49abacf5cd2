"""Where private views go: ephemeral replies by default, DMs for those who ask, nowhere when no token lives."""

from __future__ import annotations

from adapters.discord.private import TOKEN_LIFE_S
from bot.platform import View, Where
from fakes.discord_api import FakeDiscord
from tests.discord.rig import ALICE, BOB, CAROL, DAVE, Rig, leaks, open_table, play_until


async def test_a_player_who_opted_for_dms_gets_the_hand_there(rig: Rig) -> None:
    fake = rig.fake
    answer = await fake.slash(CAROL, "dm", {"mode": "on"})
    assert answer.ephemeral_reply and "私信" in answer.callback_data["content"]  # carol reads Chinese
    await open_table(rig)
    dms = [m for m in fake.private_messages(CAROL) if m.via == "dm"]
    assert dms and "carol" in dms[-1].content and dms[-1].visible_to == CAROL.id
    await play_until(rig, lambda: rig.table().match is not None and rig.table().match.phase == "playing")
    # the hand in the DM works like the ephemeral one: pick a card, see it selected, in place
    hand = [m for m in fake.private_messages(CAROL) if m.via == "dm"][-1]
    seat = rig.table().seat_of(str(CAROL.id))
    assert seat is not None
    m = rig.table().match
    assert m is not None
    card = m.view(seat)["hand"][0]
    await rig.choose_cards(CAROL, seat, [card])
    assert any(o.get("default") for s in hand.selects() for o in s["options"])
    assert "[" in hand.content  # the selection shows in the hand text too
    # "My hand" pressed in the channel: the hand goes to the DM, the reply says so
    count = len([m for m in fake.private_messages(CAROL) if m.via == "dm"])
    pressed = await fake.click(CAROL, rig.table_message(), "My hand")
    await rig.idle()
    assert fake.messages[pressed.original_id or 0].content == "手牌已通过私信发送。"
    assert len([m for m in fake.private_messages(CAROL) if m.via == "dm"]) == count + 1
    assert not [m for m in fake.private_messages(ALICE) if m.via == "dm"]
    assert fake.unanswered() == [] and fake.protocol_errors == [] and leaks(fake) == []


async def test_without_a_live_interaction_the_hand_waits_for_my_hand(rig: Rig) -> None:
    fake = rig.fake
    await open_table(rig)
    routes = rig.runner.platform.routes
    routes.clock = lambda: 10 * TOKEN_LIFE_S + 1e9  # every token seen so far has expired
    fake.expire_tokens()
    before = {p.id: len(fake.private_messages(p)) for p in (ALICE, BOB, CAROL, DAVE)}
    rig.clock.advance(31)  # the table moves on; hands change but cannot be shown
    await rig.idle()
    assert {p.id: len(fake.private_messages(p)) for p in (ALICE, BOB, CAROL, DAVE)} == before
    pressed = await fake.click(BOB, rig.table_message(), "My hand")
    await rig.idle()
    assert pressed.ephemeral_reply
    assert "bob" in fake.private_messages(BOB)[-1].content
    assert fake.protocol_errors == []


async def test_files_go_to_the_channel_or_to_one_person(rig: Rig) -> None:
    fake: FakeDiscord = rig.fake
    platform = rig.runner.platform
    where = Where("discord", str(fake.channel_id))
    mid = await platform.send_file(where, "standings.png", b"\x89PNG fake", "Standings")
    public = fake.messages[int(mid)]
    assert public.public and public.attachments == [("standings.png", b"\x89PNG fake")]
    await fake.slash(ALICE, "help")
    await rig.idle()
    private = await platform.send_file(Where("discord", str(ALICE.id), private=True), "me.csv", b"a,b\n", "")
    assert private.startswith("e")
    assert fake.messages[int(private[1:])].visible_to == ALICE.id
    nobody = await platform.send_file(Where("discord", "987", private=True), "x.csv", b"x", "")
    assert nobody.startswith("p")
    # a view for someone the bot cannot reach yet is kept back, not an error
    assert (await platform.send(Where("discord", "987", private=True), View("hi"))).startswith("p")
