"""Nobody plays a board they could have seen (issue 33, item 1), and nobody replays one they have not played.

The issue's case: u5 sits in group g1, unseated, while g1 plays daily board 1; the group is told the
cards trick by trick. u5 then asks for the same board in g2 and must be refused, and `replay` of g1's
table (with or without a hand) must not show it to u5. The rule these tests hold is written in
docs/duplicate.md ("Who has seen a board").
"""

from __future__ import annotations

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
    assert "have not played" not in "\n".join(texts_to(rig, "g1", before))
