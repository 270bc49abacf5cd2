"""What workers sharing one PostgreSQL database need of it besides the store: who is alive, which
tables are open and who holds them, and the inbox that carries a platform update to a table's owner.

An update is written to `inbox` (durable: should the owner die, the next owner takes it) and the
owner is woken with `NOTIFY tractor` in the same transaction; replies to the worker that received
the update travel back the same way. Every worker listens on one channel and keeps the
notifications addressed to it (`{"to": worker, ...}`): a handful of workers, so no fan-out cost
worth a channel each. Times are the database's clock, as for leases. The web table uses the same
channel: which tables' pages a worker serves (to every worker) and that such a table changed
(from its owner to those workers), see bot.cluster.

A worker's life is a session advisory lock on its listening connection (migration 0007): the
server releases it the instant the process's connection drops, so a SIGKILLed worker is seen dead
at the others' next beat, not when its leases run out. That only speeds taking its tables: the
store still refuses every write not covered by a lease row naming the writer, so a worker wrongly
seen dead (its listening connection cut, the rest alive) loses its tables and is never a second writer.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncIterator, Callable, Collection
from typing import Any

import asyncpg

from persistence.errors import StoreDown
from persistence.pg_lost import down_when_lost, lost

log = logging.getLogger(__name__)

CHANNEL = "tractor"
#: The database's clock in epoch seconds.
NOW = "extract(epoch FROM clock_timestamp())::float8"
#: First key of every worker's life lock, (LIFE_LOCKS, workers.life); "trac" in ASCII.
LIFE_LOCKS = 0x74726163
#: The workers that joined with a life lock the server has since released: their process is gone.
#: One scan of pg_locks per statement (an uncorrelated subquery), however many leases it is asked of.
DEAD_WORKERS = (
    "SELECT w.name FROM workers w LEFT JOIN (SELECT objid FROM pg_locks WHERE locktype = 'advisory'"
    f" AND granted AND classid = {LIFE_LOCKS}::oid AND objsubid = 2"
    " AND database = (SELECT oid FROM pg_database WHERE datname = current_database())) k"
    " ON k.objid = w.life::oid WHERE w.life IS NOT NULL AND k.objid IS NULL"
)
#: Rows of workers gone this long are deleted (their leases ran out long before).
FORGET_WORKERS_AFTER = 60.0
#: Seconds after which an inbox row taken but not served is taken again.
RETAKE_AFTER = 5.0


class ClusterLink:
    """One worker's view of the others, on the store's pool plus one listening connection."""

    def __init__(self, pool: asyncpg.Pool, url: str, worker: str) -> None:
        self._pool = pool
        self._url = url
        self.worker = worker
        self._listener: asyncpg.Connection[Any] | None = None
        self._on_message: Callable[[dict[str, Any]], None] | None = None
        self._roles: list[asyncpg.Connection[Any]] = []
        self._shared: asyncpg.Connection[Any] | None = None  # the roles taken with `try_hold`
        self._shared_lock = asyncio.Lock()
        self._paces: set[asyncio.Task[None]] = set()
        self.rejoined = 0

    @down_when_lost("beat")
    async def beat(self, ttl: float, within: float) -> list[str]:
        """Says this worker is alive for `ttl` more seconds; the names of every live worker, sorted:
        beating within the last `within` seconds and not dead (its life lock gone), however long its
        heartbeat would still run.

        Should this worker's own listening connection have dropped (the others then see it dead and
        take its tables), it joins again first, with a new life lock."""
        if self._on_message is not None and (self._listener is None or self._listener.is_closed()):
            log.warning("worker %s: its listening connection dropped; joining again", self.worker)
            self.rejoined += 1
            await self._join()
        async with self._pool.acquire() as conn:
            await conn.execute(
                f"INSERT INTO workers (name, expires_at, started_at, beat_at) VALUES ($1, {NOW} + $2, {NOW}, {NOW})"
                " ON CONFLICT (name) DO UPDATE SET expires_at = excluded.expires_at, beat_at = excluded.beat_at",
                self.worker, float(ttl),
            )
            rows = await conn.fetch(
                f"SELECT name FROM workers WHERE expires_at > {NOW} AND (beat_at IS NULL OR beat_at > {NOW} - $1)"
                f" AND name NOT IN ({DEAD_WORKERS}) ORDER BY name",
                float(within),
            )
        return [str(r[0]) for r in rows]

    @down_when_lost("leave")
    async def leave(self) -> None:
        """A clean stop: this worker is gone at once (its tables were released before)."""
        async with self._pool.acquire() as conn:
            await conn.execute("DELETE FROM workers WHERE name = $1", self.worker)

    @down_when_lost("open tables")
    async def open_tables(self, platforms: Collection[str]) -> list[tuple[int, str | None]]:
        """Every unfinished, sound match of these platforms with the worker whose lease on it runs
        (None: free, or its holder died)."""
        async with self._pool.acquire() as conn:
            rows = await conn.fetch(
                "SELECT m.id, l.worker FROM matches m JOIN chats c ON c.id = m.chat"
                f" LEFT JOIN leases l ON l.match_id = m.id AND l.expires_at > {NOW}"
                f" AND l.worker NOT IN ({DEAD_WORKERS})"
                " WHERE m.finished_at IS NULL AND m.status != 'broken' AND c.platform = ANY($1::text[])"
                " ORDER BY m.id",
                list(platforms),
            )
        return [(int(r[0]), None if r[1] is None else str(r[1])) for r in rows]

    @down_when_lost("table of chat")
    async def table_of_chat(self, platform: str, chat_id: str) -> int | None:
        """The open table of a chat (its newest unfinished match), if any."""
        async with self._pool.acquire() as conn:
            found = await conn.fetchval(
                "SELECT m.id FROM matches m JOIN chats c ON c.id = m.chat WHERE c.platform = $1"
                " AND c.chat_id = $2 AND m.finished_at IS NULL AND m.status != 'broken' ORDER BY m.id DESC LIMIT 1",
                platform, str(chat_id),
            )
        return None if found is None else int(found)

    @down_when_lost("next in series")
    async def next_in_series(self, platform: str, match_id: int) -> int | None:
        """The open game that follows `match_id` in its best of three (its meta's `series.previous`),
        whichever worker drives it: a page of the game that ended follows the series there."""
        async with self._pool.acquire() as conn:
            found = await conn.fetchval(
                "SELECT m.id FROM matches m JOIN chats c ON c.id = m.chat WHERE c.platform = $1"
                " AND m.finished_at IS NULL AND m.status != 'broken'"
                " AND m.meta::jsonb -> 'series' ->> 'previous' = $2::text ORDER BY m.id DESC LIMIT 1",
                platform, str(match_id),
            )
        return None if found is None else int(found)

    @down_when_lost("tables of user")
    async def tables_of_user(self, platform: str, user_id: str) -> list[int]:
        """The open tables at which this person sits, newest first."""
        async with self._pool.acquire() as conn:
            rows = await conn.fetch(
                "SELECT m.id FROM matches m JOIN chats c ON c.id = m.chat WHERE c.platform = $1"
                " AND m.finished_at IS NULL AND m.status != 'broken'"
                " AND m.seats::jsonb @> jsonb_build_array(jsonb_build_object('user_id', $2::text))"
                " ORDER BY m.id DESC",
                platform, str(user_id),
            )
        return [int(r[0]) for r in rows]

    @down_when_lost("post")
    async def post(self, match_id: int, payload: dict[str, Any]) -> str | None:
        """Leaves an update for a table's owner and wakes it; the owner's name, None while nobody
        holds the table (the worker that takes it next finds the update waiting)."""
        async with self._pool.acquire() as conn, conn.transaction():
            await conn.execute(
                f"INSERT INTO inbox (match_id, payload, at) VALUES ($1, $2, {NOW})",
                match_id, json.dumps(payload, ensure_ascii=False),
            )
            owner = await conn.fetchval(
                f"SELECT worker FROM leases WHERE match_id = $1 AND expires_at > {NOW}", match_id
            )
            if owner is not None:
                await conn.execute("SELECT pg_notify($1, $2)", CHANNEL, json.dumps({"to": owner, "kind": "inbox"}))
        return None if owner is None else str(owner)

    @down_when_lost("take")
    async def take(self) -> list[tuple[int, dict[str, Any]]]:
        """The waiting updates of the tables this worker holds, oldest first, each as (row id, match,
        payload); marked taken, not removed: `served` removes them. A row marked but not served
        within `RETAKE_AFTER` (its answer lost with a dropped connection, its taker gone) is
        taken again."""
        async with self._pool.acquire() as conn:
            rows = await conn.fetch(
                f"UPDATE inbox SET taken_by = $1, taken_at = {NOW} WHERE id IN (SELECT i.id FROM inbox i"
                " JOIN leases l ON l.match_id = i.match_id"
                f" WHERE l.worker = $1 AND l.expires_at > {NOW} AND (i.taken_at IS NULL OR i.taken_at < {NOW} - $2)"
                " FOR UPDATE OF i SKIP LOCKED) RETURNING id, match_id, payload",
                self.worker, RETAKE_AFTER,
            )
        out: list[tuple[int, dict[str, Any]]] = []
        bad: list[int] = []
        for row_id, match_id, text in sorted(rows, key=lambda r: int(r[0])):
            try:
                out.append((int(row_id), json.loads(text)))
            except ValueError:
                log.error("inbox: unreadable update for match %s dropped", match_id)
                bad.append(int(row_id))
        if bad:
            await self.served(bad)
        return out

    @down_when_lost("served")
    async def served(self, row_ids: list[int]) -> None:
        """These inbox rows were served (their updates are at their tables): removed."""
        async with self._pool.acquire() as conn:
            await conn.execute("DELETE FROM inbox WHERE id = ANY($1::bigint[])", row_ids)

    @down_when_lost("prune")
    async def prune(self, older_than: float) -> int:
        """Drops updates nobody took within `older_than` seconds (their tables ended meanwhile), and
        the rows of workers long gone (a killed worker never deletes its own)."""
        async with self._pool.acquire() as conn:
            tag = await conn.execute(f"DELETE FROM inbox WHERE at < {NOW} - $1", float(older_than))
            await conn.execute(f"DELETE FROM workers WHERE expires_at < {NOW} - $1", FORGET_WORKERS_AFTER)
        return int(tag.rsplit(" ", 1)[-1])

    @contextlib.asynccontextmanager
    async def sole(self, what: str) -> AsyncIterator[bool]:
        """True inside while this worker alone does `what` (a transaction lock: should it die, the
        server ends the transaction); False while another worker does it."""
        try:
            async with self._pool.acquire() as conn, conn.transaction():
                yield bool(await conn.fetchval("SELECT pg_try_advisory_xact_lock(hashtext($1))",
                                               f"tractor-sole:{what}"))
        except BaseException as exc:
            if lost(exc):
                raise StoreDown(f"sole {what}: the database went away ({type(exc).__name__}: {exc})") from None
            raise

    @down_when_lost("unattended")
    async def unattended(self, chats: Collection[tuple[str, str]]) -> set[tuple[str, str]]:
        """Of these chats, those with no open match and no live lease on any of their matches: no
        worker drives a table there or is still moving an ended one on (bot.move_on)."""
        pairs = sorted(set(chats))
        async with self._pool.acquire() as conn:
            rows = await conn.fetch(
                "SELECT c.platform, c.chat_id FROM chats c JOIN unnest($1::text[], $2::text[]) AS u(p, id)"
                " ON c.platform = u.p AND c.chat_id = u.id"
                " WHERE NOT EXISTS (SELECT 1 FROM matches m WHERE m.chat = c.id AND m.finished_at IS NULL"
                " AND m.status != 'broken') AND NOT EXISTS (SELECT 1 FROM matches m JOIN leases l"
                f" ON l.match_id = m.id WHERE m.chat = c.id AND l.expires_at > {NOW}"
                f" AND l.worker NOT IN ({DEAD_WORKERS}))",
                [p for p, _ in pairs], [c for _, c in pairs],
            )
        return {(str(r[0]), str(r[1])) for r in rows}

    @down_when_lost("notify")
    async def notify(self, worker: str, message: dict[str, Any]) -> None:
        """A short message to one worker (a reply to an update it forwarded, a table's change), or to
        every other worker ("*"; a message names its sender in "from")."""
        async with self._pool.acquire() as conn:
            await conn.execute("SELECT pg_notify($1, $2)", CHANNEL, json.dumps({**message, "to": worker}))

    async def listen(self, on_message: Callable[[dict[str, Any]], None]) -> None:
        """Joins: takes this worker's life lock and calls `on_message` with each notification
        addressed to it, both on a connection of its own that lasts as long as the process."""
        self._on_message = on_message
        await self._join()

    async def _join(self) -> None:
        if self._listener is not None:
            with contextlib.suppress(Exception):
                await self._listener.close()
        conn = self._listener = await asyncpg.connect(self._url)
        # lock first, then publish it: a life published before its lock is held would read as dead
        life = int(await conn.fetchval("SELECT nextval('worker_life')::integer"))
        await conn.execute("SELECT pg_advisory_lock($1::integer, $2::integer)", LIFE_LOCKS, life)
        await conn.execute(
            f"INSERT INTO workers (name, expires_at, started_at, life) VALUES ($1, {NOW}, {NOW}, $2)"
            " ON CONFLICT (name) DO UPDATE SET life = excluded.life",
            self.worker, life,
        )

        def received(_conn: Any, _pid: int, _channel: str, payload: object) -> None:
            try:
                message = json.loads(str(payload))
            except ValueError:
                return
            if (isinstance(message, dict) and message.get("to") in (self.worker, "*")
                    and message.get("from") != self.worker and self._on_message is not None):
                self._on_message(message)

        await conn.add_listener(CHANNEL, received)

    async def hold(self, role: str) -> None:
        """Waits until this worker holds `role` (one worker at a time: Telegram's long polling).

        A session advisory lock on a connection of its own: held until the worker stops or dies,
        when the database ends the session and the next waiting worker gets the role at once."""
        conn = await asyncpg.connect(self._url)
        self._roles.append(conn)
        await conn.execute("SELECT pg_advisory_lock(hashtext($1))", f"tractor-role:{role}")

    async def try_hold(self, role: str) -> bool:
        """Takes `role` if no worker holds it (Discord's shards: a worker takes only its share, so it
        must not wait in line for every one). Held, like `hold`'s, until released or this worker's
        session ends; False also when the roles' connection broke (every role then counts as lost)."""
        async with self._shared_lock:
            try:
                if self._shared is None or self._shared.is_closed():
                    self._shared = await asyncpg.connect(self._url)
                return bool(await self._shared.fetchval("SELECT pg_try_advisory_lock(hashtext($1))",
                                                        f"tractor-role:{role}"))
            except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError):
                log.exception("worker %s: taking role %s failed", self.worker, role)
                await self._drop_shared()
                return False

    async def drop_roles(self) -> None:
        """Gives up every role taken with `hold` at once (a clean stop: the next worker waiting polls)."""
        for conn in self._roles:
            with contextlib.suppress(Exception):
                await conn.close()
        self._roles.clear()

    async def release(self, role: str) -> None:
        """Gives up a role taken with `try_hold`, for the next worker to take."""
        async with self._shared_lock:
            if self._shared is None or self._shared.is_closed():
                return
            try:
                await self._shared.execute("SELECT pg_advisory_unlock(hashtext($1))", f"tractor-role:{role}")
            except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError):
                await self._drop_shared()

    async def shared_alive(self) -> bool:
        """False once the connection holding the `try_hold` roles is gone (and with it the roles)."""
        async with self._shared_lock:
            if self._shared is None or self._shared.is_closed():
                return self._shared is None
            try:
                await self._shared.execute("SELECT 1")
                return True
            except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError):
                await self._drop_shared()
                return False

    async def _drop_shared(self) -> None:
        if self._shared is not None:
            with contextlib.suppress(Exception):
                self._shared.terminate()
        self._shared = None

    async def pace(self, role: str, seconds: float) -> None:
        """Waits until no worker acted on `role` in the last `seconds`, and counts the caller's act
        from now (Discord's identify limit, one a bucket in 5 s for the whole bot, whichever worker).
        The lock is kept `seconds` on a connection of its own, so a dead worker's pace ends with it."""
        conn = await asyncpg.connect(self._url)
        try:
            await conn.execute("SELECT pg_advisory_lock(hashtext($1))", f"tractor-pace:{role}")
        except BaseException:
            await conn.close()
            raise

        async def later() -> None:
            try:
                await asyncio.sleep(seconds)
            finally:
                with contextlib.suppress(Exception):
                    await conn.close()

        task = asyncio.create_task(later())
        self._paces.add(task)
        task.add_done_callback(self._paces.discard)

    async def close(self) -> None:
        async with self._shared_lock:
            if self._shared is not None:
                with contextlib.suppress(Exception):
                    await self._shared.close()
                self._shared = None
        for task in list(self._paces):
            task.cancel()
        for conn in self._roles:
            with contextlib.suppress(Exception):
                await conn.close()
        self._roles.clear()
        if self._listener is not None:
            await self._listener.close()
            self._listener = None
