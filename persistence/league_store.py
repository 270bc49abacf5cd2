"""League tables in SQLite or PostgreSQL: the only place league SQL lives.

The tables come from migration 0002_league.sql (each store has its own),
applied with the others by `SqliteStore.open` / `PostgresStore.open`. The SQL
is the dialect both share (`ON CONFLICT DO NOTHING`, casts where a
placeholder's type must be known), with `?` placeholders. This module runs
its statements through the store's `transaction()` (writes, one transaction
each) and `fetchall()` (reads), so league writes never interleave with the host's.
Match records go in and come out as the plain dicts `bot.league` hands it
(`MatchRecord.to_dict()`): persistence imports nothing from bot/.
Players are keyed by (platform, user_id), the players table's own key, so a
player is the same person in every chat of a platform.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from persistence.sql_base import StoreOver, now_text
from persistence.store import SqliteStore


@dataclass(frozen=True)
class LeagueInfo:
    """A chat's league: its ranking method, current season and when that season began."""

    platform: str
    chat_id: str
    method: str
    season: int
    season_started_at: datetime


class LeagueStore(StoreOver):
    """League rows for every chat, over the persistence store."""

    USERS = "the league"

    @classmethod
    async def open(cls, path: str | Path) -> LeagueStore:
        """A league store on its own SqliteStore (tests, tools); migrations are applied."""
        return cls(await SqliteStore.open(path))

    async def close(self) -> None:
        close = getattr(self.db, "close", None)
        if close is not None:
            await close()

    # -- leagues and seasons ---------------------------------------------

    async def league(self, platform: str, chat_id: str) -> LeagueInfo:
        """The chat's league, created (season 1, default method) on first use."""
        rows = await self._league_rows(platform, chat_id)
        if not rows:
            async with self.db.transaction() as conn:
                await self._ensure_league(conn, platform, chat_id)
            rows = await self._league_rows(platform, chat_id)
        method, season, started = rows[0]
        return LeagueInfo(platform, chat_id, str(method), int(season), datetime.fromisoformat(started))

    async def _league_rows(self, platform: str, chat_id: str) -> list[Any]:
        return await self.db.fetchall(
            "SELECT l.method, l.season, s.started_at FROM league l JOIN league_season s"
            " ON s.platform = l.platform AND s.chat_id = l.chat_id AND s.season = l.season"
            " WHERE l.platform = ? AND l.chat_id = ?",
            (platform, chat_id),
        )

    @staticmethod
    async def _ensure_league(conn: Any, platform: str, chat_id: str) -> None:
        now = now_text()
        await conn.execute(
            "INSERT INTO league (platform, chat_id, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
            (platform, chat_id, now),
        )
        await conn.execute(
            "INSERT INTO league_season (platform, chat_id, season, started_at) VALUES (?, ?, 1, ?)"
            " ON CONFLICT DO NOTHING",
            (platform, chat_id, now),
        )

    async def set_method(self, platform: str, chat_id: str, method: str) -> None:
        async with self.db.transaction() as conn:
            await self._ensure_league(conn, platform, chat_id)
            await conn.execute(
                "UPDATE league SET method = ? WHERE platform = ? AND chat_id = ?", (method, platform, chat_id)
            )

    async def new_season(
        self, platform: str, chat_id: str, started_by: str, *, at: datetime | None = None
    ) -> int:
        """Start the next season; returns its number."""
        when = (at or datetime.now(UTC)).isoformat()
        async with self.db.transaction() as conn:
            await self._ensure_league(conn, platform, chat_id)
            async with conn.execute(
                "SELECT season FROM league WHERE platform = ? AND chat_id = ?", (platform, chat_id)
            ) as cur:
                row = await cur.fetchone()
            season = int(row[0]) + 1 if row else 1
            await conn.execute(
                "INSERT INTO league_season (platform, chat_id, season, started_at, started_by)"
                " VALUES (?, ?, ?, ?, ?)",
                (platform, chat_id, season, when, started_by),
            )
            await conn.execute(
                "UPDATE league SET season = ? WHERE platform = ? AND chat_id = ?", (season, platform, chat_id)
            )
        return season

    # -- matches -------------------------------------------------------------

    async def add_match(self, record: dict[str, Any]) -> bool:
        """Store a finished match (a record dict) in the chat's current season.

        Returns False if that match was already stored (recording is idempotent).
        """
        platform, chat_id, match_id = str(record["platform"]), str(record["chat_id"]), int(record["match_id"])
        ended = datetime.fromisoformat(str(record["ended_at"]))
        if ended.tzinfo is None:
            ended = ended.replace(tzinfo=UTC)
        async with self.db.transaction() as conn:
            await self._ensure_league(conn, platform, chat_id)
            cur = await conn.execute(
                "INSERT INTO league_match"
                " (platform, chat_id, match_id, season, ended_at, ending, record)"
                " SELECT CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS INTEGER), season, CAST(? AS TEXT),"
                " CAST(? AS TEXT), CAST(? AS TEXT) FROM league WHERE platform = ? AND chat_id = ?"
                " ON CONFLICT DO NOTHING",
                (
                    platform,
                    chat_id,
                    match_id,
                    ended.astimezone(UTC).isoformat(),
                    str(record["ending"]),
                    json.dumps(record, ensure_ascii=False),
                    platform,
                    chat_id,
                ),
            )
            added = bool(cur.rowcount == 1)
            await cur.close()
            if added:
                await conn.executemany(
                    "INSERT INTO league_match_player (platform, chat_id, match_id, seat, user_id)"
                    " VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                    [
                        (platform, chat_id, match_id, int(p["seat"]), str(p["user_id"]))
                        for p in record["seats"]
                        if not p.get("is_ai", False)
                    ],
                )
        return added

    async def matches(self, platform: str, chat_id: str, season: int | None = None) -> list[dict[str, Any]]:
        """The chat's matches, oldest first: one season, or all time when season is None."""
        sql = "SELECT record FROM league_match WHERE platform = ? AND chat_id = ?"
        params: tuple[Any, ...] = (platform, chat_id)
        if season is not None:
            sql += " AND season = ?"
            params += (season,)
        sql += " ORDER BY ended_at, match_id"
        return await self._records(sql, params)

    async def match_seasons(self, platform: str, chat_id: str) -> dict[int, int]:
        """Season number per match id, for the chat."""
        rows = await self.db.fetchall(
            "SELECT match_id, season FROM league_match WHERE platform = ? AND chat_id = ?",
            (platform, chat_id),
        )
        return {int(r[0]): int(r[1]) for r in rows}

    async def recent(self, platform: str, chat_id: str, limit: int = 10) -> list[dict[str, Any]]:
        """The chat's latest matches, newest first."""
        return await self._records(
            "SELECT record FROM league_match WHERE platform = ? AND chat_id = ?"
            " ORDER BY ended_at DESC, match_id DESC LIMIT ?",
            (platform, chat_id, limit),
        )

    async def player_matches(self, platform: str, user_id: str) -> list[dict[str, Any]]:
        """Every match this player played in any chat of the platform, oldest first."""
        return await self._records(
            "SELECT m.record FROM league_match m WHERE EXISTS (SELECT 1 FROM league_match_player p"
            " WHERE p.platform = m.platform AND p.chat_id = m.chat_id AND p.match_id = m.match_id"
            " AND p.platform = ? AND p.user_id = ?) ORDER BY m.ended_at, m.match_id",
            (platform, user_id),
        )

    async def _records(self, sql: str, params: tuple[Any, ...]) -> list[dict[str, Any]]:
        rows = await self.db.fetchall(sql, params)
        return [dict(json.loads(row[0])) for row in rows]

    # -- movement between two showings ---------------------------------------

    async def shown_positions(self, platform: str, chat_id: str, scope: str, method: str) -> dict[str, int]:
        rows = await self.db.fetchall(
            "SELECT positions FROM league_shown WHERE platform = ? AND chat_id = ? AND scope = ? AND method = ?",
            (platform, chat_id, scope, method),
        )
        if not rows:
            return {}
        return {str(k): int(v) for k, v in json.loads(rows[0][0]).items()}

    async def save_shown_positions(
        self, platform: str, chat_id: str, scope: str, method: str, positions: dict[str, int]
    ) -> None:
        async with self.db.transaction() as conn:
            await conn.execute(
                "INSERT INTO league_shown (platform, chat_id, scope, method, positions, shown_at)"
                " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (platform, chat_id, scope, method)"
                " DO UPDATE SET positions = excluded.positions, shown_at = excluded.shown_at",
                (platform, chat_id, scope, method, json.dumps(positions), now_text()),
            )
