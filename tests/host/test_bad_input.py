"""Input that must not hurt: each gets a short answer to that person and changes nothing."""

from __future__ import annotations

from bot.i18n import tr
from bot.intents import codec
from bot.intents.types import ClearSelection, Drawn, PlayCards, PlaySelection, Toggle
from bot.table import Table
from tests.host.conftest import Rig
from tests.host.helpers import act_as_human, buttons, find, hand_message, open_table, send


async def to_playing(rig: Rig, table: Table, people: list[str]) -> None:
    """Acts for the people until someone must play a card in the playing phase."""
    for _ in range(200):
        m = table.match
        if m.phase == "playing" and m.to_act() and table.seats[m.to_act()[0]].get("kind") == "human":
            return
        if not any([await act_as_human(rig, table, u, "text") for u in people]):
            raise AssertionError("no progress")
    raise AssertionError("never reached a person's turn")


async def state(rig: Rig, table: Table) -> tuple[int, int, str]:
    stored = await rig.store.get_match(table.id)
    return table.match.version, len(stored.actions), table.match.phase


async def test_each_bad_input_gets_an_answer_and_changes_nothing(rig: Rig) -> None:
    table = await open_table(rig, ["u1", "u2"], 2, "classic")
    await to_playing(rig, table, ["u1", "u2"])
    m = table.match
    mover = next(u for u in ("u1", "u2") if table.seat_of(u) == m.to_act()[0])
    waiter = "u2" if mover == "u1" else "u1"
    ws = table.seat_of(waiter)
    assert ws is not None
    before = (await state(rig, table))
    en = "en"

    # out of turn: the waiting person selects a card and presses Play
    v = hand_message(rig, table, ws)
    await send(rig, rig.d.press(waiter, find(v, Toggle(0))))
    notes = await send(rig, rig.d.press(waiter, find(hand_message(rig, table, ws), PlaySelection())))
    assert notes == [tr(en, "refuse.not_your_turn")]
    assert (await state(rig, table)) == before

    # typed out of turn, a card not held, a word that is no card
    card = m.view(ws)["hand"][0]
    assert await send(rig, rig.d.text(waiter, f"play {card}")) == [tr(en, "refuse.not_your_turn")]
    missing = next(c for c in ("AS", "AH", "AD", "AC", "KS") if c not in m.view(ws)["hand"])
    assert "hold" in (await send(rig, rig.d.text(waiter, f"play {missing}")))[0]
    assert "ZZ" in (await send(rig, rig.d.text(waiter, "play ZZ")))[0]
    assert (await state(rig, table)) == before

    # not seated: a stranger presses a seated person's button, or types a play
    assert await send(rig, rig.d.press("u9", find(v, ClearSelection()))) == [tr(en, "err.not_seated")]
    assert await send(rig, rig.d.text("u9", "play AS")) == [tr(en, "err.not_seated")]

    # unknown, garbage and forged tokens
    for junk in ["hello", "", "1.1.0.p..zz", "x" * 300, "1.1.0.p.." + "0" * 70]:
        assert await send(rig, rig.d.press(waiter, junk)) == [tr(en, "err.bad_token")]
    forged = codec.pack(Drawn(table.id + 50, m.version), PlaySelection())
    assert await send(rig, rig.d.press(waiter, forged)) == [tr(en, "err.wrong_match")]
    other_chat = rig.d.event("press", waiter, token=find(v, PlaySelection()))
    other_chat = type(other_chat)(**{**other_chat.__dict__, "where": type(other_chat.where)("fake", "g2")})
    assert await send(rig, other_chat) == [tr(en, "err.wrong_match")]

    # garbage text and unknown commands
    assert len(await send(rig, rig.d.text(waiter, "lorem ipsum"))) == 1
    assert len(await send(rig, rig.d.text(waiter, "x" * 5000))) == 1
    assert len(await send(rig, rig.d.command(waiter, "frobnicate"))) == 1
    assert (await state(rig, table)) == before

    # the mover plays by button; repeating the very same event (same key) changes nothing more
    ms = table.seat_of(mover)
    assert ms is not None
    action = m.auto_action(ms, rng_seed=1).to_json()
    old_view = hand_message(rig, table, ms)
    tok = codec.pack(Drawn(table.id, m.version), PlayCards(tuple(action["cards"])))
    ev = rig.d.event("chosen", mover, token=tok)
    assert await send(rig, ev) == ["✓"]
    after = (await state(rig, table))
    assert after[0] > before[0] and after[1] == after[0]
    ev2 = type(ev)(**{**ev.__dict__, "reply": rig.d.event("text", mover).reply})
    assert await send(rig, ev2) == ["✓"]  # the platform's repeat is answered as the update was
    assert (await state(rig, table)) == after

    # stale: a toggle from the view drawn before the hand changed is refused politely
    assert table.screen.view_version[ms] > codec.parse(find(old_view, Toggle))[0].version
    assert await send(rig, rig.d.press(mover, find(old_view, Toggle))) == [tr(en, "err.stale")]
    assert table.screen.selection[ms] == set()
    assert (await state(rig, table)) == after
    assert all(act for _, act, _ in buttons(hand_message(rig, table, ms)))
