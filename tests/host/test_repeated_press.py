"""One press, one action (issue 32 item 6): a press the person repeats because the first answer was
slow is refused, not stored a second time; the answer to an applied press comes as soon as it is
stored, before the table speaks of it.
"""

from __future__ import annotations

from bot.i18n import tr
from bot.intents import codec
from bot.intents.types import Declare, Drawn, Pass, PlayCards
from bot.table import Table
from tests.host.conftest import PACED, Rig, make_rig
from tests.host.helpers import buttons, find, hand_message, open_table, send
from tests.host.test_drawn_views import _to_a_persons_turn


async def _declaring(rig: Rig) -> Table:
    table = await open_table(rig, ["u1", "u2", "u3", "u4"], 0, "classic", "target=3")
    for _ in range(50):
        if table.match is not None and table.match.phase == "declaring":
            return table
        rig.clock.advance(0.5)
        await rig.host.settle()
    raise AssertionError("the deal never ended")


async def _passes(rig: Rig, table: Table, seat: int) -> int:
    stored = await rig.store.get_match(table.id)
    assert stored is not None
    return sum(1 for a in stored.actions if a == {"t": "pass", "seat": seat})


async def test_a_second_pass_after_a_late_first_one_is_refused_not_stored() -> None:
    rig = await make_rig(PACED)
    try:
        table = await _declaring(rig)
        s = table.seat_of("u2")
        assert s is not None
        pass_button = find(hand_message(rig, table, s), Pass)
        first, again = rig.d.press("u2", pass_button), rig.d.press("u2", pass_button)  # two updates
        await rig.host.handle(first)  # the person presses again before the first answer arrived
        await rig.host.handle(again)
        await rig.host.settle()
        assert first.reply.texts == ["✓"]  # type: ignore[union-attr]
        assert again.reply.texts == [tr("en", "err.duplicate")]  # type: ignore[union-attr]
        assert await _passes(rig, table, s) == 1
        # a declaration by another seat opens the window again: the same Pass button counts once more
        assert table.match is not None and table.match.phase == "declaring"
    finally:
        await rig.host.stop()
        await rig.store.close()


async def test_the_same_play_pressed_twice_is_one_action_the_second_refused() -> None:
    rig = await make_rig(PACED)
    try:
        table = await open_table(rig, ["u1", "u2"], 2, "classic", "target=3")
        mover = await _to_a_persons_turn(rig, table, ["u1", "u2"])
        s = table.seat_of(mover)
        m = table.match
        assert s is not None and m is not None
        action = m.auto_action(s, rng_seed=m.version)
        token = codec.pack(Drawn(table.id, m.version), PlayCards(tuple(action.cards)))  # type: ignore[union-attr]
        version = m.version
        first, again = rig.d.event("chosen", mover, token=token), rig.d.event("chosen", mover, token=token)
        await rig.host.handle(first)  # both queued at the table before either is served
        await rig.host.handle(again)
        await rig.host.settle()
        assert first.reply.texts == ["✓"]  # type: ignore[union-attr]
        # refused in words: drawn before the person's own last move (the turn it was drawn for is gone)
        assert again.reply.texts == [tr("en", "err.old_turn")]  # type: ignore[union-attr]
        stored = await rig.store.get_match(table.id)
        assert stored is not None
        assert stored.actions[version]["cards"] == list(action.cards)  # type: ignore[union-attr]
        assert [a.get("seat") for a in stored.actions[version:]].count(s) == 1
    finally:
        await rig.host.stop()
        await rig.store.close()


async def test_a_press_is_answered_once_stored_before_the_table_speaks() -> None:
    rig = await make_rig(PACED)
    try:
        table = await open_table(rig, ["u1", "u2"], 2, "classic", "target=3")
        mover = await _to_a_persons_turn(rig, table, ["u1", "u2"])
        s = table.seat_of(mover)
        assert s is not None and table.match is not None
        action = table.match.auto_action(s, rng_seed=table.match.version)
        token = codec.pack(Drawn(table.id, table.match.version), PlayCards(tuple(action.cards)))  # type: ignore[union-attr]
        sent_before = len(rig.platform.log)
        ev = rig.d.event("chosen", mover, token=token)
        said_when_answered: list[int] = []
        reply = ev.reply
        assert reply is not None
        original = reply.notice

        async def notice(text: str, alert: bool = False) -> None:
            said_when_answered.append(len(rig.platform.log))
            await original(text, alert)

        reply.notice = notice  # type: ignore[method-assign]
        assert await send(rig, ev) == ["✓"]
        assert said_when_answered == [sent_before]  # nothing sent or edited before the answer
        assert len(rig.platform.log) > sent_before  # and the table spoke after it
    finally:
        await rig.host.stop()
        await rig.store.close()


async def test_the_same_declaration_pressed_twice_is_refused_by_its_key() -> None:
    """A declaration stays good on an unchanged hand (it names its cards), so nothing but the
    press's key tells the second press of the same button from a new intent: it is refused as a
    repeat ("already done"), not judged again by the engine as a declaration that beats nothing."""
    rig = await make_rig(PACED)
    try:
        table = await _declaring(rig)
        found = [(uid, act) for uid in ("u1", "u2", "u3", "u4") for _, act, _ in
                 buttons(hand_message(rig, table, table.seat_of(uid))) if isinstance(act, Declare)]  # type: ignore[arg-type]
        assert found, "nobody can declare on this deal"
        uid, act = found[0]
        s = table.seat_of(uid)
        assert s is not None
        button = find(hand_message(rig, table, s), act)
        first, again = rig.d.press(uid, button), rig.d.press(uid, button)  # two updates, one button
        await rig.host.handle(first)
        await rig.host.handle(again)
        await rig.host.settle()
        assert first.reply.texts == ["✓"]  # type: ignore[union-attr]
        assert again.reply.texts == [tr("en", "err.duplicate")]  # type: ignore[union-attr]
        stored = await rig.store.get_match(table.id)
        assert stored is not None
        assert sum(1 for a in stored.actions if a.get("t") == "declare" and a.get("seat") == s) == 1
    finally:
        await rig.host.stop()
        await rig.store.close()
