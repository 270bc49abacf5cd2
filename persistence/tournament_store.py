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
from datetime import UTC, datetime
from typing import Any

from persistence.league_store import Database

LIVE = ("open", "running")


@dataclass(frozen=True)
class TournamentRow:
    id: int
    platform: str
    chat_id: str
    status: str
    state: dict[str, Any]


def _now() -> str:
    return datetime.now(UTC).isoformat()


def _row(r: Any) -> TournamentRow:
    return TournamentRow(int(r[0]), str(r[1]), str(r[2]), str(r[3]), json.loads(r[4]))


_COLS = "id, platform, chat_id, status, state"


class TournamentStore:
    """Tournaments of every chat, over the persistence store."""

    def __init__(self, db: Database) -> None:
        self.db = db

    @classmethod
    def of(cls, store: object) -> TournamentStore:
        """The tournament store over the host's store.

        :raises TypeError: when `store` offers neither `transaction()` nor `fetchall()`.
        """
        if isinstance(store, TournamentStore):
            return store
        if callable(getattr(store, "transaction", None)) and callable(getattr(store, "fetchall", None)):
            return cls(store)  # type: ignore[arg-type]
        raise TypeError(f"{type(store).__name__} is not a store tournaments can use")

    @classmethod
    def maybe(cls, store: object) -> TournamentStore | None:
        """The tournament store over `store`, or None for a store without SQL (the in-memory one)."""
        try:
            return cls.of(store)
        except TypeError:
            return None

    async def create(self, platform: str, chat_id: str, status: str, state: dict[str, Any]) -> int:
        """A new tournament row; returns its id (the state's own id is filled in by the caller)."""
        now = _now()
        async with self.db.transaction() as conn, conn.execute(
            "INSERT INTO tournament (platform, chat_id, status, state, created_at, updated_at)"
            " VALUES (?, ?, ?, ?, ?, ?) RETURNING id",
            (platform, chat_id, status, json.dumps(state, ensure_ascii=False), now, now)) as cur:
            row = await cur.fetchone()
        assert row is not None
        return int(row[0])

    async def save(self, tournament_id: int, status: str, state: dict[str, Any]) -> None:
        async with self.db.transaction() as conn:
            await conn.execute("UPDATE tournament SET status = ?, state = ?, updated_at = ? WHERE id = ?",
                               (status, json.dumps(state, ensure_ascii=False), _now(), tournament_id))

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
