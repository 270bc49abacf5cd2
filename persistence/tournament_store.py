"""Tournament rows in SQLite or PostgreSQL: the only place tournament SQL lives.

A tournament is stored whole as the JSON its model writes (`bot.league.tournament`,
`Tournament.to_dict()`), one row each, from migration 0004_tournaments.sql
(SQLite) / 0006_tournaments.sql (PostgreSQL). Statements run through the
store's `transaction()` and `fetchall()` like the league's, in the SQL both
dialects share.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from persistence.sql_base import StoreOver, now_text

LIVE = ("open", "running")


@dataclass(frozen=True)
class TournamentRow:
    id: int
    platform: str
    chat_id: str
    status: str
    state: dict[str, Any]


def _row(r: Any) -> TournamentRow:
    return TournamentRow(int(r[0]), str(r[1]), str(r[2]), str(r[3]), json.loads(r[4]))


_COLS = "id, platform, chat_id, status, state"


class TournamentStore(StoreOver):
    """Tournaments of every chat, over the persistence store."""

    USERS = "tournaments"

    @classmethod
    def maybe(cls, store: object) -> TournamentStore | None:
        """The tournament store over `store`, or None for a store without SQL (the in-memory one)."""
        try:
            return cls.of(store)
        except TypeError:
            return None

    async def create(self, platform: str, chat_id: str, status: str, state: dict[str, Any]) -> int:
        """A new tournament row; returns its id (the state's own id is filled in by the caller)."""
        now = now_text()
        return await self.insert_id(
            "INSERT INTO tournament (platform, chat_id, status, state, created_at, updated_at)"
            " VALUES (?, ?, ?, ?, ?, ?) RETURNING id",
            (platform, chat_id, status, json.dumps(state, ensure_ascii=False), now, now))

    async def save(self, tournament_id: int, status: str, state: dict[str, Any]) -> None:
        await self.save_state("tournament", tournament_id, status, state)

    async def get(self, tournament_id: int) -> TournamentRow | None:
        rows = await self.db.fetchall(f"SELECT {_COLS} FROM tournament WHERE id = ?", (tournament_id,))
        return _row(rows[0]) if rows else None

    async def live(self, platform: str, chat_id: str) -> TournamentRow | None:
        """The chat's tournament still open or running, if any (a chat runs one at a time)."""
        rows = await self.db.fetchall(
            f"SELECT {_COLS} FROM tournament WHERE platform = ? AND chat_id = ? AND status IN ('open', 'running')"
            " ORDER BY id DESC", (platform, chat_id))
        return _row(rows[0]) if rows else None

    async def latest(self, platform: str, chat_id: str) -> TournamentRow | None:
        """The chat's newest tournament, whatever its status (to show a finished bracket)."""
        rows = await self.db.fetchall(
            f"SELECT {_COLS} FROM tournament WHERE platform = ? AND chat_id = ? ORDER BY id DESC", (platform, chat_id))
        return _row(rows[0]) if rows else None

    async def all_running(self) -> list[TournamentRow]:
        """Every running tournament (the host looks after them after a restart)."""
        rows = await self.db.fetchall(f"SELECT {_COLS} FROM tournament WHERE status = 'running' ORDER BY id")
        return [_row(r) for r in rows]
