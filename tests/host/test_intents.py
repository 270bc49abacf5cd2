"""Every intent is bound to the version it was drawn for: a move made for one turn is refused as out
of date at any other, and never played later. (Issue 28, item 1; issue 29, finding 1.)"""

from __future__ import annotations

from bot.i18n import tr
from bot.intents import codec, text
from bot.intents.types import Command, Declare, Drawn, Intent, PlayCards, Unreadable
from bot.table import Table
from engine.actions import Play
from tests.host.conftest import PACED, Rig, make_rig
from tests.host.helpers import act_as_human, open_table, send


async def to_my_lead(rig: Rig, table: Table, uid: str) -> int:
    """Acts for `uid` (by typing) until they lead a trick; their seat."""
    s = table.seat_of(uid)
    assert s is not None
    for _ in range(300):
        m = table.match
        if m.phase == "playing" and m.to_act() == [s] and not m.public_view().get("trick"):
            return s
        if not await act_as_human(rig, table, uid, "text"):
            rig.clock.advance(min(table.deadlines.values()) - rig.clock.now() + 0.01)
            await rig.host.settle()
    raise AssertionError("never led")


async def test_a_play_typed_for_one_turn_is_not_played_at_the_next() -> None:
    """Two plays typed in a row reach the host before the table has taken the first: the second was
    typed for the same turn, so once the first is played (and the AIs have followed) it is out of
    date, even when the same person leads the next trick."""
    rig = await make_rig(PACED, seed=3)
    try:
        table = await open_table(rig, ["u1"], 3, "classic")
        s = await to_my_lead(rig, table, "u1")
        m = table.match
        first, second = [Play(s, (c,)) for c in list(m.view(s)["hand"])[:2]]
        version = m.version
        ev1 = rig.d.text("u1", f"play {first.cards[0]}", private=True)
        ev2 = rig.d.text("u1", f"play {second.cards[0]}", private=True)
        await rig.host.handle(ev1)
        await rig.host.handle(ev2)  # before the table has taken the first
        await rig.host.settle()
        assert ev1.reply is not None and ev2.reply is not None
        assert ev1.reply.texts == ["✓"] and ev2.reply.texts == [tr("en", "err.old_turn")]
        mine = [a for a in m.actions[version:] if isinstance(a, Play) and a.seat == s]
        assert mine == [first]
    finally:
        await rig.host.stop()
        await rig.store.close()


async def test_an_inline_choice_is_good_for_its_turn_only(rig: Rig) -> None:
    table = await open_table(rig, ["u1", "u2"], 2, "classic")
    for _ in range(300):
        m = table.match
        if m.phase == "playing" and table.seats[m.to_act()[0]].get("kind") == "human":
            break
        for u in ("u1", "u2"):
            await act_as_human(rig, table, u, "text")
    m = table.match
    s = m.to_act()[0]
    uid = str(table.seats[s]["user_id"])
    choices = await rig.host.inline_choices(rig.d.user(uid), rig.d.event("text", uid).where, "")
    assert len(choices) >= 2
    version = m.version
    assert await send(rig, rig.d.event("chosen", uid, token=choices[0].token)) == ["✓"]
    assert m.version > version
    late = m.version
    assert await send(rig, rig.d.event("chosen", uid, token=choices[1].token)) == [tr("en", "err.old_turn")]
    assert m.version == late


def test_the_text_parser_reads_moves_and_leaves_commands_to_the_registry() -> None:
    assert text.parse("play ♠A ♠A") == PlayCards(("AS", "AS"))
    assert text.parse("/出 大王") == PlayCards(("BJ",))
    assert text.parse("declare 2H 2H") == Declare(("2H", "2H"))
    assert text.parse("declare 2H 3H") == Unreadable("bad_declaration")
    assert text.parse("play ZZ") == Unreadable("bad_card", "ZZ")
    assert text.parse("play joker") == Unreadable("which_joker")
    assert text.parse("play") == Unreadable("select_first")
    assert text.parse("new classic turn=30") == Command("new", ("classic", "turn=30"))
    assert text.parse("   ") == Unreadable("garbage") and text.parse("x" * 2001) == Unreadable("garbage")


def test_intents_cross_workers_as_json_unchanged() -> None:
    for intent in (Intent(PlayCards(("BJ", "SJ")), Drawn(5, 9)), Intent(Command("new", ("classic",))),
                   Intent(Unreadable("bad_card", "ZZ")), codec.read(codec.pack(Drawn(1, 2), Declare(("2H",))))):
        assert codec.from_json(codec.to_json(intent)) == intent
