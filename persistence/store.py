"""The store port (`Store`) and its SQLite adapter (`SqliteStore`).

A match is stored as its rules, seats, seed and the ordered log of accepted
actions; the host rebuilds its state by replaying that log. The host writes
every action here (one transaction) before it tells anybody about it.

Sequence numbers: the action at index i of `Match.actions` has seq i, i.e.
seq == the match version *before* the action is applied (0, 1, 2, ...).
`append_action` accepts only the next seq, so the log can never have a gap.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import sqlite3
import time
from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol

import aiosqlite

from persistence.errors import MatchClosed, SequenceConflict, StoreError, UnknownMatch
from persistence.migrate import migrate
from persistence.values import plain_json as _dumps
from persistence.values import require_dict as _require_dict

AppendResult = Literal["applied", "duplicate"]
Synchronous = Literal["OFF", "NORMAL", "FULL", "EXTRA"]

#: The status `replay` gives a match whose log cannot be replayed; such a match is set aside.
BROKEN = "broken"

log = logging.getLogger(__name__)


@dataclass
class StoredMatch:
    """Everything the host needs to resume one match.

    `error` is set instead of raising when a row of this match cannot be read
    (bad JSON, a gap in the log): `replay_all` then sets the match aside.
    """

    id: int
    platform: str
    chat_id: str
    rules: dict[str, Any]
    seats: list[dict[str, Any]]
    seed: int
    actions: list[dict[str, Any]]
    meta: dict[str, Any]
    status: str
    messages: dict[str, str] = field(default_factory=dict)
    deadlines: dict[str, float] = field(default_factory=dict)
    version: int = 0
    created_at: float = 0.0
    updated_at: float = 0.0
    finished_at: float | None = None
    result: dict[str, Any] | None = None
    error: str | None = None


class Store(Protocol):
    """What the host and the leagues may ask of storage; one adapter per backend."""

    async def close(self) -> None: ...

    async def upsert_player(
        self, platform: str, user_id: str, name: str, language: str | None = None
    ) -> int: ...

    async def get_player(self, platform: str, user_id: str) -> dict[str, Any] | None: ...

    async def get_chat(self, platform: str, chat_id: str) -> dict[str, Any]: ...

    async def set_chat(self, platform: str, chat_id: str, settings: dict[str, Any]) -> None: ...

    async def create_match(
        self,
        platform: str,
        chat_id: str,
        rules: dict[str, Any],
        seats: list[dict[str, Any]],
        seed: int,
        meta: dict[str, Any],
        *,
        status: str = "active",
    ) -> int: ...

    async def append_action(
        self, match_id: int, seq: int, action: dict[str, Any], key: str | None,
        *, deadlines: Mapping[str, float | None] | None = None,
    ) -> AppendResult: ...

    async def update_match(
        self,
        match_id: int,
        *,
        seats: list[dict[str, Any]] | None = None,
        meta: dict[str, Any] | None = None,
        status: str | None = None,
    ) -> None: ...

    async def load_unfinished(self, *, include_broken: bool = False) -> list[StoredMatch]: ...

    async def set_message(self, match_id: int, slot: str, message_id: str | None) -> None: ...

    async def set_deadline(self, match_id: int, kind: str, at: float | None) -> None: ...

    async def finish_match(self, match_id: int, status: str, result: dict[str, Any]) -> None: ...

    async def get_match(self, match_id: int) -> StoredMatch | None: ...

    async def seen_key(self, key: str) -> bool: ...

    async def remember_key(self, key: str) -> bool: ...

    async def mark_broken(self, match_id: int, reason: str) -> None: ...


class SqliteStore(Store):
    """`Store` on one SQLite file through aiosqlite (WAL, foreign keys, busy timeout).

    One connection; an asyncio lock makes each transaction one unit, so many
    table actors can share the store. Open with `await SqliteStore.open(path)`.
    """

    def __init__(self, conn: aiosqlite.Connection, path: str, clock: Callable[[], float],
                 synchronous: Synchronous = "FULL") -> None:
        self._conn = conn
        self.path = path
        self.synchronous = synchronous  # as opened: how dear a commit is (the host sizes its move slots by it)
        self._clock = clock
        self._lock = asyncio.Lock()
        # True from a BEGIN being sent until its COMMIT/ROLLBACK completed. A task
        # cancelled in between leaves it set, and the next user of the connection
        # rolls the stray transaction back first (see `_settle`).
        self._in_tx = False
        self._holder: asyncio.Task[Any] | None = None
        self._appends: list[_Append] = []  # waiting for the next group commit
        self._flusher: asyncio.Task[None] | None = None
        self.stats = AppendStats()

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
        while self._flusher is not None and not self._flusher.done():
            with contextlib.suppress(Exception):
                await asyncio.shield(self._flusher)
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

    async def _fetchone(self, conn: aiosqlite.Connection, sql: str, params: tuple[Any, ...]) -> Any:
        async with conn.execute(sql, params) as cur:
            return await cur.fetchone()

    # ------------------------------------------------------------ players, chats

    async def upsert_player(self, platform: str, user_id: str, name: str, language: str | None = None) -> int:
        """Record a player (or refresh their name); a None language keeps the stored one.

        :returns: the player's row id, stable across renames.
        """
        now = self._clock()
        async with self.transaction() as conn:
            row = await self._fetchone(
                conn,
                "INSERT INTO players (platform, user_id, name, language, created_at, updated_at)"
                " VALUES (?, ?, ?, ?, ?, ?)"
                " ON CONFLICT (platform, user_id) DO UPDATE SET name = excluded.name,"
                " language = coalesce(excluded.language, players.language), updated_at = excluded.updated_at"
                " RETURNING id",
                (platform, str(user_id), name, language, now, now),
            )
        return int(row[0])

    async def get_player(self, platform: str, user_id: str) -> dict[str, Any] | None:
        """The player's row as a dict (id, platform, user_id, name, language), or None."""
        rows = await self.fetchall(
            "SELECT id, platform, user_id, name, language FROM players WHERE platform = ? AND user_id = ?",
            (platform, str(user_id)),
        )
        if not rows:
            return None
        r = rows[0]
        return {"id": r[0], "platform": r[1], "user_id": r[2], "name": r[3], "language": r[4]}

    async def _chat_ref(self, conn: aiosqlite.Connection, platform: str, chat_id: str) -> int:
        now = self._clock()
        row = await self._fetchone(
            conn,
            "INSERT INTO chats (platform, chat_id, created_at, updated_at) VALUES (?, ?, ?, ?)"
            " ON CONFLICT (platform, chat_id) DO UPDATE SET chat_id = excluded.chat_id RETURNING id",
            (platform, str(chat_id), now, now),
        )
        return int(row[0])

    async def get_chat(self, platform: str, chat_id: str) -> dict[str, Any]:
        """The chat's settings ({} for a chat never seen)."""
        rows = await self.fetchall(
            "SELECT settings FROM chats WHERE platform = ? AND chat_id = ?", (platform, str(chat_id))
        )
        if not rows:
            return {}
        settings = json.loads(rows[0][0])
        return settings if isinstance(settings, dict) else {}

    async def set_chat(self, platform: str, chat_id: str, settings: dict[str, Any]) -> None:
        """Replace the chat's settings (preset, language, timeouts, ...)."""
        text = _dumps(_require_dict(settings, "chat settings"), "chat settings")
        now = self._clock()
        async with self.transaction() as conn:
            await conn.execute(
                "INSERT INTO chats (platform, chat_id, settings, created_at, updated_at) VALUES (?, ?, ?, ?, ?)"
                " ON CONFLICT (platform, chat_id) DO UPDATE SET settings = excluded.settings,"
                " updated_at = excluded.updated_at",
                (platform, str(chat_id), text, now, now),
            )

    # ------------------------------------------------------------------ matches

    async def create_match(
        self,
        platform: str,
        chat_id: str,
        rules: dict[str, Any],
        seats: list[dict[str, Any]],
        seed: int,
        meta: dict[str, Any],
        *,
        status: str = "active",
    ) -> int:
        """Start a match's record (version 0, empty log).

        :returns: the new match id.
        """
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
        async with self.transaction() as conn:
            chat = await self._chat_ref(conn, platform, chat_id)
            row = await self._fetchone(
                conn,
                "INSERT INTO matches (chat, rules, seats, seed, status, meta, version, created_at, updated_at)"
                " VALUES (?, ?, ?, ?, ?, ?, 0, ?, ?) RETURNING id",
                (chat, rules_text, seats_text, seed, status, meta_text, now, now),
            )
        return int(row[0])

    async def append_action(
        self, match_id: int, seq: int, action: dict[str, Any], key: str | None,
        *, deadlines: Mapping[str, float | None] | None = None,
    ) -> AppendResult:
        """Append one accepted action, durably, in one transaction.

        `deadlines`: the timers the action ends (None) and sets (a time), written in the same
        transaction when the action is applied, and not at all when it is refused.

        Group commit: appends that arrive while a commit is in progress (many tables' actions)
        are written together in the next transaction, so one commit (one fsync with
        synchronous=FULL) serves all of them. Each caller still returns only once its own
        action is committed, and each gets exactly the result it would have got alone: the
        batch is applied in arrival order, and an action that is refused changes nothing.

        :returns: "applied", or "duplicate" when `key` was seen before, or when
            `key` is None and this very action is already stored at `seq`
            (a retried system action); nothing changes then.
        :raises SequenceConflict: `seq` holds a different action, or is not the next seq.
        :raises UnknownMatch: no such match.
        :raises MatchClosed: the match is finished.
        :raises ValueError, TypeError: the action is not a plain JSON dict.
        """
        text = _dumps(_require_dict(action, "action"), "action")
        if isinstance(seq, bool) or not isinstance(seq, int) or seq < 0:
            raise ValueError(f"seq must be an int >= 0, not {seq!r}")
        key = None if key is None else str(key)
        timers = tuple((str(k), None if at is None else float(at)) for k, at in (deadlines or {}).items())
        done: asyncio.Future[AppendResult] = asyncio.get_running_loop().create_future()
        self._appends.append(_Append(match_id, seq, text, key, self._clock(), done, timers))
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
                async with self._exclusive():
                    await self._settle()
                    # one hop to the connection's thread for the whole batch (aiosqlite's own queue)
                    outcomes = await self._conn._execute(_append_batch, self._conn, batch)  # type: ignore[no-untyped-call]
            except BaseException as exc:  # the connection failed (or closed): nobody's append is known
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
        self,
        match_id: int,
        *,
        seats: list[dict[str, Any]] | None = None,
        meta: dict[str, Any] | None = None,
        status: str | None = None,
    ) -> None:
        """Replace a match's seats, meta and/or status (each left alone when None).

        :raises UnknownMatch: no such match.
        """
        sets: list[str] = []
        params: list[Any] = []
        if seats is not None:
            if not isinstance(seats, list):
                raise TypeError(f"seats must be a list, not {type(seats).__name__}")
            sets.append("seats = ?")
            params.append(_dumps(seats, "seats"))
        if meta is not None:
            sets.append("meta = ?")
            params.append(_dumps(_require_dict(meta, "meta"), "meta"))
        if status is not None:
            sets.append("status = ?")
            params.append(status)
        sets.append("updated_at = ?")
        params.append(self._clock())
        async with self.transaction() as conn:
            cur = await conn.execute(
                f"UPDATE matches SET {', '.join(sets)} WHERE id = ?", (*params, match_id)
            )
            if cur.rowcount == 0:
                raise UnknownMatch(match_id)

    async def finish_match(self, match_id: int, status: str, result: dict[str, Any]) -> None:
        """Close a match (no more appends) and keep its result for leagues and history.

        :raises UnknownMatch: no such match.
        """
        text = _dumps(_require_dict(result, "result"), "result")
        now = self._clock()
        async with self.transaction() as conn:
            cur = await conn.execute(
                "UPDATE matches SET status = ?, finished_at = coalesce(finished_at, ?), updated_at = ?"
                " WHERE id = ?",
                (status, now, now, match_id),
            )
            if cur.rowcount == 0:
                raise UnknownMatch(match_id)
            await conn.execute(
                "INSERT INTO results (match_id, status, result, finished_at) VALUES (?, ?, ?, ?)"
                " ON CONFLICT (match_id) DO UPDATE SET status = excluded.status, result = excluded.result",
                (match_id, status, text, now),
            )
            await conn.execute("DELETE FROM deadlines WHERE match_id = ?", (match_id,))

    async def set_message(self, match_id: int, slot: str, message_id: str | None) -> None:
        """Remember (or with None, forget) the platform message a match edits in `slot`."""
        async with self.transaction() as conn:
            if message_id is None:
                await conn.execute("DELETE FROM messages WHERE match_id = ? AND slot = ?", (match_id, slot))
                return
            await self._require_match(conn, match_id)
            await conn.execute(
                "INSERT INTO messages (match_id, slot, message_id) VALUES (?, ?, ?)"
                " ON CONFLICT (match_id, slot) DO UPDATE SET message_id = excluded.message_id",
                (match_id, slot, str(message_id)),
            )

    async def set_deadline(self, match_id: int, kind: str, at: float | None) -> None:
        """Arm (or with None, clear) a timer of the match; timers are data, re-armed after restarts."""
        async with self.transaction() as conn:
            if at is None:
                await conn.execute("DELETE FROM deadlines WHERE match_id = ? AND kind = ?", (match_id, kind))
                return
            await self._require_match(conn, match_id)
            await conn.execute(
                "INSERT INTO deadlines (match_id, kind, at) VALUES (?, ?, ?)"
                " ON CONFLICT (match_id, kind) DO UPDATE SET at = excluded.at",
                (match_id, kind, float(at)),
            )

    async def _require_match(self, conn: aiosqlite.Connection, match_id: int) -> None:
        if await self._fetchone(conn, "SELECT 1 FROM matches WHERE id = ?", (match_id,)) is None:
            raise UnknownMatch(match_id)

    # --------------------------------------------------------------- idempotency

    async def seen_key(self, key: str) -> bool:
        """Whether a platform event with this key was already handled (as an action or remembered)."""
        rows = await self.fetchall(
            "SELECT 1 FROM actions WHERE key = ? UNION ALL SELECT 1 FROM event_keys WHERE key = ?",
            (key, key),
        )
        return bool(rows)

    async def remember_key(self, key: str) -> bool:
        """Record the key of an event handled without an action (a join, a command).

        :returns: True when the key is new, False when it was seen before.
        """
        async with self.transaction() as conn:
            if await self._fetchone(conn, "SELECT 1 FROM actions WHERE key = ?", (key,)):
                return False
            cur = await conn.execute(
                "INSERT INTO event_keys (key, at) VALUES (?, ?) ON CONFLICT (key) DO NOTHING",
                (key, self._clock()),
            )
            return cur.rowcount == 1

    # ------------------------------------------------------------------ loading

    async def get_match(self, match_id: int) -> StoredMatch | None:
        """One match, finished or not, with its log; None when there is no such match."""
        found = await self._load("m.id = ?", (match_id,))
        return found[0] if found else None

    async def load_unfinished(self, *, include_broken: bool = False) -> list[StoredMatch]:
        """Every unfinished match with its log, messages and deadlines, oldest first.

        A match whose rows cannot be read (bad JSON, a gap or a truncated log:
        `StoredMatch.error`) is set aside here, marked broken and logged, so a
        caller that only replays `actions` can never resume a damaged log.
        With `include_broken`, matches set aside earlier and damaged ones are
        returned too (with `status`/`error` saying so) and nothing is marked.
        """
        if include_broken:
            return await self._load("m.finished_at IS NULL", ())
        loaded = await self._load("m.finished_at IS NULL AND m.status != ?", (BROKEN,))
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
        async with self.transaction() as conn:
            row = await self._fetchone(conn, "SELECT status, meta FROM matches WHERE id = ?", (match_id,))
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
                "UPDATE matches SET status = ?, meta = ?, updated_at = ? WHERE id = ?",
                (BROKEN, _dumps(meta, "meta"), self._clock(), match_id),
            )

    async def _load(self, where: str, params: tuple[Any, ...]) -> list[StoredMatch]:
        """Read matches and their logs in a few set-wise queries (fast enough for 1,000s at start-up).

        Each log comes back as one JSON array built by SQLite, with the list of
        its seqs beside it; a log whose seqs are not exactly 0..n-1 or whose
        array does not decode into n objects is read again row by row, to name
        the damaged row.
        """
        async with self._exclusive():
            # One read transaction: the matches, logs, messages and deadlines agree.
            await self._begin("BEGIN")
            try:
                heads = await self._rows(
                    "SELECT m.id, c.platform, c.chat_id, m.rules, m.seats, m.seed, m.meta, m.status,"
                    " m.version, m.created_at, m.updated_at, m.finished_at, r.result"
                    " FROM matches m JOIN chats c ON c.id = m.chat LEFT JOIN results r ON r.match_id = m.id"
                    f" WHERE {where} ORDER BY m.id",
                    params,
                )
                if not heads:
                    return []
                matches = {h[0]: _head(h) for h in heads}
                selected = f"SELECT m.id FROM matches m WHERE {where}"
                logs = await self._rows(
                    "SELECT match_id, count(*), group_concat(seq), '[' || group_concat(action, ',') || ']'"
                    f" FROM (SELECT match_id, seq, action FROM actions WHERE match_id IN ({selected})"
                    " ORDER BY match_id, seq) GROUP BY match_id",
                    params,
                )
                for match_id, count, seqs, blob in logs:
                    stored = matches[match_id]
                    actions = _decode_log(count, seqs, blob)
                    if actions is None:
                        rows = await self._rows(
                            "SELECT seq, action FROM actions WHERE match_id = ? ORDER BY seq", (match_id,)
                        )
                        _fill_log(stored, [(r[0], r[1]) for r in rows])
                    elif stored.error is None:
                        stored.actions = actions
                        _check_version(stored)
                for stored in matches.values():
                    if stored.version and not stored.actions and stored.error is None:
                        _check_version(stored)  # a log that lost every row
                messages = await self._rows(
                    f"SELECT match_id, slot, message_id FROM messages WHERE match_id IN ({selected})", params
                )
                deadlines = await self._rows(
                    f"SELECT match_id, kind, at FROM deadlines WHERE match_id IN ({selected})", params
                )
            finally:
                await self._end("COMMIT")
        for match_id, slot, message_id in messages:
            matches[match_id].messages[slot] = message_id
        for match_id, kind, at in deadlines:
            matches[match_id].deadlines[kind] = float(at)
        return list(matches.values())

    async def _rows(self, sql: str, params: tuple[Any, ...]) -> list[Any]:
        async with self._conn.execute(sql, params) as cur:
            return list(await cur.fetchall())

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


@dataclass
class AppendStats:
    """What the group commit did (tests, benchmarks)."""

    appends: int = 0
    batches: int = 0
    largest_batch: int = 0


class StoreClosing(Exception):
    """The store's writer was cancelled (the event loop is ending) before this append was
    confirmed: it may or may not be written; the next start finds out by replaying."""


@dataclass
class _Append:
    match_id: int
    seq: int
    text: str
    key: str | None
    at: float
    done: asyncio.Future[AppendResult]
    deadlines: tuple[tuple[str, float | None], ...] = ()


_INSERT_ACTION = (
    # One statement: the trigger raises the version in the same statement. It inserts only
    # the next seq of an open match whose key was never seen.
    "INSERT INTO actions (match_id, seq, action, key, at)"
    " SELECT id, ?, ?, ?, ? FROM matches"
    " WHERE id = ? AND version = ? AND finished_at IS NULL"
    " AND NOT EXISTS (SELECT 1 FROM event_keys WHERE key = ?)"
    " ON CONFLICT DO NOTHING"
)


def _append_one(conn: sqlite3.Connection, a: _Append) -> AppendResult | StoreError:
    """In the connection's thread: one append; a refusal is returned, not raised (it changed nothing)."""
    cur = conn.execute(_INSERT_ACTION, (a.seq, a.text, a.key, a.at, a.match_id, a.seq, a.key))
    if cur.rowcount == 1:
        for kind, at in a.deadlines:
            if at is None:
                conn.execute("DELETE FROM deadlines WHERE match_id = ? AND kind = ?", (a.match_id, kind))
            else:
                conn.execute(
                    "INSERT INTO deadlines (match_id, kind, at) VALUES (?, ?, ?)"
                    " ON CONFLICT (match_id, kind) DO UPDATE SET at = excluded.at",
                    (a.match_id, kind, at),
                )
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
        "SELECT 1 FROM actions WHERE key = ? UNION ALL SELECT 1 FROM event_keys WHERE key = ?", (key, key)
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


def _head(h: Any) -> StoredMatch:
    """A StoredMatch from its matches row; unreadable JSON becomes `error`, not an exception."""
    problems: list[str] = []

    def load(text: str, what: str, kind: type) -> Any:
        try:
            value = json.loads(text)
        except ValueError as exc:
            problems.append(f"{what} is not valid JSON ({exc})")
            return kind()
        if not isinstance(value, kind):
            problems.append(f"{what} should be a JSON {kind.__name__}, found {type(value).__name__}")
            return kind()
        return value

    stored = StoredMatch(
        id=h[0],
        platform=h[1],
        chat_id=h[2],
        rules=load(h[3], "rules", dict),
        seats=load(h[4], "seats", list),
        seed=int(h[5]),
        actions=[],
        meta=load(h[6], "meta", dict),
        status=h[7],
        version=int(h[8]),
        created_at=float(h[9]),
        updated_at=float(h[10]),
        finished_at=None if h[11] is None else float(h[11]),
        result=None if h[12] is None else load(h[12], "result", dict),
    )
    if problems:
        stored.error = f"match {stored.id}: " + "; ".join(problems)
    return stored


def _fill_log(stored: StoredMatch, rows: list[tuple[int, str]]) -> None:
    """Decode the log into `stored.actions`; the first bad row, gap or short log sets `stored.error`."""
    if stored.error:
        return
    for expected, (seq, text) in enumerate(rows):
        if seq != expected:
            stored.error = (
                f"match {stored.id}: action log has a gap: seq {expected} is missing (next is {seq})"
            )
            return
        try:
            action = json.loads(text)
        except ValueError as exc:
            stored.error = f"match {stored.id}: action seq {seq} is not valid JSON ({exc}): {text[:60]!r}"
            return
        if not isinstance(action, dict):
            stored.error = (
                f"match {stored.id}: action seq {seq} is a JSON {type(action).__name__}, not an object"
            )
            return
        stored.actions.append(action)
    _check_version(stored)


def _check_version(stored: StoredMatch) -> None:
    if len(stored.actions) != stored.version:
        stored.error = (
            f"match {stored.id}: action log is truncated: {len(stored.actions)} actions stored,"
            f" the match records version {stored.version}"
        )


_SEQS: dict[int, str] = {}


def _decode_log(count: int, seqs: str, blob: str) -> list[dict[str, Any]] | None:
    """The log from one aggregated row, or None when anything is off (then it is read row by row)."""
    expected = _SEQS.get(count)
    if expected is None:
        expected = _SEQS[count] = ",".join(map(str, range(count)))
    if seqs != expected:
        return None
    try:
        actions = json.loads(blob)
    except ValueError:
        return None
    if not isinstance(actions, list) or len(actions) != count:
        return None
    if not all(isinstance(a, dict) for a in actions):
        return None
    return actions
