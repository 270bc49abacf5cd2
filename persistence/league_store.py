"""League tables in SQLite: the only place league SQL lives.

It stores match records as the plain dicts `bot.league` hands it
(`MatchRecord.to_dict()`) and returns them as such: persistence imports
nothing from bot/. Works on the persistence layer's aiosqlite connection (`LeagueStore.of`)
or on its own (`LeagueStore.open`, for tests and tools). Its schema is
migration 0002_league.sql, written to be idempotent, so `ensure_schema`
may run whether or not the store's migration runner already applied it.
"""

from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import aiosqlite

MIGRATION = Path(__file__).with_name("migrations") / "0002_league.sql"
_CONN_ATTRS = ("conn", "db", "connection", "_conn", "_db")


@dataclass(frozen=True)
class LeagueInfo:
    """A chat's league: its ranking method, current season and when that season began."""

    platform: str
    chat_id: str
    method: str
    season: int
    season_started_at: datetime


def _now() -> str:
    return datetime.now(UTC).isoformat()


class LeagueStore:
    """League rows for every chat, over one aiosqlite connection."""

    def __init__(self, conn: aiosqlite.Connection) -> None:
        self.conn = conn
        self._ready = False

    @classmethod
    async def open(cls, path: str | Path) -> LeagueStore:
        """A store on its own connection (tests, tools); the schema is applied."""
        conn = await aiosqlite.connect(str(path))
        store = cls(conn)
        await store.ensure_schema()
        return store

    @classmethod
    async def of(cls, store: object) -> LeagueStore:
        """The league store for the persistence layer's store (or a LeagueStore as it is).

        :raises TypeError: when `store` exposes no aiosqlite connection.
        """
        if isinstance(store, LeagueStore):
            return store
        cached = getattr(store, "_league_store", None)
        if isinstance(cached, LeagueStore):
            return cached
        for attr in _CONN_ATTRS:
            conn = getattr(store, attr, None)
            if isinstance(conn, aiosqlite.Connection):
                league = cls(conn)
                await league.ensure_schema()
                with contextlib.suppress(AttributeError):
                    store._league_store = league  # type: ignore[attr-defined]
                return league
        raise TypeError(f"{type(store).__name__} has no aiosqlite connection for the league tables")

    async def close(self) -> None:
        await self.conn.close()

    async def ensure_schema(self) -> None:
        if self._ready:
            return
        await self.conn.executescript(MIGRATION.read_text(encoding="utf-8"))
        await self.conn.commit()
        self._ready = True

    # -- leagues and seasons ---------------------------------------------

    async def league(self, platform: str, chat_id: str) -> LeagueInfo:
        """The chat's league, created (season 1, default method) on first use."""
        await self._ensure_league(platform, chat_id)
        async with self.conn.execute(
            "SELECT l.method, l.season, s.started_at FROM league l JOIN league_season s"
            " ON s.platform = l.platform AND s.chat_id = l.chat_id AND s.season = l.season"
            " WHERE l.platform = ? AND l.chat_id = ?",
            (platform, chat_id),
        ) as cur:
            row = await cur.fetchone()
        assert row is not None
        return LeagueInfo(platform, chat_id, str(row[0]), int(row[1]), datetime.fromisoformat(row[2]))

    async def _ensure_league(self, platform: str, chat_id: str) -> None:
        now = _now()
        await self.conn.execute(
            "INSERT OR IGNORE INTO league (platform, chat_id, created_at) VALUES (?, ?, ?)",
            (platform, chat_id, now),
        )
        await self.conn.execute(
            "INSERT OR IGNORE INTO league_season (platform, chat_id, season, started_at) VALUES (?, ?, 1, ?)",
            (platform, chat_id, now),
        )
        await self.conn.commit()

    async def set_method(self, platform: str, chat_id: str, method: str) -> None:
        await self._ensure_league(platform, chat_id)
        await self.conn.execute(
            "UPDATE league SET method = ? WHERE platform = ? AND chat_id = ?", (method, platform, chat_id)
        )
        await self.conn.commit()

    async def new_season(
        self, platform: str, chat_id: str, started_by: str, *, at: datetime | None = None
    ) -> int:
        """Start the next season; returns its number."""
        info = await self.league(platform, chat_id)
        season = info.season + 1
        when = (at or datetime.now(UTC)).isoformat()
        await self.conn.execute(
            "INSERT INTO league_season (platform, chat_id, season, started_at, started_by) VALUES (?, ?, ?, ?, ?)",
            (platform, chat_id, season, when, started_by),
        )
        await self.conn.execute(
            "UPDATE league SET season = ? WHERE platform = ? AND chat_id = ?", (season, platform, chat_id)
        )
        await self.conn.commit()
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
        info = await self.league(platform, chat_id)
        cur = await self.conn.execute(
            "INSERT OR IGNORE INTO league_match (platform, chat_id, match_id, season, ended_at, ending, record)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                platform,
                chat_id,
                match_id,
                info.season,
                ended.astimezone(UTC).isoformat(),
                str(record["ending"]),
                json.dumps(record, ensure_ascii=False),
            ),
        )
        added = cur.rowcount == 1
        await cur.close()
        if added:
            await self.conn.executemany(
                "INSERT OR IGNORE INTO league_match_player (platform, chat_id, match_id, seat, user_id)"
                " VALUES (?, ?, ?, ?, ?)",
                [
                    (platform, chat_id, match_id, int(p["seat"]), str(p["user_id"]))
                    for p in record["seats"]
                    if not p.get("is_ai", False)
                ],
            )
        await self.conn.commit()
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
            "SELECT DISTINCT m.record, m.ended_at, m.match_id FROM league_match m JOIN league_match_player p"
            " ON p.platform = m.platform AND p.chat_id = m.chat_id AND p.match_id = m.match_id"
            " WHERE p.platform = ? AND p.user_id = ? ORDER BY m.ended_at, m.match_id",
            (platform, user_id),
        )

    async def _records(self, sql: str, params: tuple[Any, ...]) -> list[dict[str, Any]]:
        async with self.conn.execute(sql, params) as cur:
            rows = await cur.fetchall()
        return [dict(json.loads(row[0])) for row in rows]

    # -- movement between two showings ---------------------------------------

    async def shown_positions(self, platform: str, chat_id: str, scope: str, method: str) -> dict[str, int]:
        async with self.conn.execute(
            "SELECT positions FROM league_shown WHERE platform = ? AND chat_id = ? AND scope = ? AND method = ?",
            (platform, chat_id, scope, method),
        ) as cur:
            row = await cur.fetchone()
        if row is None:
            return {}
        return {str(k): int(v) for k, v in json.loads(row[0]).items()}

    async def save_shown_positions(
        self, platform: str, chat_id: str, scope: str, method: str, positions: dict[str, int]
    ) -> None:
        await self.conn.execute(
            "INSERT INTO league_shown (platform, chat_id, scope, method, positions, shown_at)"
            " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (platform, chat_id, scope, method)"
            " DO UPDATE SET positions = excluded.positions, shown_at = excluded.shown_at",
            (platform, chat_id, scope, method, json.dumps(positions), _now()),
        )
        await self.conn.commit()
