"""`SqliteStore`: the `Store` on one SQLite file (the embedded default).

Everything but opening, the connection's locking, the append's inner loop (run in
aiosqlite's thread, one hop a batch), backup and the integrity check is shared with
PostgreSQL in `persistence/sql_store.py`. The port's names are re-exported here.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import time
from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiosqlite

from persistence.errors import MatchClosed, SequenceConflict, StoreError, UnknownMatch
from persistence.migrate import migrate
from persistence.port import BROKEN, AppendResult, Store, StoredMatch, Synchronous
from persistence.sql_store import CLEAR_DEADLINE, SET_DEADLINE, AppendStats, SqlStore, StoreClosing, _Append

__all__ = [
    "BROKEN", "AppendResult", "AppendStats", "SqliteStore", "Store", "StoreClosing", "StoredMatch", "Synchronous",
]


class SqliteStore(SqlStore):
    """`Store` on one SQLite file through aiosqlite (WAL, foreign keys, busy timeout).

    One connection; an asyncio lock makes each transaction one unit, so many
    table actors can share the store. Open with `await SqliteStore.open(path)`.
    """

    _LOG_ROWS = (
        "SELECT match_id, count(*), group_concat(seq), '[' || group_concat(action, ',') || ']'"
        " FROM (SELECT match_id, seq, action FROM actions WHERE match_id IN ({selected})"
        " ORDER BY match_id, seq) GROUP BY match_id"
    )

    def __init__(self, conn: aiosqlite.Connection, path: str, clock: Callable[[], float],
                 synchronous: Synchronous = "FULL") -> None:
        super().__init__(clock, synchronous)
        self._conn = conn
        self.path = path
        self._lock = asyncio.Lock()
        # True from a BEGIN being sent until its COMMIT/ROLLBACK completed. A task
        # cancelled in between leaves it set, and the next user of the connection
        # rolls the stray transaction back first (see `_settle`).
        self._in_tx = False
        self._holder: asyncio.Task[Any] | None = None

    # ----------------------------------------------------------------- opening

    @classmethod
    async def open(
        cls,
        path: str | Path,
        *,
        synchronous: Synchronous = "FULL",
        busy_timeout_ms: int = 5000,
        clock: Callable[[], float] = time.time,
        migrate_schema: bool = True,
    ) -> SqliteStore:
        """Open (creating file and folder on first use) and bring the schema up to date.

        synchronous "FULL" (the default) fsyncs the WAL at every commit, so an
        acknowledged action survives power loss too; "NORMAL" survives process
        crashes only. See README "Persistence" for the measured cost.

        :raises MigrationError: the file is newer than this code, or a migration failed.
        """
        if synchronous not in ("OFF", "NORMAL", "FULL", "EXTRA"):
            raise ValueError(f"synchronous must be OFF, NORMAL, FULL or EXTRA, not {synchronous!r}")
        target = str(path)
        if target != ":memory:" and not target.startswith("file:"):
            Path(target).parent.mkdir(parents=True, exist_ok=True)
        conn = await aiosqlite.connect(target, isolation_level=None, uri=target.startswith("file:"))
        try:
            await conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
            await conn.execute("PRAGMA journal_mode = WAL")
            await conn.execute(f"PRAGMA synchronous = {synchronous}")
            await conn.execute("PRAGMA foreign_keys = ON")
            if migrate_schema:
                await migrate(conn)
        except BaseException:
            await conn.close()
            raise
        return cls(conn, target, clock, synchronous)

    async def close(self) -> None:
        """Close the connection (after the waiting appends), rolling back any transaction a
        cancelled task left open."""
        await self._drain_appends()
        async with self._exclusive():
            await self._settle()
            with contextlib.suppress(sqlite3.Error):
                await self._conn.execute("PRAGMA optimize")  # keeps the query planner's statistics fresh
            await self._conn.close()

    # ------------------------------------------------------- transactions, SQL

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[aiosqlite.Connection]:
        """One write transaction (BEGIN IMMEDIATE ... COMMIT, ROLLBACK on error).

        For persistence modules that add their own tables (leagues): run your
        statements on the connection this yields, and nothing else meanwhile.
        Not reentrant: calling another store method inside the block raises RuntimeError.
        """
        async with self._exclusive():
            await self._begin("BEGIN IMMEDIATE")
            try:
                yield self._conn
            except BaseException:
                await self._end("ROLLBACK")
                raise
            await self._end("COMMIT")

    @asynccontextmanager
    async def _exclusive(self) -> AsyncIterator[None]:
        """Hold the connection for one unit of work; a nested call says so instead of deadlocking."""
        task = asyncio.current_task()
        if task is not None and task is self._holder:
            raise RuntimeError("a store method was called inside store.transaction(); use its connection")
        async with self._lock:
            self._holder = task
            try:
                yield
            finally:
                self._holder = None

    async def _settle(self) -> None:
        """Roll back a transaction a cancelled task left open; call with the lock held."""
        if self._in_tx:
            with contextlib.suppress(sqlite3.OperationalError):  # it may have finished after all
                await self._conn.execute("ROLLBACK")
            self._in_tx = False

    async def _begin(self, sql: str) -> None:
        await self._settle()
        self._in_tx = True
        await self._conn.execute(sql)

    async def _end(self, sql: str) -> None:
        await self._conn.execute(sql)
        self._in_tx = False

    async def fetchall(self, sql: str, params: Iterable[Any] = ()) -> list[aiosqlite.Row]:
        """Run one read query outside any write transaction."""
        async with self._exclusive():
            await self._settle()
            async with self._conn.execute(sql, tuple(params)) as cur:
                return list(await cur.fetchall())

    # ------------------------------------------------------- the shared code's part

    @asynccontextmanager
    async def _write(self) -> AsyncIterator[_Sql]:
        async with self.transaction() as conn:
            yield _Sql(conn)

    @asynccontextmanager
    async def _snapshot(self) -> AsyncIterator[_Sql]:
        async with self._exclusive():
            await self._begin("BEGIN")
            try:
                yield _Sql(self._conn)
            finally:
                await self._end("COMMIT")

    async def _read(self, sql: str, params: tuple[Any, ...] = ()) -> list[Any]:
        return await self.fetchall(sql, params)

    async def _write_batch(self, batch: list[_Append]) -> list[AppendResult | BaseException]:
        async with self._exclusive():
            await self._settle()
            # one hop to the connection's thread for the whole batch (aiosqlite's own queue)
            return await self._conn._execute(_append_batch, self._conn, batch)  # type: ignore[no-untyped-call,no-any-return]

    # ---------------------------------------------------------------- operations

    async def backup(self, target: str | Path) -> None:
        """Copy the live database to `target` with SQLite's online backup (safe while appending)."""
        from persistence.backup import backup_connection

        async with self._exclusive():
            await self._settle()
            await backup_connection(self._conn, Path(target))

    async def integrity_check(self) -> list[str]:
        """SQLite's integrity and foreign-key checks; [] when the file is sound."""
        problems: list[str] = []
        for (line,) in await self.fetchall("PRAGMA integrity_check"):
            if line != "ok":
                problems.append(str(line))
        for row in await self.fetchall("PRAGMA foreign_key_check"):
            problems.append(f"foreign key: table {row[0]} rowid {row[1]} points to a missing {row[2]} row")
        return problems


class _Sql:
    """An aiosqlite connection as `persistence.sql_store.Sql`."""

    def __init__(self, conn: aiosqlite.Connection) -> None:
        self._conn = conn

    async def run(self, sql: str, params: tuple[Any, ...] = ()) -> int:
        cur = await self._conn.execute(sql, params)
        return cur.rowcount

    async def one(self, sql: str, params: tuple[Any, ...] = ()) -> Any:
        async with self._conn.execute(sql, params) as cur:
            return await cur.fetchone()

    async def all(self, sql: str, params: tuple[Any, ...] = ()) -> list[Any]:
        async with self._conn.execute(sql, params) as cur:
            return list(await cur.fetchall())


_INSERT_ACTION = (
    # One statement: the trigger raises the version in the same statement. It inserts only
    # the next seq of an open match whose key was never seen.
    "INSERT INTO actions (match_id, seq, action, key, at)"
    " SELECT id, ?, ?, ?, ? FROM matches"
    " WHERE id = ? AND version = ? AND finished_at IS NULL"
    " ON CONFLICT DO NOTHING"
)


def _append_one(conn: sqlite3.Connection, a: _Append) -> AppendResult | StoreError:
    """In the connection's thread: one append; a refusal is returned, not raised (it changed nothing)."""
    cur = conn.execute(_INSERT_ACTION, (a.seq, a.text, a.key, a.at, a.match_id, a.seq))
    if cur.rowcount == 1:
        for kind, at in a.deadlines:
            if at is None:
                conn.execute(CLEAR_DEADLINE, (a.match_id, kind))
            else:
                conn.execute(SET_DEADLINE, (a.match_id, kind, at))
        return "applied"
    return _why_not_appended(conn, a.match_id, a.seq, a.text, a.key)


def _append_batch(aconn: aiosqlite.Connection, batch: list[_Append]) -> list[AppendResult | BaseException]:
    """In the connection's thread: the batch in one transaction, in order; each item's outcome.

    Should a statement fail in a way that is not a refusal (disk full, I/O error), the batch is
    rolled back and each append is then tried on its own, so each caller gets its own answer."""
    conn = aconn._conn
    if len(batch) == 1:  # its own transaction
        return [_append_alone(conn, batch[0])]
    try:
        conn.execute("BEGIN IMMEDIATE")
        outcomes: list[AppendResult | BaseException] = [_append_one(conn, a) for a in batch]
        conn.execute("COMMIT")
        return outcomes
    except sqlite3.Error:
        if conn.in_transaction:
            with contextlib.suppress(sqlite3.Error):
                conn.execute("ROLLBACK")
    return [_append_alone(conn, a) for a in batch]


def _append_alone(conn: sqlite3.Connection, a: _Append) -> AppendResult | BaseException:
    """In the connection's thread: one append in its own transaction; a failure is its outcome."""
    if not a.deadlines:  # one statement: its own transaction
        try:
            return _append_one(conn, a)
        except sqlite3.Error as exc:
            return exc
    try:
        conn.execute("BEGIN IMMEDIATE")
        outcome = _append_one(conn, a)
        conn.execute("COMMIT")
        return outcome
    except sqlite3.Error as exc:
        if conn.in_transaction:
            with contextlib.suppress(sqlite3.Error):
                conn.execute("ROLLBACK")
        return exc


def _why_not_appended(conn: sqlite3.Connection, match_id: int, seq: int, text: str,
                      key: str | None) -> AppendResult | StoreError:
    """The append changed nothing: "duplicate", or the reason it was refused."""
    def one(sql: str, params: tuple[Any, ...]) -> Any:
        return conn.execute(sql, params).fetchone()

    if key is not None and one(
        "SELECT 1 FROM actions WHERE key = ?", (key,)
    ):
        return "duplicate"
    row = one("SELECT version, finished_at FROM matches WHERE id = ?", (match_id,))
    if row is None:
        return UnknownMatch(match_id)
    version, finished_at = int(row[0]), row[1]
    if seq < version:
        stored = one("SELECT action FROM actions WHERE match_id = ? AND seq = ?", (match_id, seq))
        if stored is not None and key is None and stored[0] == text:
            return "duplicate"
    elif finished_at is not None:
        return MatchClosed(match_id)
    return SequenceConflict(match_id, seq, version)
