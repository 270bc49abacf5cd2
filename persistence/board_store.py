"""Boards, the tables that played them, who has seen them, and duplicate events: the only board SQL.

The tables come from migration 0003_boards.sql (0004 on PostgreSQL). Like
`league_store`, the SQL is the dialect SQLite and PostgreSQL share, with `?`
placeholders, run through the store's `transaction()` and `fetchall()`.
Rows come out as frozen values of plain data; persistence knows nothing of
the engine, so a board's cards are not here, only its seed and spec.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from persistence.sql_base import StoreOver, now_text


@dataclass(frozen=True)
class BoardRow:
    id: int
    set_kind: str
    set_key: str
    number: int
    seed: int
    spec: str
    source: str
    drawn: str
    rules: dict[str, Any]


@dataclass(frozen=True)
class PlayRow:
    board_id: int
    match_id: int
    platform: str
    chat_id: str
    event_id: int | None
    room: str
    seats: list[dict[str, Any]]
    status: str
    defender_points: int | None
    declarer_team: int | None
    finished_at: str | None


@dataclass(frozen=True)
class EventRow:
    id: int
    kind: str
    platform: str
    chat_id: str
    status: str
    state: dict[str, Any]


_BOARD_COLS = "id, set_kind, set_key, number, seed, spec, source, drawn, rules"
_PLAY_COLS = ("board_id, match_id, platform, chat_id, event_id, room, seats, status, defender_points,"
              " declarer_team, finished_at")


def _board(row: Any) -> BoardRow:
    return BoardRow(int(row[0]), str(row[1]), str(row[2]), int(row[3]), int(row[4]), str(row[5]), str(row[6]),
                    str(row[7]), json.loads(row[8]))


def _play(row: Any) -> PlayRow:
    return PlayRow(int(row[0]), int(row[1]), str(row[2]), str(row[3]), None if row[4] is None else int(row[4]),
                   str(row[5]), json.loads(row[6]), str(row[7]), None if row[8] is None else int(row[8]),
                   None if row[9] is None else int(row[9]), None if row[10] is None else str(row[10]))


def _event(row: Any) -> EventRow:
    return EventRow(int(row[0]), str(row[1]), str(row[2]), str(row[3]), str(row[4]), json.loads(row[5]))


class BoardStore(StoreOver):
    """Board rows for every chat, over the persistence store (SQLite or PostgreSQL)."""

    USERS = "boards"

    # -- boards ----------------------------------------------------------

    async def add_boards(self, set_kind: str, set_key: str,
                         boards: Sequence[tuple[int, int, str, str, str, dict[str, Any]]]) -> list[BoardRow]:
        """Store a set's boards ``(number, seed, spec, source, drawn, rules)`` unless it exists already.

        Two workers making the same day's set at once both end with the one stored first
        (the set's key is unique), so every chat plays the same boards.
        """
        now = now_text()
        async with self.db.transaction() as conn:
            await conn.executemany(
                "INSERT INTO board (set_kind, set_key, number, seed, spec, source, drawn, rules, created_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                [(set_kind, set_key, n, seed, spec, source, drawn, json.dumps(rules), now)
                 for n, seed, spec, source, drawn, rules in boards],
            )
        return await self.set_boards(set_kind, set_key)

    async def set_boards(self, set_kind: str, set_key: str) -> list[BoardRow]:
        rows = await self.db.fetchall(
            f"SELECT {_BOARD_COLS} FROM board WHERE set_kind = ? AND set_key = ? ORDER BY number",
            (set_kind, set_key))
        return [_board(r) for r in rows]

    async def board(self, board_id: int) -> BoardRow | None:
        rows = await self.db.fetchall(f"SELECT {_BOARD_COLS} FROM board WHERE id = ?", (board_id,))
        return _board(rows[0]) if rows else None

    # -- tables that play them --------------------------------------------

    async def start_play(self, board_id: int, match_id: int, platform: str, chat_id: str,
                         seats: Sequence[dict[str, Any]], *, event_id: int | None = None, room: str = "",
                         seen_by: Iterable[tuple[str, str]] = ()) -> None:
        """A table has been dealt the board: its row, and everyone seated may now look at the board."""
        async with self.db.transaction() as conn:
            await conn.execute(
                "INSERT INTO board_play (board_id, match_id, platform, chat_id, event_id, room, seats, status,"
                " started_at) VALUES (?, ?, ?, ?, ?, ?, ?, 'playing', ?) ON CONFLICT DO NOTHING",
                (board_id, match_id, platform, chat_id, event_id, room, json.dumps(list(seats)), now_text()))
            await conn.executemany(
                "INSERT INTO board_seen (board_id, platform, user_id) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                [(board_id, p, u) for p, u in seen_by])

    async def finish_play(self, match_id: int, status: str, defender_points: int | None = None,
                          declarer_team: int | None = None) -> PlayRow | None:
        """The table's result (``done``) or its end without one (``abandoned``); the row, if it is a board's."""
        async with self.db.transaction() as conn:
            await conn.execute(
                "UPDATE board_play SET status = ?, defender_points = ?, declarer_team = ?, finished_at = ?"
                " WHERE match_id = ? AND status = 'playing'",
                (status, defender_points, declarer_team, now_text(), match_id))
        return await self.play_of_match(match_id)

    async def play_of_match(self, match_id: int) -> PlayRow | None:
        rows = await self.db.fetchall(f"SELECT {_PLAY_COLS} FROM board_play WHERE match_id = ?", (match_id,))
        return _play(rows[0]) if rows else None

    async def plays(self, board_ids: Sequence[int]) -> list[PlayRow]:
        """Every table's row for these boards, in the order they started."""
        if not board_ids:
            return []
        marks = ", ".join("?" for _ in board_ids)
        rows = await self.db.fetchall(
            f"SELECT {_PLAY_COLS} FROM board_play WHERE board_id IN ({marks}) ORDER BY started_at, match_id",
            tuple(board_ids))
        return [_play(r) for r in rows]

    async def has_seen(self, board_id: int, platform: str, user_id: str) -> bool:
        """Whether this person was dealt the board (played it): only they may look at its cards and results."""
        rows = await self.db.fetchall(
            "SELECT 1 FROM board_seen WHERE board_id = ? AND platform = ? AND user_id = ?",
            (board_id, platform, user_id))
        return bool(rows)

    async def note_present(self, platform: str, chat_id: str, user_id: str) -> None:
        """This person is in this group chat (the bot heard from them there, or they looked on)."""
        async with self.db.transaction() as conn:
            await conn.execute(
                "INSERT INTO chat_presence (platform, chat_id, user_id, first_at) VALUES (?, ?, ?, ?)"
                " ON CONFLICT DO NOTHING", (platform, chat_id, user_id, now_text()))

    async def seen_any(self, board_ids: Sequence[int], platform: str, user_ids: Sequence[str]) -> set[str]:
        """Which of these people have seen any of these boards: dealt one, or been in a chat where one
        was played (before or after it was: the chat keeps its cards). They may not play them."""
        return set(await self.seen_where(board_ids, platform, user_ids))

    async def seen_where(self, board_ids: Sequence[int], platform: str,
                         user_ids: Sequence[str]) -> dict[str, str]:
        """Each of these people who has seen one of these boards, and how: ``""`` when dealt it, else
        the id of a chat they are in where it was played."""
        if not board_ids or not user_ids:
            return {}
        bm = ", ".join("?" for _ in board_ids)
        um = ", ".join("?" for _ in user_ids)
        dealt = await self.db.fetchall(
            f"SELECT DISTINCT user_id FROM board_seen WHERE board_id IN ({bm}) AND platform = ?"
            f" AND user_id IN ({um})", (*board_ids, platform, *user_ids))
        out = {str(r[0]): "" for r in dealt}
        there = await self.db.fetchall(
            "SELECT DISTINCT c.user_id, c.chat_id FROM chat_presence c JOIN board_play p"
            " ON p.platform = c.platform AND p.chat_id = c.chat_id"
            f" WHERE p.board_id IN ({bm}) AND c.platform = ? AND c.user_id IN ({um})"
            " ORDER BY c.user_id, c.chat_id", (*board_ids, platform, *user_ids))
        for user_id, chat_id in there:
            out.setdefault(str(user_id), str(chat_id))
        return out

    # -- daily boards posted to chats --------------------------------------

    async def set_daily_post(self, platform: str, chat_id: str, at_minute: int | None, posted_day: str) -> None:
        """This chat gets the daily boards at `at_minute` (UTC) (None: no more), `posted_day` counting as
        done already (the caller passes today when today's minute has passed: the first post is tomorrow's)."""
        async with self.db.transaction() as conn:
            if at_minute is None:
                await conn.execute("DELETE FROM daily_post WHERE platform = ? AND chat_id = ?", (platform, chat_id))
            else:
                await conn.execute(
                    "INSERT INTO daily_post (platform, chat_id, at_minute, posted_day) VALUES (?, ?, ?, ?)"
                    " ON CONFLICT (platform, chat_id) DO UPDATE SET at_minute = excluded.at_minute,"
                    " posted_day = excluded.posted_day", (platform, chat_id, at_minute, posted_day))

    async def daily_posts(self) -> list[tuple[str, str, int, str]]:
        """Every chat that opted in: (platform, chat, minute of the day, last day posted)."""
        rows = await self.db.fetchall(
            "SELECT platform, chat_id, at_minute, posted_day FROM daily_post ORDER BY platform, chat_id")
        return [(str(r[0]), str(r[1]), int(r[2]), str(r[3])) for r in rows]

    async def claim_daily_post(self, platform: str, chat_id: str, day: str) -> bool:
        """True for the one caller that gets to post `day` to this chat (every worker may ask)."""
        async with self.db.transaction() as conn:
            cur = await conn.execute(
                "UPDATE daily_post SET posted_day = ? WHERE platform = ? AND chat_id = ? AND posted_day < ?",
                (day, platform, chat_id, day))
            won = bool(cur.rowcount == 1)
            await cur.close()
        return won

    # -- duplicate events --------------------------------------------------

    async def create_event(self, kind: str, platform: str, chat_id: str, state: dict[str, Any]) -> int:
        now = now_text()
        return await self.insert_id(
            "INSERT INTO dup_event (kind, platform, chat_id, status, state, created_at, updated_at)"
            " VALUES (?, ?, ?, 'forming', ?, ?, ?) RETURNING id",
            (kind, platform, chat_id, json.dumps(state, ensure_ascii=False), now, now))

    async def event(self, event_id: int) -> EventRow | None:
        rows = await self.db.fetchall(
            "SELECT id, kind, platform, chat_id, status, state FROM dup_event WHERE id = ?", (event_id,))
        return _event(rows[0]) if rows else None

    async def open_events(self, platform: str, chat_id: str) -> list[EventRow]:
        """The chat's events still forming or playing, newest first."""
        rows = await self.db.fetchall(
            "SELECT id, kind, platform, chat_id, status, state FROM dup_event WHERE platform = ? AND chat_id = ?"
            " AND status IN ('forming', 'playing') ORDER BY id DESC", (platform, chat_id))
        return [_event(r) for r in rows]

    async def all_open_events(self) -> list[EventRow]:
        rows = await self.db.fetchall(
            "SELECT id, kind, platform, chat_id, status, state FROM dup_event"
            " WHERE status IN ('forming', 'playing') ORDER BY id")
        return [_event(r) for r in rows]

    async def save_event(self, event_id: int, status: str, state: dict[str, Any]) -> None:
        await self.save_state("dup_event", event_id, status, state)
