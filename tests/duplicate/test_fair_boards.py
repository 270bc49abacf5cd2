"""Nobody plays a board they could have seen (issue 33, item 1), and nobody replays one they have not played.

The issue's case: u5 sits in group g1, unseated, while g1 plays daily board 1; the group is told the
cards trick by trick. u5 then asks for the same board in g2 and must be refused, and `replay` of g1's
table (with or without a hand) must not show it to u5. The rule these tests hold is written in
docs/duplicate.md ("Who has seen a board").
"""

from __future__ import annotations

import re

from bot.duplicate.daily import today
from persistence.board_store import BoardStore
from tests.duplicate.conftest import chat, texts_to
from tests.host.conftest import Rig
from tests.host.helpers import play_out, send
from tests.host.leaks import CARD_RE


async def _board_one(rig: Rig) -> int:
    return (await BoardStore.of(rig.store).set_boards("daily", today(rig.host.clock).isoformat()))[0].id


async def _play_daily_in(rig: Rig, chat_id: str, uid: str) -> int:
    """`uid` plays daily board 1 with three AIs in `chat_id`; the table's match id."""
    d = rig.d if chat_id == "g1" else chat(rig, chat_id)
    await send(rig, d.command(uid, "daily", "play", "1", "ai"))
    table = rig.host.by_chat[("fake", chat_id)]
    assert table.status == "active", texts_to(rig, chat_id)[-3:]
    await play_out(rig, table, {uid: "buttons"})
    return table.id


async def test_someone_in_the_group_while_a_board_is_played_there_may_not_play_it_elsewhere(rig: Rig) -> None:
    await send(rig, rig.d.command("u5", "daily"))  # u5 is in g1: the bot has heard from them there
    match_id = await _play_daily_in(rig, "g1", "u1")
    assert any(CARD_RE.search(t) for t in texts_to(rig, "g1")), "the group was shown the cards"
    g2 = chat(rig, "g2")
    notes = await send(rig, g2.command("u5", "daily", "play", "1", "ai"))
    assert notes and "was played in a chat you are in" in notes[0], notes
    assert ("fake", "g2") not in rig.host.by_chat  # no table, no result against the field
    plays = await BoardStore.of(rig.store).plays([await _board_one(rig)])
    assert [p.match_id for p in plays] == [match_id]
    # the next unplayed board is still theirs to play
    await send(rig, g2.command("u5", "daily", "play", "ai"))
    table = rig.host.by_chat[("fake", "g2")]
    assert table.meta.board is not None and table.meta.board.number == 2


async def test_someone_who_comes_to_the_group_after_the_board_was_played_has_seen_it_too(rig: Rig) -> None:
    await _play_daily_in(rig, "g1", "u1")
    await send(rig, rig.d.command("u6", "daily", "standings"))  # u6 turns up later: g1's history holds the cards
    notes = await send(rig, chat(rig, "g3").command("u6", "daily", "play", "1", "ai"))
    assert notes and "was played in a chat you are in" in notes[0], notes
    # and `board <id>` still shows u6 nothing of it: they have not played it
    board_id = await _board_one(rig)
    notes = await send(rig, rig.d.command("u6", "board", str(board_id)))
    assert notes and "not played" in notes[0] and not CARD_RE.search(notes[0])


async def test_a_lobby_refuses_to_deal_a_board_to_someone_who_was_in_a_chat_where_it_was_played(rig: Rig) -> None:
    await send(rig, rig.d.command("u5", "daily"))
    await _play_daily_in(rig, "g1", "u1")
    g4 = chat(rig, "g4")
    await send(rig, g4.command("u7", "daily", "play", "1"))  # a lobby: people join, then start
    table = rig.host.by_chat[("fake", "g4")]
    assert table.status == "lobby"
    for uid in ("u5", "u8", "u9"):
        await send(rig, g4.command(uid, "join"))
    before = len(rig.platform.log)
    await send(rig, g4.command("u7", "start"))
    said = "\n".join(texts_to(rig, "g4", before))
    assert "Pu5: " in said and "was played in a chat you are in" in said, said[-400:]
    assert table.status == "lobby", table.status  # not dealt
    assert not any(CARD_RE.search(s.view.text) for s in rig.platform.log[before:]
                   if s.where.chat_id in ("g4", "u5", "u7", "u8", "u9"))


async def test_replay_of_a_board_is_only_for_people_who_played_it(rig: Rig) -> None:
    await send(rig, rig.d.command("u5", "daily"))
    match_id = await _play_daily_in(rig, "g1", "u1")
    for words in ((str(match_id),), (str(match_id), "1")):
        before = len(rig.platform.log)
        await send(rig, rig.d.command("u5", "replay", *words))
        told = texts_to(rig, "g1", before)
        assert told == [f"Match {match_id} is a board you have not played: its replay is only for people who"
                        " played it, so that nobody sees a board before playing it."], told
    # the web page's replay answers the same way (a signed link names no person: refused too)
    assert await rig.host.replay("fake", match_id, match_id, 1, "u5") is None
    assert await rig.host.replay("fake", match_id, match_id, 1, None) is None
    told = await rig.host.replay("fake", match_id, match_id, 1, "u1")
    assert told is not None and told["tricks"]
    # whoever played the board, at any table, may replay it
    before = len(rig.platform.log)
    await send(rig, rig.d.command("u1", "replay", str(match_id), "1"))
    shown = "\n".join(texts_to(rig, "g1", before))
    assert CARD_RE.search(shown) and "have not played" not in shown
    await _play_daily_in(rig, "g2", "u2")
    before = len(rig.platform.log)
    await send(rig, rig.d.command("u2", "replay", str(match_id)))
    shown = "\n".join(texts_to(rig, "g1", before))
    assert "have not played" not in shown
    # a board's replay speaks as a board: its score, no winner and no levels (issue 33, item 4)
    assert "Hand 1 (a board):" in shown and "declarers score" in shown and "📋 Board 1 is played: Team " in shown, shown
    assert not any(w in shown for w in ("🏆", "wins:", "Levels now", "take over", "hold")), shown


# ----- the leak scan: everything a person who has not played a board can ask for -----

RESULT_WORDS = ("%", "defenders took", "declarers score", "against the field", "points;", "the board is played")
RESULT_RE = re.compile(r"defenders \d")  # `board <id>`'s line of a table's result


async def test_nothing_of_a_board_or_its_result_reaches_anyone_who_has_not_played_it(rig: Rig) -> None:
    """Every door a person could ask through, scanned: `board`, `replay` (and of a hand), `daily`,
    `daily standings` (yesterday's, the week's, today's), their pictures and the web page's replay,
    for an outsider (u9, never in g1) and for a member of g1 who looked on while it was played but
    did not play (u5). Nothing they are sent names a card of the board or gives its result, and no
    picture is sent them; u1, who played it, gets the board with its cards and result."""
    await send(rig, rig.d.command("u5", "daily"))  # u5 is in g1 (an onlooker)
    match_id = await _play_daily_in(rig, "g1", "u1")
    board_id = await _board_one(rig)
    g2 = chat(rig, "g2")
    asks = (("board", str(board_id)), ("replay", str(match_id)), ("replay", str(match_id), "1"), ("daily",),
            ("daily", "standings"), ("daily", "standings", "week"), ("daily", "standings", "today"))
    before, files = len(rig.platform.log), len(rig.platform.files)
    answers: list[str] = []
    for uid, where in (("u9", g2), ("u5", g2)):
        for words in asks:
            answers += await send(rig, where.command(uid, *words))
            answers += await send(rig, where.event("command", uid, private=True, name=words[0], args=words[1:]))
    sent = [s.view.text for s in rig.platform.log[before:] if s.where.chat_id in ("g2", "u9", "u5")]
    assert len(sent) + len(answers) >= 2 * 2 * len(asks)  # each ask was answered, in the chat or privately
    for text in sent + answers:
        assert not CARD_RE.search(text), text
        assert not any(w in text.lower() for w in RESULT_WORDS) and not RESULT_RE.search(text), text
    assert rig.platform.files[files:] == []  # no standings picture
    for uid in ("u9", "u5", None):  # the web page's replay: a person's, and a link that names nobody
        assert await rig.host.replay("fake", match_id, match_id, 1, uid) is None
    # u1 played it: the board privately, its cards and its table's result (the scan would see them)
    mark = len(rig.platform.log)
    await send(rig, rig.d.command("u1", "board", str(board_id)))
    private = "\n".join(s.view.text for s in rig.platform.log[mark:] if s.where.chat_id == "u1")
    assert CARD_RE.search(private) and RESULT_RE.search(private) and f"table {match_id} (" in private, private


async def test_a_pairs_events_score_shows_a_chat_only_the_boards_its_table_has_played(rig: Rig) -> None:
    """`duplicate score` while a pairs event runs: the ranking of the boards the asking chat's table has
    finished, so a table still playing board 1 learns nothing of how the others did on it."""
    g2 = chat(rig, "g2")
    await send(rig, rig.d.command("u1", "duplicate", "pairs", "boards=2"))
    ev = (await BoardStore.of(rig.store).all_open_events())[-1]
    await send(rig, g2.command("u5", "duplicate", "table", str(ev.id)))
    for d, uid in ((rig.d, "u1"), (g2, "u5")):
        for _ in range(3):
            await send(rig, d.command(uid, "addbot"))
        await send(rig, d.command(uid, "start"))
    await play_out(rig, rig.host.by_chat[("fake", "g1")], {"u1": "buttons"})  # g1 finishes board 1; g2 has not
    for _ in range(5):
        await rig.host.settle()
    mark = len(rig.platform.log)
    await send(rig, g2.command("u5", "duplicate", "score"))
    told = "\n".join(texts_to(rig, "g2", mark))
    assert f"Pairs event {ev.id} · 0 boards" in told and "%" not in told, told
    mark = len(rig.platform.log)
    await send(rig, rig.d.command("u1", "duplicate", "score"))
    told = "\n".join(texts_to(rig, "g1", mark))
    assert f"Pairs event {ev.id} · 1 boards" in told and "50.0%" in told, told
