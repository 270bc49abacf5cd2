"""Pairs events, a board's clock, a restart in the middle of a team match, single boards, the terminal."""

from __future__ import annotations

import re

from app.features import build_host
from bot.duplicate.events import pairs_ranking
from persistence.board_store import BoardStore
from tests.duplicate.conftest import chat, texts_to
from tests.host.conftest import FAST, Rig, make_rig
from tests.host.helpers import play_out, send
from tests.host.leaks import CARD_RE


async def settle(rig: Rig, rounds: int = 20) -> None:
    for _ in range(rounds):
        await rig.host.settle()


async def test_a_pairs_event_at_two_tables_ranked_on_defenders_points(rig: Rig) -> None:
    g2 = chat(rig, "g2")
    await send(rig, rig.d.command("u1", "duplicate", "pairs", "boards=2"))
    ev = (await BoardStore.of(rig.store).all_open_events())[-1]
    assert ev.kind == "pairs"
    await send(rig, g2.command("u5", "duplicate", "table", str(ev.id)))
    for d, uid in ((rig.d, "u1"), (g2, "u5")):
        for _ in range(3):
            await send(rig, d.command(uid, "addbot"))
        await send(rig, d.command(uid, "start"))
    for _ in range(4):  # two boards at each table; the second deals itself with the same seats
        for d, uid in ((rig.d, "u1"), (g2, "u5")):
            table = rig.host.by_chat.get(("fake", d.chat_id))
            if table is not None and table.status == "active":
                await play_out(rig, table, {uid: "buttons"})
        await settle(rig)
    store = BoardStore.of(rig.store)
    done = await store.event(ev.id)
    assert done is not None and done.status == "done"
    rows = await store.set_boards("event", str(ev.id))
    plays = await store.plays([b.id for b in rows])
    assert len(plays) == 4 and all(p.status == "done" for p in plays)
    # by hand: on each board the N-S pair with the better score gets 100 %, the other 0 % (a tie: 50 % each)
    expect: dict[str, list[float]] = {}
    for b in rows:
        mine = [p for p in plays if p.board_id == b.id]
        ns = [p.defender_points if p.declarer_team == 1 else -(p.defender_points or 0) for p in mine]
        for p, s, o in ((mine[0], ns[0], ns[1]), (mine[1], ns[1], ns[0])):
            name = f"{p.seats[0]['name']} & {p.seats[2]['name']}"
            expect.setdefault(name, []).append(100.0 if (s or 0) > (o or 0) else 50.0 if s == o else 0.0)
    got = {ln.name: ln.percent for ln in pairs_ranking(rows, plays) if ln.direction == "NS"}
    assert got == {k: sum(v) / len(v) for k, v in expect.items()}
    for c in ("g1", "g2"):
        assert any(t.startswith(f"Pairs event {ev.id}") for t in texts_to(rig, c))


async def test_a_boards_clock_plays_the_rest_out() -> None:
    rig = await make_rig(FAST)
    try:
        await send(rig, rig.d.command("u1", "duplicate", "new", "boards=1", "minutes=1"))
        await send(rig, rig.d.command("u1", "duplicate", "join", "home"))
        await send(rig, rig.d.command("u1", "duplicate", "ai"))
        await send(rig, rig.d.command("u1", "duplicate", "start"))
        table = rig.host.by_chat[("fake", "g1")]
        assert table.status == "active" and "time_limit" in table.deadlines
        # u1 (North, the dealer) never moves; FAST has no turn timer, so only the board's clock ends it
        rig.clock.advance(61)
        await settle(rig)
        assert table.status == "finished"
        assert any("Time is up for this board" in t for t in texts_to(rig, "g1"))
        ev = (await BoardStore.of(rig.store).all_open_events())
        # the closed room (AIs) played the board next and the match is over
        assert ev == []
        assert any("is over" in t for t in texts_to(rig, "g1"))
    finally:
        await rig.host.stop()
        await rig.store.close()


async def test_a_team_match_goes_on_after_a_restart() -> None:
    rig = await make_rig(FAST)
    await send(rig, rig.d.command("u1", "duplicate", "new", "boards=2"))
    await send(rig, rig.d.command("u1", "duplicate", "join", "home"))
    await send(rig, rig.d.command("u1", "duplicate", "ai"))
    await send(rig, rig.d.command("u1", "duplicate", "start"))
    eid = (await BoardStore.of(rig.store).all_open_events())[-1].id
    await rig.host.stop()  # the bot goes down with board 1 dealt in the open room
    host = build_host(rig.store, clock=rig.clock, defaults=FAST, use_ai_threads=False)
    host.register(rig.platform)
    await host.start()
    rig2 = Rig(host, rig.store, rig.platform, rig.clock, rig.d)
    try:
        for _ in range(4):
            table = host.by_chat.get(("fake", "g1"))
            if table is not None and table.seat_of("u1") is not None and table.status == "active":
                await play_out(rig2, table, {"u1": "buttons"})
            await settle(rig2)
        ev = await BoardStore.of(rig.store).event(eid)
        assert ev is not None and ev.status == "done"
        plays = await BoardStore.of(rig.store).plays(
            [b.id for b in await BoardStore.of(rig.store).set_boards("event", str(eid))])
        # people first, the AI room after them, board by board
        assert [p.room for p in sorted(plays, key=lambda p: p.match_id)] == ["open", "closed", "open", "closed"]
    finally:
        await host.stop()
        await rig.store.close()


async def test_a_single_board_played_again_in_another_chat(rig: Rig) -> None:
    await send(rig, rig.d.command("u1", "board", "new", "trump=marked", "ai"))
    t1 = rig.host.by_chat[("fake", "g1")]
    await play_out(rig, t1, {"u1": "buttons"})
    board_id = t1.meta.board.id
    g2 = chat(rig, "g2")
    notes = await send(rig, g2.command("u1", "board", "play", str(board_id), "ai"))
    assert notes and "already had" in notes[0]  # the same person cannot play it twice
    await send(rig, g2.command("u2", "board", "play", str(board_id), "ai"))
    t2 = rig.host.by_chat[("fake", "g2")]
    assert t2.match is not None and t1.match is not None
    assert t2.seed == t1.seed and t2.rules == t1.rules
    await play_out(rig, t2, {"u2": "buttons"})
    plays = await BoardStore.of(rig.store).plays([board_id])
    assert [p.chat_id for p in plays] == ["g1", "g2"] and all(p.status == "done" for p in plays)
    # a third person asks about it from a group: nothing of it is shown
    notes = await send(rig, g2.command("u3", "board", str(board_id)))
    assert notes and not CARD_RE.search(notes[0]) and "defenders" not in notes[0]


async def test_daily_at_the_terminal_seats_three_ais_and_deals(rig: Rig) -> None:
    rig.platform.one_screen = True
    await send(rig, rig.d.event("command", "u9", private=True, name="daily", args=("play",)))
    table = rig.host.by_chat[("fake", "u9")]
    assert table.status == "active"
    assert [s.kind for s in table.seats] == ["human", "ai", "ai", "ai"]
    await play_out(rig, table, {"u9": "buttons"})
    said = texts_to(rig, "u9")
    assert not any(re.search(r"\b(reason|daily|board|dup)\.[a-z_]+\b", t) for t in said), said[-3:]  # no raw keys
    assert any(t.startswith(("Daily board 1 against the field", "每日第 1 副")) for t in texts_to(rig, "u9")), \
        texts_to(rig, "u9")[-3:]


async def test_help_and_usage_in_each_language(rig: Rig) -> None:
    for lang, word in (("zh", "复式"), ("zht", "複式"), ("en", "Duplicate")):
        await send(rig, rig.d.command("u1", "lang", lang))
        await send(rig, rig.d.command("u1", "duplicate"))
        assert word in texts_to(rig, "g1")[-1]
        await send(rig, rig.d.command("u1", "help"))
        assert "duplicate" in texts_to(rig, "g1")[-1]
