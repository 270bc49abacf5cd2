"""Duplicate events played to their end through the host (issue 33, item 6), with what players see
checked by hand: a pairs event over three tables, and a board whose 12-minute clock (002 7.5) runs out."""

from __future__ import annotations

from bot.duplicate.events import pairs_ranking
from bot.duplicate.scoring import pair_score
from persistence.board_store import BoardStore, PlayRow
from tests.duplicate.conftest import chat, texts_to
from tests.host.conftest import FAST, Rig, make_rig
from tests.host.helpers import play_out, send
from tests.host.leaks import CARD_RE


async def settle(rig: Rig, rounds: int = 10) -> None:
    for _ in range(rounds):
        await rig.host.settle()


def _ns(p: PlayRow) -> int:
    assert p.defender_points is not None and p.declarer_team is not None
    return pair_score(p.defender_points, defending=p.declarer_team == 1)


async def test_a_pairs_event_over_three_tables_to_its_end(rig: Rig) -> None:
    drivers = [rig.d, chat(rig, "g2"), chat(rig, "g3")]
    people = ["u1", "u5", "u9"]
    await send(rig, rig.d.command("u1", "duplicate", "pairs", "boards=2"))
    store = BoardStore.of(rig.store)
    ev = (await store.all_open_events())[-1]
    for d, uid in zip(drivers[1:], people[1:], strict=True):
        await send(rig, d.command(uid, "duplicate", "table", str(ev.id)))
    for d, uid in zip(drivers, people, strict=True):
        for _ in range(3):
            await send(rig, d.command(uid, "addbot"))
        await send(rig, d.command(uid, "start"))
    for d in drivers:  # a pairs event is played under document 002's own preset by default
        m = rig.host.by_chat[("fake", d.chat_id)].match
        assert m is not None and (m.rules.name, m.rules.kitty_scheme) == ("duplicate", "pair4")
    for _ in range(4):  # two boards at each of three tables, the second dealt by itself with the same seats
        for d, uid in zip(drivers, people, strict=True):
            table = rig.host.by_chat.get(("fake", d.chat_id))
            if table is not None and table.status == "active":
                await play_out(rig, table, {uid: "buttons"})
        await settle(rig)
    done = await store.event(ev.id)
    assert done is not None and done.status == "done"
    rows = await store.set_boards("event", str(ev.id))
    plays = await store.plays([b.id for b in rows])
    assert len(plays) == 6 and all(p.status == "done" for p in plays)
    # by hand: against the two other tables, 2 matchpoints for each beaten, 1 for each tie, out of 4;
    # a pair is its table's (two tables may both seat an "AI-1 & AI-3": two pairs, not one)
    for direction, (a, b), sign in (("NS", (0, 2), 1), ("EW", (1, 3), -1)):
        expect: dict[str, list[float]] = {}
        names: dict[str, str] = {}
        for board in rows:
            mine = [p for p in plays if p.board_id == board.id]
            assert len(mine) == 3 and len({p.chat_id for p in mine}) == 3
            for p in mine:
                mp = sum(2 if sign * _ns(p) > sign * _ns(o) else 1 if _ns(p) == _ns(o) else 0
                         for o in mine if o is not p)
                expect.setdefault(p.chat_id, []).append(100.0 * mp / 4)
                names[p.chat_id] = f"{p.seats[a]['name']} & {p.seats[b]['name']}"
        got = sorted((ln.name, ln.percent, ln.boards) for ln in pairs_ranking(rows, plays) if ln.direction == direction)
        assert got == sorted((names[c], sum(v) / 2, 2) for c, v in expect.items()), direction
    people_names = [f"P{uid}" for uid in people]
    # what each table was told: its result on each board against the tables so far, then the ranking
    for chat_id in ("g1", "g2", "g3"):
        said = texts_to(rig, chat_id)
        boards = [t for t in said if t.startswith("Board ") and "against the other tables" in t]
        assert len(boards) == 2 and not any("N-S" in t for t in said), said[-5:]
        final = [t for t in said if t.startswith(f"Pairs event {ev.id} · 2 boards")]
        assert final and all(name in final[-1] for name in people_names)
        assert not any(CARD_RE.search(t) for t in final)


async def test_a_boards_twelve_minute_clock_runs_out_and_the_rest_is_played_out() -> None:
    rig = await make_rig(FAST)
    try:
        await send(rig, rig.d.command("u1", "duplicate", "new", "boards=1"))  # 12 minutes a board: 002 7.5
        await send(rig, rig.d.command("u1", "duplicate", "join", "home"))
        await send(rig, rig.d.command("u1", "duplicate", "ai"))
        await send(rig, rig.d.command("u1", "duplicate", "start"))
        table = rig.host.by_chat[("fake", "g1")]
        assert table.status == "active" and "time_limit" in table.deadlines
        mark = len(rig.platform.log)
        rig.clock.advance(12 * 60 - 1)  # u1 (North, the dealer) never moves; FAST has no turn timer
        await settle(rig)
        assert table.status == "active" and not any("Time is up" in t for t in texts_to(rig, "g1", mark))
        rig.clock.advance(1)
        await settle(rig)
        assert table.status == "finished"
        said = texts_to(rig, "g1", mark)
        assert "Time is up for this board: the rest is played out at once." in said
        assert table.match is not None and table.match.history
        points = int(table.match.history[0]["defender_points"])
        done = [t for t in said if t.startswith("📋 Board 1 is played")]
        assert done and f"the defenders took {points} points" in done[0]  # the board's result stands
        assert not any("🏆" in t for t in said)
        assert (await BoardStore.of(rig.store).all_open_events()) == []  # the closed room's AIs played it next
    finally:
        await rig.host.stop()
        await rig.store.close()
