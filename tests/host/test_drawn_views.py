"""Hand buttons drawn before a restart keep working while the hand is unchanged (bot/table/drawn.py).

Both platforms' finding: after a restart the first press on a hand message drawn before it was
refused as out of date although nothing in the hand had changed, and the cards picked were lost.
"""

from __future__ import annotations

from app.features import build_host
from bot.host import Host
from bot.i18n import tr
from bot.intents import codec
from bot.intents.types import Drawn, PlayCards, PlaySelection, Toggle
from bot.table import Table
from persistence.store import SqliteStore
from tests.host.conftest import PACED, Rig, make_rig
from tests.host.helpers import act_as_human, find, hand_message, open_table, send


async def _to_a_persons_turn(rig: Rig, table: Table, people: list[str]) -> str:
    """Plays on (people by text) until one of them must play a card; returns who."""
    for _ in range(300):
        m = table.match
        if m.phase == "playing" and m.to_act():
            mover = next((u for u in people if table.seat_of(u) == m.to_act()[0]), None)
            if mover is not None:
                return mover
        if not any([await act_as_human(rig, table, u, "text") for u in people]):
            rig.clock.advance(min(table.deadlines.values()) - rig.clock.now() + 0.01)
            await rig.host.settle()
    raise AssertionError("never reached a person's turn")


async def _at_a_persons_turn(rig: Rig) -> tuple[Table, str, int]:
    """A classic table of two people and two AIs, played on until a person must play: (table, who, seat)."""
    table = await open_table(rig, ["u1", "u2"], 2, "classic", "target=3")
    mover = await _to_a_persons_turn(rig, table, ["u1", "u2"])
    s = table.seat_of(mover)
    assert s is not None
    return table, mover, s


async def _restart(rig: Rig) -> Host:
    path = rig.store.path
    await rig.host.stop()
    await rig.store.close()
    store = await SqliteStore.open(path, synchronous="OFF")
    host = build_host(store, clock=rig.clock, defaults=PACED, use_ai_threads=False)
    host.register(rig.platform)
    await host.start()
    await host.settle()
    rig.host, rig.store = host, store
    return host


async def test_a_hand_drawn_before_a_restart_still_plays_and_keeps_its_picks() -> None:
    rig = await make_rig(PACED)
    try:
        table, mover, s = await _at_a_persons_turn(rig)
        m = table.match
        action = m.auto_action(s, rng_seed=m.version)
        assert action is not None and action.t == "play"
        hand = list(m.view(s)["hand"])
        want = list(action.cards)
        idx: list[int] = []
        for c in want:
            idx.append(next(i for i, h in enumerate(hand) if h == c and i not in idx))
        old = hand_message(rig, table, s)  # the message as the person sees it before the restart
        # the first card is picked before the restart, the rest after it, on the same old message
        await send(rig, rig.d.press(mover, find(old, Toggle(idx[0]))))
        version = m.version

        host = await _restart(rig)
        t2 = host.tables[table.id]
        assert t2.match.version == version
        assert t2.screen.selection[s] == {idx[0]}
        for i in idx[1:]:
            notes = await send(rig, rig.d.press(mover, find(old, Toggle(i))))
            assert notes != [tr("en", "err.stale")]
        notes = await send(rig, rig.d.press(mover, find(old, PlaySelection())))
        assert notes == ["✓"], notes
        assert t2.match.version > version
        assert t2.match.actions[version].to_json()["cards"] == want

        # the hand changed: the old message's buttons are now refused, politely, and change nothing
        now = t2.match.version
        assert await send(rig, rig.d.press(mover, find(old, PlaySelection()))) == [tr("en", "err.stale")]
        assert t2.match.version == now
    finally:
        await rig.host.stop()
        await rig.store.close()


async def test_a_button_from_a_version_not_reached_yet_is_refused() -> None:
    rig = await make_rig(PACED)
    try:
        table, mover, _ = await _at_a_persons_turn(rig)
        m = table.match
        version = m.version
        forged = codec.pack(Drawn(table.id, version + 40), PlayCards((m.view(table.seat_of(mover))["hand"][0],)))
        assert await send(rig, rig.d.press(mover, forged)) == [tr("en", "err.stale")]
        assert table.match.version == version
    finally:
        await rig.host.stop()
        await rig.store.close()


def test_damaged_or_old_picks_are_ignored_and_picks_outside_the_hand_dropped() -> None:
    from bot.table.drawn import DrawnHands

    picks: dict[int, object] = {0: {"v": 7, "phase": "playing", "cards": ["AS", "KS"], "picked": [1, 5, "x"]},
                                1: {"v": -1, "phase": "playing", "cards": []}, 2: "junk", 9: {"v": 1}}
    drawn = DrawnHands(picks)
    assert drawn.version(0) == 7 and drawn.selection[0] == {1}
    assert drawn.version(1) == 0 and drawn.cards(2) is None
    assert drawn.version_for(0, "playing", ("AS", "KS"), 30) == 7
    assert drawn.version_for(0, "playing", ("AS",), 30) == 30
    assert DrawnHands({}, {"drawn": [1, 2]}).hands == {}
    # a match stored before keeps its hands in the meta: read for a seat without a row of its own
    legacy = {"drawn": {"0": {"v": 3, "phase": "playing", "cards": ["AS"], "picked": [0]},
                        "1": {"v": 4, "phase": "playing", "cards": ["KS"], "picked": []}}}
    drawn = DrawnHands({1: {"v": 9, "phase": "playing", "cards": ["QS"], "picked": [0]}}, legacy)
    assert (drawn.version(0), drawn.selection[0]) == (3, {0})
    assert (drawn.version(1), drawn.cards(1), drawn.selection[1]) == (9, ("QS",), {0})
    assert drawn.changed() == []
    drawn.selection[0].clear()
    assert drawn.changed() == [(0, {"v": 3, "phase": "playing", "cards": ["AS"], "picked": []})]


async def test_a_tap_writes_that_seats_picks_and_not_the_matchs_meta() -> None:
    """A card tap is one row of one seat: the match's meta is not rewritten, and the pick outlives
    a restart."""
    rig = await make_rig(PACED)
    try:
        table, mover, s = await _at_a_persons_turn(rig)
        meta_writes: list[object] = []
        update = rig.store.update_match

        async def counted(match_id: int, **kw: object) -> None:
            if kw.get("meta") is not None:
                meta_writes.append(kw["meta"])
            await update(match_id, **kw)  # type: ignore[arg-type]

        rig.store.update_match = counted  # type: ignore[method-assign]
        await send(rig, rig.d.press(mover, find(hand_message(rig, table, s), Toggle(0))))
        assert table.screen.selection[s] == {0} and meta_writes == []
        stored = await rig.store.get_match(table.id)
        assert stored is not None and stored.picks[s]["picked"] == [0] and "drawn" not in stored.meta
        host = await _restart(rig)
        assert host.tables[table.id].screen.selection[s] == {0}
    finally:
        await rig.host.stop()
        await rig.store.close()
