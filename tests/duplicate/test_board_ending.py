"""Boards speak as boards (issue 33, item 4): a board table ends with its result and the running swing.

A board is one hand compared with other tables; "🏆 The match is over · Team A wins · Levels now…"
at its end told people something false. Each table now ends with the board's result as duplicate
scores it, then (a team match) the swing or, while the other room has still to play the board, the
running score, said in that room's chat alone.
"""

from __future__ import annotations

from bot.scene.text import result_lines, summary_lines
from persistence.board_store import BoardStore
from tests.duplicate.conftest import chat, texts_to
from tests.host.conftest import Rig
from tests.host.helpers import play_out, send

NO_MATCH_WORDS = ("🏆", "The match is over", "wins:", "Levels now", "takes over", "keeps the deal", "goes up", "N-S",
                  "E-W", "% against")  # the old "N-S 50% against 1 table so far"


async def test_a_daily_board_table_ends_with_its_result_not_a_winner(rig: Rig) -> None:
    await send(rig, rig.d.command("u1", "daily", "play", "1", "ai"))
    table = rig.host.by_chat[("fake", "g1")]
    before = len(rig.platform.log)
    await play_out(rig, table, {"u1": "buttons"})
    said = texts_to(rig, "g1", before)
    assert table.match is not None
    h = table.match.history[0]
    team = int(h["declarer_team"])
    points, side = int(h["defender_points"]), ("Team A (①Pu1, ③AI-3 🤖)", "Team B (②AI-2 🤖, ④AI-4 🤖)")[team]
    score = 200 if points <= 0 else -points
    done = [t for t in said if t.startswith("📋 Board 1 is played")]
    assert done == [f"📋 Board 1 is played: {side} declared, the defenders took {points} points; the declarers"
                    f" score {score:+d}. A board has no winner at its table: it is compared with the other"
                    " tables that play it."], said[-3:]
    hand_over = next(t for t in said if t.startswith("Hand 1 is over"))
    assert f"Defenders' points: {points}" in hand_over
    for t in said:  # the table message (the scene every door draws) included
        assert not any(w in t for w in NO_MATCH_WORDS), t
    # then the comparison with the field, the daily board's running figure
    assert said[-1] == ("Daily board 1 against the field: no other table has played it yet, so Team A and Team B"
                        " stand at 50% each until one does.")
    table_msg = [t for t in said if t.startswith("80 Points")][-1]
    assert "A board, played at" in table_msg and "Now: board played" in table_msg and "Levels:" not in table_msg
    # the scene every door draws (the web page, the terminal) ends the same way: the board's line,
    # and a hand's end without a deal won or levels climbed
    sc = table.screen.scenes.public()
    assert sc.result is not None and sc.summary is not None
    assert result_lines(sc.result, sc.seats, "en") == done
    assert not any(w in line for line in summary_lines(sc.summary, sc.seats, "en") for w in NO_MATCH_WORDS)


async def test_a_team_match_room_hears_the_running_score_and_the_other_room_nothing_early(rig: Rig) -> None:
    g2 = chat(rig, "g2")
    await send(rig, rig.d.command("u1", "duplicate", "new", "boards=2", "trump=bid"))
    eid = (await BoardStore.of(rig.store).all_open_events())[-1].id
    await send(rig, g2.command("u5", "duplicate", "room", str(eid)))
    await send(rig, rig.d.command("u1", "duplicate", "join", "home"))
    await send(rig, g2.command("u5", "duplicate", "join", "visitors"))
    await send(rig, rig.d.command("u1", "duplicate", "ai"))
    await send(rig, rig.d.command("u1", "duplicate", "start"))
    open_table, closed = rig.host.by_chat[("fake", "g1")], rig.host.by_chat[("fake", "g2")]
    for t in (open_table, closed):  # a team match is played under document 002's own preset by default
        assert t.match is not None and (t.match.rules.name, t.match.rules.kitty_scheme) == ("duplicate", "pair4")
    start = len(rig.platform.log)
    await play_out(rig, open_table, {"u1": "buttons"})
    to_open, to_closed = texts_to(rig, "g1", start), texts_to(rig, "g2", start)
    assert any(t.startswith("📋 Board 1 is played") for t in to_open)
    assert f"Event {eid}, board 1: its swing comes once the other room has played it. So far: Home 0 : 0 Visitors" \
        in to_open, to_open[-3:]
    assert not any("📋" in t or "swing" in t for t in to_closed)
    assert not any(w in t for t in to_open for w in NO_MATCH_WORDS)
    mark = len(rig.platform.log)
    await play_out(rig, closed, {"u5": "buttons"})
    for _ in range(5):
        await rig.host.settle()
    to_closed = texts_to(rig, "g2", mark)
    assert any(t.startswith("📋 Board 1 is played") for t in to_closed)
    assert any(t.startswith(f"Event {eid}, board 1:") and "Home" in t for t in to_closed)
    assert not any("its swing comes once" in t for t in to_closed)  # both rooms have played it: the swing itself
