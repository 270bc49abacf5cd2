"""`Store` on PostgreSQL through asyncpg (`PostgresStore`): one database shared by several machines.

Same answers as `SqliteStore` for every call (the storage contract tests run on
both): the calls themselves are shared (`persistence/sql_store.py`); here are the
pool, the same one-statement append in PostgreSQL's dialect (it inserts only the
next seq of an open match whose key was never seen; a trigger raises the version)
with the lease check of a named worker, the leases, and the checks and backup
advice. The shared statements and the league module's use `?` placeholders;
`_numbered` turns them into `$1, $2, ...`, which is all that differs for them.

Past 400 lines because every call here goes through one retry loop (`_retrying`) on lost
connections and a server restarting, and each write is written so that running it twice lands
once: splitting the calls from the loop would spread that one rule over several files.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any, TypeAlias, TypeVar
from urllib.parse import urlsplit, urlunsplit

import asyncpg
from asyncpg.pool import PoolConnectionProxy

from persistence.errors import LeaseLost, MatchClosed, SequenceConflict, StoreDown, StoreError, UnknownMatch
from persistence.pg_lost import lost
from persistence.port import AppendResult, Synchronous
from persistence.postgres_cluster import DEAD_WORKERS, ClusterLink
from persistence.postgres_flood import FloodLedger
from persistence.postgres_migrate import migrate
from persistence.sql_store import CLEAR_DEADLINE, SET_DEADLINE, Sql, SqlStore, _Append

#: A connection, whether from the pool or on its own.
Conn: TypeAlias = "asyncpg.Connection[Any] | PoolConnectionProxy[Any]"

#: Seconds a table's lease lasts without its holder's heartbeat: how long a dead worker's tables wait.
LEASE_TTL = 6.0

#: What a failed statement or connection raises through asyncpg.
_DB_ERRORS = (asyncpg.PostgresError, asyncpg.InterfaceError, OSError)

#: Seconds a store call keeps trying through lost connections (a server restarting, a failover to
#: a replica) before it gives up with `StoreDown`; the first wait and the longest between attempts.
RETRY_FOR = 15.0
RETRY_FIRST = 0.05
RETRY_LAST = 1.0

log = logging.getLogger(__name__)
T = TypeVar("T")


@dataclass
class StoreHealth:
    """What the database did to this store lately (readiness, /metrics)."""

    errors: int = 0  # calls that met a lost connection or a server going away
    retries: int = 0  # attempts made again after one
    gave_up: int = 0  # calls that ended in StoreDown
    down_since: float | None = None  # loop time of the first failure of the outage going on, if any


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


class PostgresStore(SqlStore):
    """`Store` on one PostgreSQL database through an asyncpg pool.

    Open with `await PostgresStore.open("postgresql://user@host/db")`.
    """

    _LOG_ROWS = (
        "SELECT match_id, count(*), string_agg(seq::text, ',' ORDER BY seq),"
        " '[' || string_agg(action, ',' ORDER BY seq) || ']'"
        " FROM actions WHERE match_id IN ({selected}) GROUP BY match_id"
    )
    _LOCK_ROW = " FOR UPDATE"

    def __init__(self, pool: asyncpg.Pool, url: str, clock: Callable[[], float],
                 synchronous: Synchronous = "FULL", worker: str | None = None) -> None:
        super().__init__(clock, synchronous)
        self._pool = pool
        # With a worker name, appends are accepted only for tables whose lease this worker holds.
        self.worker = worker
        self.path = redact(url)  # what tools print; never the password
        self._url = url
        #: How long a lease lasts without a heartbeat (the creator of a match holds it at once).
        self.lease_ttl = LEASE_TTL
        self.health = StoreHealth()
        #: How long a call keeps trying through lost connections before it raises StoreDown.
        self.retry_for = RETRY_FOR

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
        await self._drain_appends()
        await self._pool.close()

    # ------------------------------------------------------- lost connections

    async def _retrying(self, call: Callable[[], Awaitable[T]], budget: float | None = None) -> T:
        """`call()`, made again on a lost connection (`lost`) with growing waits for up to `budget`
        seconds (`retry_for`); then StoreDown. Any other error is raised at once.

        A write is made again only when its transaction did not commit, or cannot be told to have:
        the statements here are written so that running one twice lands once (upserts, sets of
        values, keys checked before insert); `create_match` is the exception, and the window is a
        connection lost between the server's commit and its answer."""
        loop = asyncio.get_running_loop()
        give_up = loop.time() + (self.retry_for if budget is None else budget)
        delay = RETRY_FIRST
        while True:
            try:
                out = await call()
            except BaseException as exc:
                if not lost(exc):
                    raise
                self._failed(exc)
                if loop.time() + delay > give_up:
                    self.health.gave_up += 1
                    raise StoreDown(f"the database {self.path} cannot be reached: {type(exc).__name__}: {exc}") from None
                self.health.retries += 1
                await asyncio.sleep(delay)
                delay = min(delay * 2, RETRY_LAST)
                continue
            self._reached()
            return out

    def _failed(self, exc: BaseException) -> None:
        self.health.errors += 1
        if self.health.down_since is None:
            self.health.down_since = asyncio.get_running_loop().time()
            log.warning("database %s: %s: %s; trying again", self.path, type(exc).__name__, exc)

    def _reached(self) -> None:
        if self.health.down_since is not None:
            seconds = asyncio.get_running_loop().time() - self.health.down_since
            self.health.down_since = None
            log.warning("database %s reachable again after %.1f s", self.path, seconds)

    async def ping(self, timeout: float = 2.0) -> None:
        """One round trip to the server (readiness), not retried.

        :raises StoreDown: it did not answer within `timeout` seconds.
        """
        try:
            async with asyncio.timeout(timeout):
                async with self._pool.acquire() as conn:
                    await conn.fetchval("SELECT 1")
        except BaseException as exc:
            if not lost(exc):
                raise
            self._failed(exc)
            raise StoreDown(f"the database {self.path} does not answer: {type(exc).__name__}") from None
        self._reached()

    # ------------------------------------------------------- transactions, SQL

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[_Connection]:
        """One write transaction for persistence modules that add their own tables (leagues).

        The connection it yields takes SQLite-style `?` statements, like `SqliteStore`'s. Getting
        a connection and beginning are tried again through lost connections; one lost inside the
        block raises StoreDown (the block cannot be run again from here).
        """
        conn, tx = await self._retrying(self._begin)
        try:
            yield _Connection(conn)
        except BaseException as exc:
            await self._end(conn, tx, commit=False)
            if lost(exc):
                self._failed(exc)
                raise StoreDown(f"the database {self.path} went away: {type(exc).__name__}: {exc}") from None
            raise
        try:
            await self._end(conn, tx, commit=True)
        except BaseException as exc:
            if lost(exc):
                self._failed(exc)
                raise StoreDown(f"the database {self.path} went away: {type(exc).__name__}: {exc}") from None
            raise

    async def _begin(self) -> tuple[PoolConnectionProxy[Any], Any]:
        conn = await self._pool.acquire()
        try:
            tx = conn.transaction()
            await tx.start()
        except BaseException:
            await self._pool.release(conn)
            raise
        return conn, tx

    async def _end(self, conn: PoolConnectionProxy[Any], tx: Any, *, commit: bool) -> None:
        try:
            if commit:
                await tx.commit()
            else:
                await tx.rollback()
        except BaseException:
            if not commit:  # rolling back a connection that is gone: the pool drops it
                return
            raise
        finally:
            try:
                await self._pool.release(conn)
            except Exception as exc:  # the pool terminated it already (its reset failed)
                log.debug("connection released broken: %s", exc)

    async def fetchall(self, sql: str, params: Iterable[Any] = ()) -> list[asyncpg.Record]:
        """Run one read query (`?` placeholders, as for `SqliteStore.fetchall`)."""
        values = tuple(params)
        return await self._retrying(lambda: self._fetch(sql, values))

    async def _fetch(self, sql: str, params: tuple[Any, ...]) -> list[asyncpg.Record]:
        async with self._pool.acquire() as conn:
            return list(await conn.fetch(_numbered(sql), *params))

    # ------------------------------------------------------- the shared code's part
    # Not retried themselves: the public calls around them (`_RETRIED` below) are, whole.

    @asynccontextmanager
    async def _write(self) -> AsyncIterator[_Connection]:
        async with self._pool.acquire() as conn, conn.transaction():
            yield _Connection(conn)

    @asynccontextmanager
    async def _snapshot(self) -> AsyncIterator[_Connection]:
        async with self._pool.acquire() as conn, conn.transaction(isolation="repeatable_read", readonly=True):
            yield _Connection(conn)

    async def _read(self, sql: str, params: tuple[Any, ...] = ()) -> list[Any]:
        return await self._fetch(sql, params)

    async def _write_batch(self, batch: list[_Append]) -> list[AppendResult | BaseException]:
        """The batch through lost connections: the appends whose outcome a lost connection hid are
        written again, each first looked for in the log (an append whose commit landed before the
        connection dropped is found there and is "applied", not "duplicate")."""
        loop = asyncio.get_running_loop()
        give_up = loop.time() + self.retry_for
        delay = RETRY_FIRST
        results: dict[int, AppendResult | BaseException] = {}
        todo = list(range(len(batch)))
        again = False
        while True:
            try:
                async with self._pool.acquire() as conn:
                    if again:
                        for i in await _landed(conn, [batch[i] for i in todo], todo):
                            results[i] = "applied"
                        todo = [i for i in todo if i not in results]
                    outs = await _append_batch(conn, [batch[i] for i in todo], self.worker) if todo else []
            except BaseException as exc:
                if not lost(exc):
                    raise
                outs = [exc] * len(todo)
            hidden = [i for i, out in zip(todo, outs, strict=True) if isinstance(out, BaseException) and lost(out)]
            for i, out in zip(todo, outs, strict=True):
                if i not in hidden:
                    results[i] = out
            if not hidden:
                if again:
                    self._reached()
                return [results[i] for i in range(len(batch))]
            self._failed(outs[todo.index(hidden[0])])  # type: ignore[arg-type]
            if loop.time() + delay > give_up:
                self.health.gave_up += 1
                down = StoreDown(f"the database {self.path} cannot be reached: appends not written")
                return [results.get(i, down) for i in range(len(batch))]
            self.health.retries += 1
            await asyncio.sleep(delay)
            delay = min(delay * 2, RETRY_LAST)
            todo, again = hidden, True

    # ------------------------------------------------------------------- leases

    async def _created(self, sql: Sql, match_id: int) -> None:
        if self.worker is not None:  # whoever opens a table drives it first
            await sql.run(
                "INSERT INTO leases (match_id, worker, expires_at) VALUES (?, ?, " + _NOW + " + ?)",
                (match_id, self.worker, float(self.lease_ttl)),
            )

    def flood_ledger(self) -> FloodLedger:
        """The flood budgets the workers of one bot share (persistence/postgres_flood.py)."""
        return FloodLedger(self._url, self.worker or "")

    def cluster(self) -> ClusterLink:
        """This worker's link to the others (who is alive, the inbox); needs a worker name."""
        return ClusterLink(self._pool, self._url, self._require_worker())

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
                    " WHERE leases.worker = excluded.worker OR leases.expires_at <= " + _NOW + " OR " + _HOLDER_DEAD + " RETURNING 1",
                    match_id, worker, float(ttl),
                )
            except asyncpg.ForeignKeyViolationError:
                raise UnknownMatch(match_id) from None
        return held is not None

    async def acquire_leases(self, match_ids: Sequence[int], ttl: float) -> list[int]:
        """`acquire_lease` for many tables in one statement (a worker taking its share); the ones taken."""
        worker = self._require_worker()
        async with self._pool.acquire() as conn:
            rows = await conn.fetch(
                "INSERT INTO leases (match_id, worker, expires_at) SELECT u.mid, $2, " + _NOW + " + $3"
                " FROM unnest($1::bigint[]) AS u(mid) WHERE EXISTS (SELECT 1 FROM matches m WHERE m.id = u.mid)"
                " ON CONFLICT (match_id) DO UPDATE SET worker = excluded.worker, expires_at = excluded.expires_at"
                " WHERE leases.worker = excluded.worker OR leases.expires_at <= " + _NOW + " OR " + _HOLDER_DEAD + " RETURNING match_id",
                sorted(int(m) for m in match_ids), worker, float(ttl),
            )
        return sorted(int(r[0]) for r in rows)

    async def renew_leases(self, ttl: float) -> list[int]:
        """The heartbeat: extend every unexpired lease of this worker; returns the tables still held."""
        worker = self._require_worker()
        async with self._pool.acquire() as conn:
            # rows locked in match-id order, as appends lock them (no deadlock between the two)
            rows = await conn.fetch(
                "UPDATE leases SET expires_at = " + _NOW + " + $2 WHERE match_id IN (SELECT match_id FROM leases"
                " WHERE worker = $1 AND expires_at > " + _NOW + " ORDER BY match_id FOR UPDATE) RETURNING match_id",
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


#: The shared calls made again, whole, through lost connections (see `PostgresStore._retrying`).
_RETRIED = ("upsert_player", "get_player", "get_chat", "set_chat", "update_chat", "create_match", "update_match",
            "finish_match", "set_message", "set_deadline", "seen_key", "get_match", "match_tail",
            "load_unfinished", "list_matches", "mark_broken", "integrity_check", "set_picks")
#: The lease calls: tried once (the heartbeat tries again a beat later), a lost connection StoreDown.
_ONCE = ("acquire_lease", "acquire_leases", "renew_leases", "release_lease")


def _retried(name: str, budget: float | None) -> Callable[..., Awaitable[Any]]:
    base = getattr(PostgresStore, name)

    @functools.wraps(base)
    async def call(self: PostgresStore, *args: Any, **kwargs: Any) -> Any:
        return await self._retrying(lambda: base(self, *args, **kwargs), budget)

    return call


for _name in _RETRIED:
    setattr(PostgresStore, _name, _retried(_name, None))
for _name in _ONCE:
    setattr(PostgresStore, _name, _retried(_name, 0.0))


class _Connection:
    """A transaction's connection with SQLite's `?` placeholders: as `persistence.sql_store.Sql`
    (run, one, all) for the shared code, and as the league module uses aiosqlite's
    (`execute(sql, params)`, awaited or as `async with ... as cur`, `executemany`)."""

    def __init__(self, conn: Conn) -> None:
        self._conn = conn

    async def run(self, sql: str, params: tuple[Any, ...] = ()) -> int:
        return _rowcount(await self._conn.execute(_numbered(sql), *params))

    async def one(self, sql: str, params: tuple[Any, ...] = ()) -> Any:
        return await self._conn.fetchrow(_numbered(sql), *params)

    async def all(self, sql: str, params: tuple[Any, ...] = ()) -> list[Any]:
        return list(await self._conn.fetch(_numbered(sql), *params))

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
#: A lease whose holder's process is gone (persistence.postgres_cluster) is free before it runs out.
_HOLDER_DEAD = "leases.worker IN (" + DEAD_WORKERS + ")"

_INSERT_ACTION = (
    # One statement: the trigger raises the version in the same statement. It inserts only
    # the next seq of an open match whose key was never seen.
    "INSERT INTO actions (match_id, seq, action, key, at)"
    " SELECT id, $1::integer, $2::text, $3::text, $4::float8 FROM matches"
    " WHERE id = $5::bigint AND version = $1::integer AND finished_at IS NULL"
    " ON CONFLICT DO NOTHING RETURNING 1"
)


async def _landed(conn: Conn, batch: list[_Append], indexes: list[int]) -> list[int]:
    """Of the appends (`indexes` name them), those already in the log as written: each at its seq,
    the same action and key. Their commit landed though its answer was lost."""
    rows = await conn.fetch(
        "SELECT a.match_id, a.seq, a.action, a.key FROM actions a"
        " JOIN unnest($1::bigint[], $2::integer[]) AS u(m, s) ON a.match_id = u.m AND a.seq = u.s",
        [a.match_id for a in batch], [a.seq for a in batch],
    )
    found = {(int(r[0]), int(r[1])): (str(r[2]), r[3]) for r in rows}
    return [i for i, a in zip(indexes, batch, strict=True) if found.get((a.match_id, a.seq)) == (a.text, a.key)]


async def _held(conn: Conn, batch: list[_Append], worker: str | None) -> set[int] | None:
    """The tables of the batch whose lease this worker holds (None: no worker, no check).

    Their lease rows stay locked until the transaction ends, so none can pass to another worker
    between this check and the commit. They are locked in one statement in match-id order, the
    order the heartbeat locks them in too, so the two never deadlock."""
    if worker is None:
        return None
    rows = await conn.fetch(
        "SELECT match_id FROM leases WHERE match_id = ANY($1::bigint[]) AND worker = $2 AND expires_at > "
        + _NOW + " ORDER BY match_id FOR UPDATE",
        sorted({a.match_id for a in batch}), worker,
    )
    return {int(r[0]) for r in rows}


async def _append_one(conn: Conn, a: _Append, worker: str | None, held: set[int] | None) -> AppendResult | StoreError:
    """One append inside the caller's transaction; a refusal is returned, not raised (it changed nothing)."""
    if worker is not None and held is not None and a.match_id not in held:
        return LeaseLost(a.match_id, worker)
    if await conn.fetchval(_INSERT_ACTION, a.seq, a.text, a.key, a.at, a.match_id) is None:
        return await _why_not_appended(conn, a)
    for kind, at in a.deadlines:
        if at is None:
            await conn.execute(_numbered(CLEAR_DEADLINE), a.match_id, kind)
        else:
            await conn.execute(_numbered(SET_DEADLINE), a.match_id, kind, at)
    return "applied"


async def _append_batch(conn: Conn, batch: list[_Append], worker: str | None) -> list[AppendResult | BaseException]:
    """The batch in one transaction, in order; each item's outcome. Should a statement fail in a
    way that is not a refusal, the batch is rolled back and each append is tried on its own."""
    if len(batch) > 1:
        try:
            async with conn.transaction():
                held = await _held(conn, batch, worker)
                return [await _append_one(conn, a, worker, held) for a in batch]
        except _DB_ERRORS:
            pass
    return [await _append_alone(conn, a, worker) for a in batch]


async def _append_alone(conn: Conn, a: _Append, worker: str | None) -> AppendResult | BaseException:
    try:
        async with conn.transaction():
            return await _append_one(conn, a, worker, await _held(conn, [a], worker))
    except _DB_ERRORS as exc:
        return exc


async def _why_not_appended(conn: Conn, a: _Append) -> AppendResult | StoreError:
    """The append changed nothing: "duplicate", or the reason it was refused."""
    if a.key is not None and await conn.fetchval(
        "SELECT EXISTS (SELECT 1 FROM actions WHERE key = $1)",
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
