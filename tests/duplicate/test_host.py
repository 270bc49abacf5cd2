"""Boards through the host: a duplicate match of AI teams, daily boards in three chats, and no leaks."""

from __future__ import annotations

import random
import re
from collections.abc import AsyncIterator

import pytest

from app.features import build_host
from bot.cardtext import card_text
from bot.duplicate.events import team_score
from bot.duplicate.scoring import board_swing
from bot.league.records import MatchRecord
from bot.table import Table
from engine.boards import board_cards, parse_board
from engine.cards import cards_str
from fakes.clock import FakeClock
from persistence.board_store import BoardStore
from persistence.league_store import LeagueStore
from tests.duplicate.conftest import chat, texts_to
from tests.host.conftest import FAST, Rig, open_sqlite
from tests.host.fakes import Driver, RecordingPlatform
from tests.host.helpers import play_out, send
from tests.host.leaks import CARD_RE


async def event_id(rig: Rig) -> int:
    events = await BoardStore.of(rig.store).all_open_events()
    return events[-1].id


@pytest.fixture
async def ai_rig() -> AsyncIterator[Rig]:
    """AI seats decide with their own level (basic, random) as in production, not the engine's quick move."""
    store = await open_sqlite()
    platform = RecordingPlatform()
    clock = FakeClock()
    host = build_host(store, clock=clock, defaults=FAST, use_ai_threads=True, rng=random.Random(5))
    host.register(platform)
    await host.start()
    r = Rig(host, store, platform, clock, Driver(platform))
    yield r
    await host.stop()
    await store.close()


async def test_a_whole_duplicate_match_of_four_boards_between_two_ai_teams(ai_rig: Rig) -> None:
    rig = ai_rig
    g2 = chat(rig, "g2")
    await send(rig, rig.d.command("u1", "duplicate", "new", "boards=4"))
    eid = await event_id(rig)
    await send(rig, g2.command("u2", "duplicate", "room", str(eid)))
    await send(rig, rig.d.command("u1", "duplicate", "ai", "home", "basic"))
    await send(rig, rig.d.command("u1", "duplicate", "ai", "visitors", "random"))
    await send(rig, rig.d.command("u1", "duplicate", "start"))
    for _ in range(50):
        await rig.host.settle()
        ev = await BoardStore.of(rig.store).event(eid)
        if ev is not None and ev.status == "done":
            break
    assert ev is not None and ev.status == "done", ev
    store = BoardStore.of(rig.store)
    rows = await store.set_boards("event", str(eid))
    plays = await store.plays([b.id for b in rows])
    assert len(rows) == 4 and len(plays) == 8
    assert {(p.room, p.chat_id) for p in plays} == {("open", "g1"), ("closed", "g2")}
    # the same board at both tables: the same cards, the seats swapped
    for b in rows:
        mine = {p.room: p for p in plays if p.board_id == b.id}
        assert mine["open"].seats[0]["name"].startswith("AI-Ho") and mine["closed"].seats[1]["name"].startswith("AI-Hc")
        for p in mine.values():
            stored = await rig.store.get_match(p.match_id)
            assert stored is not None and stored.seed == b.seed and stored.rules["board"] == b.spec
    # the score recomputed by hand from the stored points
    home = visitors = 0
    for b in rows:
        o = next(p for p in plays if p.board_id == b.id and p.room == "open")
        c = next(p for p in plays if p.board_id == b.id and p.room == "closed")
        assert o.defender_points is not None and c.defender_points is not None
        s = board_swing(parse_board(b.spec).dealer % 2, o.defender_points, c.defender_points)
        home, visitors = home + s.home, visitors + s.visitors
    score = team_score(rows, plays)
    assert (score.home, score.visitors) == (home, visitors) and score.done
    assert ev.state["final"] == [home, visitors]
    for room_chat in ("g1", "g2"):
        said = "\n".join(texts_to(rig, room_chat))
        assert f"{home} : {visitors}" in said, said[-500:]
        assert said.count(f"Event {eid}, board") - said.count("its swing comes once") == 4  # each swing once
    # into each room's league as what it is: match points in their own columns, a tie as a tie
    recorded = [MatchRecord.from_dict(r) for room_chat in ("g1", "g2")
                for r in await LeagueStore.of(rig.store).matches("fake", room_chat, None)]
    assert len(recorded) == 2 and all(r.ending == "duplicate" and r.counts for r in recorded)
    by_chat = {r.chat_id: r for r in recorded}
    assert by_chat["g1"].dup_points == (home, visitors)  # home sits N-S (team 0) in the open room
    assert by_chat["g2"].dup_points == (visitors, home)  # and E-W (team 1) in the closed one
    assert by_chat["g1"].levels_gained == (0, 0) == by_chat["g2"].levels_gained  # no invented levels
    want = None if home == visitors else 0 if home > visitors else 1
    assert by_chat["g1"].winner_team == want
    assert by_chat["g2"].winner_team == (None if want is None else 1 - want)


async def test_both_rooms_in_one_chat_play_one_table_after_the_other(rig: Rig) -> None:
    await send(rig, rig.d.command("u1", "duplicate", "new", "boards=2", "trump=bid"))
    eid = await event_id(rig)
    await send(rig, rig.d.command("u1", "duplicate", "name", "home", "Lions"))
    await send(rig, rig.d.command("u1", "duplicate", "ai"))
    await send(rig, rig.d.command("u1", "duplicate", "start"))
    for _ in range(30):
        await rig.host.settle()
    ev = await BoardStore.of(rig.store).event(eid)
    assert ev is not None and ev.status == "done"
    plays = await BoardStore.of(rig.store).plays([b.id for b in await BoardStore.of(rig.store).set_boards(
        "event", str(eid))])
    assert [p.room for p in sorted(plays, key=lambda p: p.match_id)] == ["open", "closed", "open", "closed"]
    assert any("Lions" in t for t in texts_to(rig, "g1"))


async def test_people_in_both_rooms_of_one_chat_are_refused(rig: Rig) -> None:
    await send(rig, rig.d.command("u1", "duplicate", "new"))
    await send(rig, rig.d.command("u1", "duplicate", "join", "home"))
    # one chat is both rooms: u2 joins the visitors in the open room, nobody can sit in the closed room
    # with people unless it has its own chat, so starting with people in one room only works ...
    await send(rig, rig.d.command("u1", "duplicate", "ai"))
    notes = await send(rig, rig.d.command("u1", "duplicate", "start"))
    assert not notes  # people in the open room only: the AI room plays each board after them
    eid = await event_id(rig)
    ev = await BoardStore.of(rig.store).event(eid)
    assert ev is not None and ev.status == "playing"
    await send(rig, rig.d.command("u3", "duplicate", "end"))
    assert "creator" in (rig.d.last.texts[0] if rig.d.last and rig.d.last.texts else "creator")


async def test_bad_duplicate_input_gets_answers(rig: Rig) -> None:
    assert await send(rig, rig.d.command("u1", "duplicate", "join", "home")) == [
        "No duplicate event here. duplicate new starts a team match, duplicate pairs a pairs event."]
    notes = await send(rig, rig.d.command("u1", "duplicate", "new", "boards=99"))
    assert notes and notes[0].startswith("“boards=99” is out of range. boards: 1–16.")
    assert "\nDuplicate (document 002)" in notes[0]
    notes = await send(rig, rig.d.command("u1", "duplicate", "room", "12345"))
    assert notes == ["No open duplicate event 12345."]
    await send(rig, rig.d.command("u1", "duplicate", "new"))
    notes = await send(rig, rig.d.command("u1", "duplicate", "start"))
    assert notes == ["8 places are still free: duplicate join home|visitors, or duplicate ai fills them."]
    notes = await send(rig, rig.d.command("u1", "board", "play", "nope"))
    assert notes == ["No board nope."]


async def _daily_table(rig: Rig, d: Driver, uid: str) -> Table:
    await send(rig, d.command(uid, "daily", "play", "1", "ai"))
    table = rig.host.by_chat[("fake", d.chat_id)]
    assert table.status == "active", texts_to(rig, d.chat_id)[-3:]
    return table


async def test_a_daily_board_in_three_chats_compared_and_never_seen_before_it_is_played(rig: Rig) -> None:
    chats = [rig.d, chat(rig, "g2"), chat(rig, "g3")]
    await send(rig, chats[0].command("u1", "daily"))
    assert "Today's boards" in texts_to(rig, "g1")[-1]
    tables = []
    for i, d in enumerate(chats):
        uid = f"u{i + 1}"
        before = len(rig.platform.log)
        # before playing: asking for the board shows nothing of it
        board_id = (await BoardStore.of(rig.store).set_boards("daily", _day(rig)))[0].id
        notes = await send(rig, d.command(uid, "board", str(board_id)))
        assert notes and "not played" in notes[0] and not CARD_RE.search(notes[0])
        # nothing sent to this chat or this person so far names a card
        for s in rig.platform.log[:before]:
            if s.where.chat_id in (d.chat_id, uid):
                assert not CARD_RE.search(s.view.text), (uid, s.view.text[:200])
        table = await _daily_table(rig, d, uid)
        await play_out(rig, table, {uid: "buttons"})
        tables.append(table)
        compared = [t for t in texts_to(rig, d.chat_id) if t.startswith("Daily board 1 against the field")]
        # the other tables it is compared with: none for the first, then the ones before it
        assert compared and (f"compared with {i} other table{'s' if i > 1 else ''} so far" in compared[-1] if i
                             else "no other table has played it yet" in compared[-1]), compared[-1]
    store = BoardStore.of(rig.store)
    board = (await store.set_boards("daily", _day(rig)))[0]
    plays = await store.plays([board.id])
    assert len(plays) == 3 and all(p.status == "done" for p in plays)
    # the three tables were dealt the very same cards
    cards = board_cards(board.seed, parse_board(board.spec).dealer)
    for t in tables:
        assert t.match is not None
        stored = await rig.store.get_match(t.id)
        assert stored is not None and stored.seed == board.seed
    # once played, the board shows itself (privately) with every table's result
    before = len(rig.platform.log)
    notes = await send(rig, chats[0].command("u1", "board", str(board.id)))
    assert notes == ["Sent to you privately."]
    private = [s.view.text for s in rig.platform.log[before:] if s.where.private and s.where.chat_id == "u1"]
    assert private and "Tables: 3" in private[0]
    assert len(re.findall(r"table \d+ \(", private[0])) == 3
    assert len(CARD_RE.findall(private[0])) == 108 + len(board.drawn.split())  # every hand and the kitty
    kitty_line = next(line for line in private[0].split("\n") if line.startswith("Kitty"))
    assert sorted(CARD_RE.findall(kitty_line)) == sorted(card_text(c) for c in cards_str(cards.kitty))
    # a second try at the same board is refused
    notes = await send(rig, chats[1].command("u2", "daily", "play", "1", "ai"))
    assert notes and "already had" in notes[0]
    # today's standings: results of boards others may still play, so only privately to someone who
    # has played all of today's boards; to everyone the next day
    notes = await send(rig, chats[2].command("u3", "daily", "standings", "today"))
    assert notes and "once you have played all of today's boards (3 left)" in notes[0], notes
    assert not any(t.startswith("Daily boards ·") for t in texts_to(rig, "g3"))
    for b in (await BoardStore.of(rig.store).set_boards("daily", _day(rig)))[1:]:
        await send(rig, chats[2].command("u3", "daily", "play", str(b.number), "ai"))
        await play_out(rig, rig.host.by_chat[("fake", "g3")], {"u3": "buttons"})
    before = len(rig.platform.log)
    notes = await send(rig, chats[2].command("u3", "daily", "standings", "today"))
    assert notes == ["Sent to you privately."]
    private = [s.view.text for s in rig.platform.log[before:] if s.where.private and s.where.chat_id == "u3"]
    assert private and private[0].startswith("Daily boards ·") and all(f"Pu{i}" in private[0] for i in (1, 2, 3))
    assert rig.platform.files and rig.platform.files[-1][1] == "daily.png"
    assert rig.platform.files[-1][0].chat_id == "u3"
    assert rig.platform.files[-1][2][:8] == b"\x89PNG\r\n\x1a\n"
    rig.clock.advance(86_400)  # the next day: the standings are everyone's, text and picture
    await send(rig, chats[1].command("u9", "daily", "standings"))
    said = texts_to(rig, "g2")
    standing = next(t for t in said if t.startswith("Daily boards ·"))
    assert all(f"Pu{i}" in standing for i in (1, 2, 3)), standing
    assert rig.platform.files[-1][0].chat_id == "g2" and rig.platform.files[-1][1] == "daily.png"
    await send(rig, chats[2].command("u3", "daily", "standings", "week"))
    assert texts_to(rig, "g3")[-2].startswith("Daily boards · week")  # then its picture


def _day(rig: Rig) -> str:
    from bot.duplicate.daily import today
    return today(rig.host.clock).isoformat()
