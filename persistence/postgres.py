"""`Store` on PostgreSQL through asyncpg (`PostgresStore`): one database shared by several machines.

Same answers as `SqliteStore` for every call (the storage contract tests run
on both): the same schema in PostgreSQL's dialect (`migrations_postgres/`), the
same one-statement append that inserts only the next seq of an open match whose
key was never seen (a trigger raises the version), and the same group commit:
appends that arrive while a commit is in flight share the next transaction, so
one WAL flush serves many tables. Other calls take their own pooled connection.

The league module writes SQLite-dialect SQL with `?` placeholders through
`transaction()` and `fetchall()`; `_numbered` turns those into `$1, $2, ...`,
which is all that differs for the portable statements it uses.

Past ~400 lines because it is the whole adapter (opening, appends, loading,
checks) in one place, as `persistence/store.py` is for SQLite.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
import time
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from contextlib import asynccontextmanager
from typing import Any, TypeAlias
from urllib.parse import urlsplit, urlunsplit

import asyncpg
from asyncpg.pool import PoolConnectionProxy

from persistence.errors import LeaseLost, MatchClosed, SequenceConflict, StoreError, UnknownMatch
from persistence.postgres_migrate import migrate
from persistence.store import (
    BROKEN,
    AppendResult,
    AppendStats,
    Store,
    StoreClosing,
    StoredMatch,
    Synchronous,
    _Append,
    _check_version,
    _decode_log,
    _fill_log,
    _head,
)
from persistence.values import plain_json as _dumps
from persistence.values import require_dict as _require_dict

log = logging.getLogger(__name__)

#: A connection, whether from the pool or on its own.
Conn: TypeAlias = "asyncpg.Connection[Any] | PoolConnectionProxy[Any]"

#: What a failed statement or connection raises through asyncpg.
_DB_ERRORS = (asyncpg.PostgresError, asyncpg.InterfaceError, OSError)


def redact(url: str) -> str:
    """The URL without its password, for messages and logs."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.hostname or ""
    netloc = f"{parts.username}:***@{host}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit(parts._replace(netloc=netloc))


@functools.lru_cache(maxsize=512)
def _numbered(sql: str) -> str:
    """SQLite's `?` placeholders as PostgreSQL's `$1, $2, ...` (a `?` inside a string literal stays)."""
    out: list[str] = []
    n = 0
    quoted = False
    for ch in sql:
        if ch == "'":
            quoted = not quoted
        if ch == "?" and not quoted:
            n += 1
            out.append(f"${n}")
        else:
            out.append(ch)
    return "".join(out)


def _rowcount(status: str | None) -> int:
    """The row count of a command tag ("INSERT 0 1", "UPDATE 3"); -1 when it has none."""
    last = (status or "").rsplit(" ", 1)[-1]
    return int(last) if last.isdigit() else -1


class PostgresStore(Store):
    """`Store` on one PostgreSQL database through an asyncpg pool.

    Open with `await PostgresStore.open("postgresql://user@host/db")`.
    """

    def __init__(self, pool: asyncpg.Pool, url: str, clock: Callable[[], float],
                 synchronous: Synchronous = "FULL", worker: str | None = None) -> None:
        self._pool = pool
        # With a worker name, appends are accepted only for tables whose lease this worker holds.
        self.worker = worker
        self.path = redact(url)  # what tools print; never the password
        self.synchronous = synchronous
        self._clock = clock
        self._appends: list[_Append] = []
        self._flusher: asyncio.Task[None] | None = None
        self.stats = AppendStats()

    @classmethod
    async def open(
        cls,
        url: str,
        *,
        synchronous: Synchronous = "FULL",
        clock: Callable[[], float] = time.time,
        migrate_schema: bool = True,
        min_size: int = 1,
        max_size: int = 8,
        worker: str | None = None,
    ) -> PostgresStore:
        """Connect a pool and bring the schema up to date.

        synchronous "FULL"/"EXTRA" (the default) waits for the WAL flush at every commit
        (`synchronous_commit = on`): an acknowledged action survives the server losing power.
        "NORMAL"/"OFF" set `synchronous_commit = off`: a server crash may lose the last
        fraction of a second of commits, never consistency.

        `worker` names this process among several sharing the database: its appends are then
        refused (`LeaseLost`) for any table whose lease (`acquire_lease`) it does not hold.

        :raises MigrationError: the database is newer than this code, or a migration failed.
        :raises OSError, asyncpg.PostgresError: the server cannot be reached or refuses us.
        """
        if synchronous not in ("OFF", "NORMAL", "FULL", "EXTRA"):
            raise ValueError(f"synchronous must be OFF, NORMAL, FULL or EXTRA, not {synchronous!r}")
        commit = "on" if synchronous in ("FULL", "EXTRA") else "off"
        pool = await asyncpg.create_pool(
            url, min_size=min_size, max_size=max_size,
            server_settings={"synchronous_commit": commit, "application_name": "tractor-host"},
        )
        try:
            if migrate_schema:
                async with pool.acquire() as conn:
                    await migrate(conn)
        except BaseException:
            await pool.close()
            raise
        return cls(pool, url, clock, synchronous, worker)

    async def close(self) -> None:
        """Close the pool after the waiting appends."""
        while self._flusher is not None and not self._flusher.done():
            with contextlib.suppress(Exception):
                await asyncio.shield(self._flusher)
        await self._pool.close()

    # ------------------------------------------------------- transactions, SQL

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[_LeagueConnection]:
        """One write transaction for persistence modules that add their own tables (leagues).

        The connection it yields takes SQLite-style `?` statements, like `SqliteStore`'s.
        """
        async with self._pool.acquire() as conn, conn.transaction():
            yield _LeagueConnection(conn)

    async def fetchall(self, sql: str, params: Iterable[Any] = ()) -> list[asyncpg.Record]:
        """Run one read query (`?` placeholders, as for `SqliteStore.fetchall`)."""
        async with self._pool.acquire() as conn:
            return list(await conn.fetch(_numbered(sql), *params))

    # ------------------------------------------------------------ players, chats

    async def upsert_player(self, platform: str, user_id: str, name: str, language: str | None = None) -> int:
        """Record a player (or refresh their name); a None language keeps the stored one."""
        now = self._clock()
        async with self._pool.acquire() as conn:
            return int(await conn.fetchval(
                "INSERT INTO players (platform, user_id, name, language, created_at, updated_at)"
                " VALUES ($1, $2, $3, $4, $5, $5)"
                " ON CONFLICT (platform, user_id) DO UPDATE SET name = excluded.name,"
                " language = coalesce(excluded.language, players.language), updated_at = excluded.updated_at"
                " RETURNING id",
                platform, str(user_id), name, language, now,
            ))

    async def get_player(self, platform: str, user_id: str) -> dict[str, Any] | None:
        async with self._pool.acquire() as conn:
            r = await conn.fetchrow(
                "SELECT id, platform, user_id, name, language FROM players WHERE platform = $1 AND user_id = $2",
                platform, str(user_id),
            )
        if r is None:
            return None
        return {"id": r[0], "platform": r[1], "user_id": r[2], "name": r[3], "language": r[4]}

    async def get_chat(self, platform: str, chat_id: str) -> dict[str, Any]:
        async with self._pool.acquire() as conn:
            text = await conn.fetchval(
                "SELECT settings FROM chats WHERE platform = $1 AND chat_id = $2", platform, str(chat_id)
            )
        if text is None:
            return {}
        settings = json.loads(text)
        return settings if isinstance(settings, dict) else {}

    async def set_chat(self, platform: str, chat_id: str, settings: dict[str, Any]) -> None:
        text = _dumps(_require_dict(settings, "chat settings"), "chat settings")
        now = self._clock()
        async with self._pool.acquire() as conn:
            await conn.execute(
                "INSERT INTO chats (platform, chat_id, settings, created_at, updated_at) VALUES ($1, $2, $3, $4, $4)"
                " ON CONFLICT (platform, chat_id) DO UPDATE SET settings = excluded.settings,"
                " updated_at = excluded.updated_at",
                platform, str(chat_id), text, now,
            )

    # ------------------------------------------------------------------ matches

    async def create_match(
        self, platform: str, chat_id: str, rules: dict[str, Any], seats: list[dict[str, Any]],
        seed: int, meta: dict[str, Any], *, status: str = "active",
    ) -> int:
        """Start a match's record (version 0, empty log); returns its id."""
        rules_text = _dumps(_require_dict(rules, "rules"), "rules")
        if not isinstance(seats, list):
            raise TypeError(f"seats must be a list, not {type(seats).__name__}")
        seats_text = _dumps(seats, "seats")
        meta_text = _dumps(_require_dict(meta, "meta"), "meta")
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise TypeError(f"seed must be an int, not {type(seed).__name__}")
        if status == BROKEN:
            raise ValueError(f"status {BROKEN!r} is reserved for matches whose log cannot be replayed")
        now = self._clock()
        async with self._pool.acquire() as conn, conn.transaction():
            chat = await conn.fetchval(
                "INSERT INTO chats (platform, chat_id, created_at, updated_at) VALUES ($1, $2, $3, $3)"
                " ON CONFLICT (platform, chat_id) DO UPDATE SET chat_id = excluded.chat_id RETURNING id",
                platform, str(chat_id), now,
            )
            return int(await conn.fetchval(
                "INSERT INTO matches (chat, rules, seats, seed, status, meta, version, created_at, updated_at)"
                " VALUES ($1, $2, $3, $4, $5, $6, 0, $7, $7) RETURNING id",
                chat, rules_text, seats_text, seed, status, meta_text, now,
            ))

    async def append_action(
        self, match_id: int, seq: int, action: dict[str, Any], key: str | None,
        *, deadlines: Mapping[str, float | None] | None = None,
    ) -> AppendResult:
        """Append one accepted action, durably, in one transaction (see `SqliteStore.append_action`).

        :raises SequenceConflict, UnknownMatch, MatchClosed: refused; nothing changed.
        :raises ValueError, TypeError: the action is not a plain JSON dict.
        """
        text = _dumps(_require_dict(action, "action"), "action")
        if isinstance(seq, bool) or not isinstance(seq, int) or seq < 0:
            raise ValueError(f"seq must be an int >= 0, not {seq!r}")
        key = None if key is None else str(key)
        timers = tuple((str(k), None if at is None else float(at)) for k, at in (deadlines or {}).items())
        done: asyncio.Future[AppendResult] = asyncio.get_running_loop().create_future()
        self._appends.append(_Append(match_id, seq, text, key, float(self._clock()), done, timers))
        if self._flusher is None or self._flusher.done():
            self._flusher = asyncio.create_task(self._flush_appends(), name="store-appends")
        return await done

    async def _flush_appends(self) -> None:
        """Writes the waiting appends, a batch per transaction, until none is left."""
        while self._appends:
            batch, self._appends = self._appends, []
            self.stats.batches += 1
            self.stats.appends += len(batch)
            self.stats.largest_batch = max(self.stats.largest_batch, len(batch))
            try:
                async with self._pool.acquire() as conn:
                    outcomes = await _append_batch(conn, batch, self.worker)
            except BaseException as exc:  # no connection (or cancelled): nobody's append is known
                for item in batch:
                    if not item.done.done():
                        item.done.set_exception(exc if isinstance(exc, Exception) else StoreClosing())
                if not isinstance(exc, Exception):
                    raise
                continue
            for item, outcome in zip(batch, outcomes, strict=True):
                if item.done.done():
                    continue
                if isinstance(outcome, BaseException):
                    item.done.set_exception(outcome)
                else:
                    item.done.set_result(outcome)

    async def update_match(
        self, match_id: int, *, seats: list[dict[str, Any]] | None = None,
        meta: dict[str, Any] | None = None, status: str | None = None,
    ) -> None:
        """Replace a match's seats, meta and/or status (each left alone when None)."""
        sets: list[str] = []
        params: list[Any] = []
        if seats is not None:
            if not isinstance(seats, list):
                raise TypeError(f"seats must be a list, not {type(seats).__name__}")
            params.append(_dumps(seats, "seats"))
            sets.append(f"seats = ${len(params)}")
        if meta is not None:
            params.append(_dumps(_require_dict(meta, "meta"), "meta"))
            sets.append(f"meta = ${len(params)}")
        if status is not None:
            params.append(status)
            sets.append(f"status = ${len(params)}")
        params.append(self._clock())
        sets.append(f"updated_at = ${len(params)}")
        async with self._pool.acquire() as conn:
            tag = await conn.execute(
                f"UPDATE matches SET {', '.join(sets)} WHERE id = ${len(params) + 1}", *params, match_id
            )
        if _rowcount(tag) == 0:
            raise UnknownMatch(match_id)

    async def finish_match(self, match_id: int, status: str, result: dict[str, Any]) -> None:
        """Close a match (no more appends) and keep its result."""
        text = _dumps(_require_dict(result, "result"), "result")
        now = self._clock()
        async with self._pool.acquire() as conn, conn.transaction():
            tag = await conn.execute(
                "UPDATE matches SET status = $1, finished_at = coalesce(finished_at, $2), updated_at = $2"
                " WHERE id = $3",
                status, now, match_id,
            )
            if _rowcount(tag) == 0:
                raise UnknownMatch(match_id)
            await conn.execute(
                "INSERT INTO results (match_id, status, result, finished_at) VALUES ($1, $2, $3, $4)"
                " ON CONFLICT (match_id) DO UPDATE SET status = excluded.status, result = excluded.result",
                match_id, status, text, now,
            )
            await conn.execute("DELETE FROM deadlines WHERE match_id = $1", match_id)

    async def set_message(self, match_id: int, slot: str, message_id: str | None) -> None:
        async with self._pool.acquire() as conn, conn.transaction():
            if message_id is None:
                await conn.execute("DELETE FROM messages WHERE match_id = $1 AND slot = $2", match_id, slot)
                return
            await _require_match(conn, match_id)
            await conn.execute(
                "INSERT INTO messages (match_id, slot, message_id) VALUES ($1, $2, $3)"
                " ON CONFLICT (match_id, slot) DO UPDATE SET message_id = excluded.message_id",
                match_id, slot, str(message_id),
            )

    async def set_deadline(self, match_id: int, kind: str, at: float | None) -> None:
        async with self._pool.acquire() as conn, conn.transaction():
            if at is None:
                await conn.execute("DELETE FROM deadlines WHERE match_id = $1 AND kind = $2", match_id, kind)
                return
            await _require_match(conn, match_id)
            await _set_deadline(conn, match_id, kind, float(at))

    # ------------------------------------------------------------------- leases

    async def acquire_lease(self, match_id: int, ttl: float) -> bool:
        """Take (or renew) this worker's lease on a table for `ttl` seconds of the database's clock.

        :returns: True when this worker holds it now; False while another worker's lease runs.
        """
        worker = self._require_worker()
        async with self._pool.acquire() as conn:
            try:
                held = await conn.fetchval(
                    "INSERT INTO leases (match_id, worker, expires_at) VALUES ($1, $2, " + _NOW + " + $3)"
                    " ON CONFLICT (match_id) DO UPDATE SET worker = excluded.worker, expires_at = excluded.expires_at"
                    " WHERE leases.worker = excluded.worker OR leases.expires_at <= " + _NOW + " RETURNING 1",
                    match_id, worker, float(ttl),
                )
            except asyncpg.ForeignKeyViolationError:
                raise UnknownMatch(match_id) from None
        return held is not None

    async def renew_leases(self, ttl: float) -> list[int]:
        """The heartbeat: extend every unexpired lease of this worker; returns the tables still held."""
        worker = self._require_worker()
        async with self._pool.acquire() as conn:
            rows = await conn.fetch(
                "UPDATE leases SET expires_at = " + _NOW + " + $2 WHERE worker = $1 AND expires_at > " + _NOW
                + " RETURNING match_id",
                worker, float(ttl),
            )
        return sorted(int(r[0]) for r in rows)

    async def release_lease(self, match_id: int) -> None:
        """Hand a table over at once (a clean stop), instead of letting the lease run out."""
        worker = self._require_worker()
        async with self._pool.acquire() as conn:
            await conn.execute("DELETE FROM leases WHERE match_id = $1 AND worker = $2", match_id, worker)

    def _require_worker(self) -> str:
        if self.worker is None:
            raise RuntimeError("leases need a worker name: PostgresStore.open(url, worker=...)")
        return self.worker

    # --------------------------------------------------------------- idempotency

    async def seen_key(self, key: str) -> bool:
        async with self._pool.acquire() as conn:
            return bool(await conn.fetchval(
                "SELECT EXISTS (SELECT 1 FROM actions WHERE key = $1)"
                " OR EXISTS (SELECT 1 FROM event_keys WHERE key = $1)",
                key,
            ))

    async def remember_key(self, key: str) -> bool:
        """Record the key of an event handled without an action; True when it is new."""
        async with self._pool.acquire() as conn, conn.transaction():
            if await conn.fetchval("SELECT 1 FROM actions WHERE key = $1", key):
                return False
            inserted = await conn.fetchval(
                "INSERT INTO event_keys (key, at) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING RETURNING 1",
                key, self._clock(),
            )
            return inserted is not None

    # ------------------------------------------------------------------ loading

    async def get_match(self, match_id: int) -> StoredMatch | None:
        found = await self._load("m.id = $1", (match_id,))
        return found[0] if found else None

    async def load_unfinished(self, *, include_broken: bool = False) -> list[StoredMatch]:
        """Every unfinished match, oldest first; damaged ones are set aside (see `SqliteStore`)."""
        if include_broken:
            return await self._load("m.finished_at IS NULL", ())
        loaded = await self._load("m.finished_at IS NULL AND m.status != $1", (BROKEN,))
        sound: list[StoredMatch] = []
        for stored in loaded:
            if stored.error is None:
                sound.append(stored)
                continue
            log.error("match %s set aside: %s", stored.id, stored.error)
            await self.mark_broken(stored.id, stored.error)
        return sound

    async def list_matches(
        self, platform: str, chat_id: str, *, unfinished_only: bool = False
    ) -> list[dict[str, Any]]:
        """Summaries (id, status, version, created_at, finished_at) of a chat's matches, newest first."""
        rows = await self.fetchall(
            "SELECT m.id, m.status, m.version, m.created_at, m.finished_at FROM matches m"
            " JOIN chats c ON c.id = m.chat WHERE c.platform = ? AND c.chat_id = ?"
            + (" AND m.finished_at IS NULL" if unfinished_only else "")
            + " ORDER BY m.id DESC",
            (platform, str(chat_id)),
        )
        return [
            {"id": r[0], "status": r[1], "version": r[2], "created_at": r[3], "finished_at": r[4]}
            for r in rows
        ]

    async def mark_broken(self, match_id: int, reason: str) -> None:
        """Set a match aside: status "broken", the reason and the previous status kept in meta."""
        async with self._pool.acquire() as conn, conn.transaction():
            row = await conn.fetchrow("SELECT status, meta FROM matches WHERE id = $1 FOR UPDATE", match_id)
            if row is None:
                raise UnknownMatch(match_id)
            try:
                meta = json.loads(row[1])
            except ValueError:
                meta = {}
            if not isinstance(meta, dict):
                meta = {}
            if row[0] != BROKEN:
                meta["status_before_broken"] = row[0]
            meta["broken"] = reason
            await conn.execute(
                "UPDATE matches SET status = $1, meta = $2, updated_at = $3 WHERE id = $4",
                BROKEN, _dumps(meta, "meta"), self._clock(), match_id,
            )

    async def _load(self, where: str, params: tuple[Any, ...]) -> list[StoredMatch]:
        """Matches and their logs in a few set-wise queries, in one snapshot (REPEATABLE READ)."""
        async with self._pool.acquire() as conn, conn.transaction(isolation="repeatable_read", readonly=True):
            heads = await conn.fetch(
                "SELECT m.id, c.platform, c.chat_id, m.rules, m.seats, m.seed, m.meta, m.status,"
                " m.version, m.created_at, m.updated_at, m.finished_at, r.result"
                " FROM matches m JOIN chats c ON c.id = m.chat LEFT JOIN results r ON r.match_id = m.id"
                f" WHERE {where} ORDER BY m.id",
                *params,
            )
            if not heads:
                return []
            matches = {h[0]: _head(h) for h in heads}
            selected = f"SELECT m.id FROM matches m WHERE {where}"
            logs = await conn.fetch(
                "SELECT match_id, count(*), string_agg(seq::text, ',' ORDER BY seq),"
                " '[' || string_agg(action, ',' ORDER BY seq) || ']'"
                f" FROM actions WHERE match_id IN ({selected}) GROUP BY match_id",
                *params,
            )
            for match_id, count, seqs, blob in logs:
                stored = matches[match_id]
                actions = _decode_log(int(count), seqs, blob)
                if actions is None:
                    rows = await conn.fetch(
                        "SELECT seq, action FROM actions WHERE match_id = $1 ORDER BY seq", match_id
                    )
                    _fill_log(stored, [(r[0], r[1]) for r in rows])
                elif stored.error is None:
                    stored.actions = actions
                    _check_version(stored)
            for stored in matches.values():
                if stored.version and not stored.actions and stored.error is None:
                    _check_version(stored)  # a log that lost every row
            messages = await conn.fetch(
                f"SELECT match_id, slot, message_id FROM messages WHERE match_id IN ({selected})", *params
            )
            deadlines = await conn.fetch(
                f"SELECT match_id, kind, at FROM deadlines WHERE match_id IN ({selected})", *params
            )
        for match_id, slot, message_id in messages:
            matches[match_id].messages[slot] = message_id
        for match_id, kind, at in deadlines:
            matches[match_id].deadlines[kind] = float(at)
        return list(matches.values())

    # ---------------------------------------------------------------- operations

    async def backup(self, target: object) -> None:
        """Not done here: PostgreSQL's own tools make consistent copies of a live database."""
        raise RuntimeError(
            f"a PostgreSQL database is backed up with pg_dump, e.g. pg_dump --format=custom"
            f" --file={target} '{self.path}' (or continuous archiving / a replica)"
        )

    async def integrity_check(self) -> list[str]:
        """What the schema cannot enforce itself: each log whole (seqs 0..n-1) and equal to its version."""
        problems: list[str] = []
        rows = await self.fetchall(
            "SELECT m.id, m.version, count(a.seq), coalesce(max(a.seq) + 1, 0) FROM matches m"
            " LEFT JOIN actions a ON a.match_id = m.id GROUP BY m.id"
            " HAVING count(a.seq) != m.version OR coalesce(max(a.seq) + 1, 0) != count(a.seq) ORDER BY m.id"
        )
        for match_id, version, count, span in rows:
            problems.append(
                f"match {match_id}: version {version}, {count} actions stored"
                + (f", seqs with gaps (up to {span - 1})" if span != count else "")
            )
        return problems


class _LeagueConnection:
    """A transaction's connection as the league module uses SQLite's: `execute(sql, params)`
    (awaited, or as `async with ... as cur`), `executemany`, `?` placeholders."""

    def __init__(self, conn: Conn) -> None:
        self._conn = conn

    def execute(self, sql: str, params: Sequence[Any] = ()) -> _Result:
        return _Result(self._conn, _numbered(sql), tuple(params))

    async def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        batch = [tuple(r) for r in rows]
        if batch:
            await self._conn.executemany(_numbered(sql), batch)


class _Result:
    """One statement's outcome, shaped like aiosqlite's cursor (rowcount, fetchone, fetchall)."""

    def __init__(self, conn: Conn, sql: str, params: tuple[Any, ...]) -> None:
        self._conn, self._sql, self._params = conn, sql, params
        self._rows: list[asyncpg.Record] = []
        self.rowcount = -1

    async def _run(self) -> _Result:
        statement = await self._conn.prepare(self._sql)
        self._rows = list(await statement.fetch(*self._params))
        self.rowcount = _rowcount(statement.get_statusmsg())
        return self

    def __await__(self) -> Any:
        return self._run().__await__()

    async def __aenter__(self) -> _Result:
        return await self._run()

    async def __aexit__(self, *exc: object) -> None:
        return None

    async def fetchone(self) -> asyncpg.Record | None:
        return self._rows[0] if self._rows else None

    async def fetchall(self) -> list[asyncpg.Record]:
        return list(self._rows)

    async def close(self) -> None:
        return None


#: The database's clock in epoch seconds: lease times never depend on a worker's own clock.
_NOW = "extract(epoch FROM clock_timestamp())::float8"

_INSERT_ACTION = (
    # One statement: the trigger raises the version in the same statement. It inserts only
    # the next seq of an open match whose key was never seen.
    "INSERT INTO actions (match_id, seq, action, key, at)"
    " SELECT id, $1::integer, $2::text, $3::text, $4::float8 FROM matches"
    " WHERE id = $5::bigint AND version = $1::integer AND finished_at IS NULL"
    " AND NOT EXISTS (SELECT 1 FROM event_keys WHERE key = $3::text)"
    " ON CONFLICT DO NOTHING RETURNING 1"
)


async def _require_match(conn: Conn, match_id: int) -> None:
    if await conn.fetchval("SELECT 1 FROM matches WHERE id = $1", match_id) is None:
        raise UnknownMatch(match_id)


async def _set_deadline(conn: Conn, match_id: int, kind: str, at: float) -> None:
    await conn.execute(
        "INSERT INTO deadlines (match_id, kind, at) VALUES ($1, $2, $3)"
        " ON CONFLICT (match_id, kind) DO UPDATE SET at = excluded.at",
        match_id, kind, at,
    )


async def _append_one(conn: Conn, a: _Append, worker: str | None) -> AppendResult | StoreError:
    """One append inside the caller's transaction; a refusal is returned, not raised (it changed nothing)."""
    if worker is not None:
        # The lease row is locked until this transaction ends, so it cannot pass to another worker
        # between this check and the commit.
        holder = await conn.fetchval(
            "SELECT worker FROM leases WHERE match_id = $1 AND expires_at > " + _NOW + " FOR UPDATE", a.match_id
        )
        if holder != worker:
            return LeaseLost(a.match_id, worker)
    if await conn.fetchval(_INSERT_ACTION, a.seq, a.text, a.key, a.at, a.match_id) is None:
        return await _why_not_appended(conn, a)
    for kind, at in a.deadlines:
        if at is None:
            await conn.execute("DELETE FROM deadlines WHERE match_id = $1 AND kind = $2", a.match_id, kind)
        else:
            await _set_deadline(conn, a.match_id, kind, at)
    return "applied"


async def _append_batch(conn: Conn, batch: list[_Append], worker: str | None) -> list[AppendResult | BaseException]:
    """The batch in one transaction, in order; each item's outcome. Should a statement fail in a
    way that is not a refusal, the batch is rolled back and each append is tried on its own."""
    if len(batch) > 1:
        try:
            async with conn.transaction():
                return [await _append_one(conn, a, worker) for a in batch]
        except _DB_ERRORS:
            pass
    return [await _append_alone(conn, a, worker) for a in batch]


async def _append_alone(conn: Conn, a: _Append, worker: str | None) -> AppendResult | BaseException:
    try:
        async with conn.transaction():
            return await _append_one(conn, a, worker)
    except _DB_ERRORS as exc:
        return exc


async def _why_not_appended(conn: Conn, a: _Append) -> AppendResult | StoreError:
    """The append changed nothing: "duplicate", or the reason it was refused."""
    if a.key is not None and await conn.fetchval(
        "SELECT EXISTS (SELECT 1 FROM actions WHERE key = $1) OR EXISTS (SELECT 1 FROM event_keys WHERE key = $1)",
        a.key,
    ):
        return "duplicate"
    row = await conn.fetchrow("SELECT version, finished_at FROM matches WHERE id = $1", a.match_id)
    if row is None:
        return UnknownMatch(a.match_id)
    version, finished_at = int(row[0]), row[1]
    if a.seq < version:
        stored = await conn.fetchval(
            "SELECT action FROM actions WHERE match_id = $1 AND seq = $2", a.match_id, a.seq
        )
        if stored is not None and a.key is None and stored == a.text:
            return "duplicate"
    elif finished_at is not None:
        return MatchClosed(a.match_id)
    return SequenceConflict(a.match_id, a.seq, version)
