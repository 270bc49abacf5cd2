"""The board tables on SQLite and PostgreSQL: sets made once, plays, who has seen a board, events."""

from __future__ import annotations

from typing import Any

import pytest

from persistence import SqliteStore
from persistence.board_store import BoardStore
from persistence.postgres import PostgresStore

RULES = {"name": "classic", "board": "0/A/H", "revolution": False}


def _set(seeds: list[int]) -> list[tuple[int, int, str, str, str, dict[str, Any]]]:
    return [(n, seed, f"{(n - 1) % 4}/A/H", "marked", "", RULES) for n, seed in enumerate(seeds, 1)]


@pytest.fixture
def boards(sql_store: SqliteStore | PostgresStore) -> BoardStore:
    return BoardStore.of(sql_store)


class TestBoardStore:
    """Every test on SQLite and on PostgreSQL (`sql_store`)."""

    async def test_a_set_is_made_once_and_the_first_wins(self, boards: BoardStore) -> None:
        first = await boards.add_boards("daily", "2026-12-02", _set([11, 12, 13]))
        again = await boards.add_boards("daily", "2026-12-02", _set([91, 92, 93]))
        assert [b.seed for b in again] == [11, 12, 13] == [b.seed for b in first]
        assert [b.number for b in first] == [1, 2, 3] and first[1].spec == "1/A/H"
        assert first[0].rules == RULES
        got = await boards.board(first[2].id)
        assert got == first[2]
        assert await boards.board(999_999) is None
        assert await boards.set_boards("daily", "2026-12-03") == []

    async def test_plays_and_who_has_seen(self, boards: BoardStore) -> None:
        (b1, b2) = await boards.add_boards("event", "7", _set([5, 6]))
        seats = [{"kind": "human", "user_id": "u1", "name": "Ann"}, {"kind": "ai"}, {"kind": "ai"}, {"kind": "ai"}]
        await boards.start_play(b1.id, 101, "telegram", "-1", seats, event_id=7, room="open",
                                seen_by=[("telegram", "u1")])
        await boards.start_play(b1.id, 102, "discord", "55", seats, event_id=7, room="closed",
                                seen_by=[("discord", "u2")])
        assert await boards.has_seen(b1.id, "telegram", "u1")
        assert not await boards.has_seen(b2.id, "telegram", "u1")
        assert not await boards.has_seen(b1.id, "discord", "u1")  # one person per platform id
        assert await boards.seen_any([b1.id, b2.id], "telegram", ["u1", "u9"]) == {"u1"}
        row = await boards.finish_play(101, "done", defender_points=85, declarer_team=0)
        assert row is not None and row.defender_points == 85 and row.status == "done" and row.room == "open"
        again = await boards.finish_play(101, "abandoned")
        assert again is not None and again.status == "done"  # a finished table keeps its result
        assert await boards.finish_play(555, "done", 10, 0) is None
        plays = await boards.plays([b1.id])
        assert [(p.match_id, p.status, p.event_id) for p in plays] == [(101, "done", 7), (102, "playing", 7)]
        assert plays[0].seats == seats

    async def test_being_in_a_chat_where_a_board_was_played_is_having_seen_it(self, boards: BoardStore) -> None:
        (b1, b2) = await boards.add_boards("daily", "2026-12-05", _set([5, 6]))
        seats = [{"kind": "human", "user_id": "u1", "name": "Ann"}, {"kind": "ai"}, {"kind": "ai"}, {"kind": "ai"}]
        await boards.note_present("telegram", "-1", "u5")  # before the board is played there
        await boards.note_present("telegram", "-1", "u5")  # once is kept
        await boards.start_play(b1.id, 101, "telegram", "-1", seats, seen_by=[("telegram", "u1")])
        await boards.note_present("telegram", "-1", "u6")  # after: the chat's history keeps its cards
        await boards.note_present("telegram", "-2", "u7")  # another chat
        await boards.note_present("discord", "-1", "u8")  # the same chat id on another platform
        got = await boards.seen_where([b1.id], "telegram", ["u1", "u5", "u6", "u7", "u8"])
        assert got == {"u1": "", "u5": "-1", "u6": "-1"}
        assert await boards.seen_any([b2.id], "telegram", ["u1", "u5", "u6"]) == set()
        assert await boards.seen_where([b1.id], "discord", ["u8"]) == {}
        assert not await boards.has_seen(b1.id, "telegram", "u5")  # seen, not dealt: its cards stay hidden

    async def test_events_keep_their_state(self, boards: BoardStore) -> None:
        eid = await boards.create_event("team", "telegram", "-1", {"teams": [["张三"], []]})
        other = await boards.create_event("pairs", "telegram", "-1", {})
        ev = await boards.event(eid)
        assert ev is not None and ev.status == "forming" and ev.state == {"teams": [["张三"], []]}
        await boards.save_event(eid, "playing", {"score": [4, 6]})
        assert [e.id for e in await boards.open_events("telegram", "-1")] == [other, eid]
        await boards.save_event(other, "done", {})
        assert [e.id for e in await boards.all_open_events()] == [eid]
        ev = await boards.event(eid)
        assert ev is not None and ev.state == {"score": [4, 6]} and ev.status == "playing"
