"""`SqlStore`: what the SQLite and PostgreSQL stores share, written once.

The two stores are one schema in two dialects (the migrations say so), so every
call but the append's inner loop, opening, backup and the integrity check is the
same logic. It is written here once, over statements with SQLite's `?`
placeholders; an adapter supplies its connections (`Sql`: run, one, all), the few
statements that differ (`_LOG_ROWS`, `_LOCK_ROW`) and how a batch of appends
reaches its database (`_write_batch`). The contract suite runs on both adapters.

Group commit: appends that arrive while a commit is in flight (many tables'
actions) are written together in the next transaction, so one WAL flush serves
all of them; each caller still gets exactly the result it would have got alone.

Past ~400 lines because it is the whole shared store (players, chats, matches, the
group commit, loading with its checks of damaged logs) in one place.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Callable, Collection, Mapping
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

from persistence.errors import ChatHasTable, UnknownMatch
from persistence.port import BROKEN, AppendResult, Store, StoredMatch, Synchronous
from persistence.values import plain_json as _dumps
from persistence.values import require_dict as _require_dict

log = logging.getLogger(__name__)


class Sql(Protocol):
    """One connection as the shared code uses it: statements with `?` placeholders, rows indexable."""

    async def run(self, sql: str, params: tuple[Any, ...] = ()) -> int:
        """Run one statement; the number of rows it changed."""
        ...

    async def one(self, sql: str, params: tuple[Any, ...] = ()) -> Any:
        """The first row, or None."""
        ...

    async def all(self, sql: str, params: tuple[Any, ...] = ()) -> list[Any]: ...


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


class SqlStore(Store):
    """The `Store` calls over an adapter's connections; see the module docstring."""

    #: Each selected match's log as one row: (match_id, count, its seqs joined by ",", a JSON
    #: array of its actions in seq order); `{selected}` is a query giving the match ids.
    _LOG_ROWS: ClassVar[str]
    #: What locks a row read inside a write transaction until it commits ("" where the
    #: transaction itself holds the whole database).
    _LOCK_ROW: ClassVar[str] = ""

    def __init__(self, clock: Callable[[], float], synchronous: Synchronous) -> None:
        self._clock = clock
        self.synchronous = synchronous  # as opened: how dear a commit is (the host sizes its move slots by it)
        self._appends: list[_Append] = []  # waiting for the next group commit
        self._flusher: asyncio.Task[None] | None = None
        self.stats = AppendStats()

    # --------------------------------------------------------- the adapter's part

    def _write(self) -> AbstractAsyncContextManager[Sql]:
        """One write transaction, committed when the block ends, rolled back on error."""
        raise NotImplementedError

    def _snapshot(self) -> AbstractAsyncContextManager[Sql]:
        """One read transaction: everything read in it agrees."""
        raise NotImplementedError

    async def _read(self, sql: str, params: tuple[Any, ...] = ()) -> list[Any]:
        """One read query outside any write transaction."""
        raise NotImplementedError

    async def _write_batch(self, batch: list[_Append]) -> list[AppendResult | BaseException]:
        """The batch in one transaction, in order; each item's outcome (a refusal is an outcome)."""
        raise NotImplementedError

    async def _drain_appends(self) -> None:
        """Wait for the appends already accepted (before closing)."""
        while self._flusher is not None and not self._flusher.done():
            with contextlib.suppress(Exception):
                await asyncio.shield(self._flusher)

    # ------------------------------------------------------------ players, chats

    async def upsert_player(self, platform: str, user_id: str, name: str, language: str | None = None) -> int:
        """Record a player (or refresh their name); a None language keeps the stored one.

        :returns: the player's row id, stable across renames.
        """
        now = self._clock()
        async with self._write() as sql:
            row = await sql.one(
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
        rows = await self._read(
            "SELECT id, platform, user_id, name, language FROM players WHERE platform = ? AND user_id = ?",
            (platform, str(user_id)),
        )
        if not rows:
            return None
        r = rows[0]
        return {"id": r[0], "platform": r[1], "user_id": r[2], "name": r[3], "language": r[4]}

    async def get_chat(self, platform: str, chat_id: str) -> dict[str, Any]:
        """The chat's settings ({} for a chat never seen)."""
        rows = await self._read(
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
        async with self._write() as sql:
            await sql.run(
                "INSERT INTO chats (platform, chat_id, settings, created_at, updated_at) VALUES (?, ?, ?, ?, ?)"
                " ON CONFLICT (platform, chat_id) DO UPDATE SET settings = excluded.settings,"
                " updated_at = excluded.updated_at",
                (platform, str(chat_id), text, now, now),
            )

    async def update_chat(self, platform: str, chat_id: str,
                          change: Callable[[dict[str, Any]], dict[str, Any]]) -> dict[str, Any]:
        """Replace the chat's settings by `change(settings)`, read and written in one transaction
        holding the row, so that two workers changing different parts of one row at once both
        land (a `get_chat` then `set_chat` would let the later write undo the earlier one).

        :returns: the settings as written.
        """
        now = self._clock()
        async with self._write() as sql:
            # the upsert takes the row's lock on PostgreSQL (SQLite's write transaction holds the file)
            row = await _hold_chat(sql, platform, chat_id, now, "settings")
            old = json.loads(row[0])
            settings = _require_dict(change(old if isinstance(old, dict) else {}), "chat settings")
            await sql.run(
                "UPDATE chats SET settings = ?, updated_at = ? WHERE platform = ? AND chat_id = ?",
                (_dumps(settings, "chat settings"), now, platform, str(chat_id)),
            )
        return settings

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
        exclusive: bool = False,
    ) -> int:
        """Start a match's record (version 0, empty log).

        `exclusive`: only if the chat has no open (unfinished, sound) match, else `ChatHasTable`.
        The check runs in the transaction that holds the chat's row (its upsert locks it on
        PostgreSQL), so of two workers opening a table in one chat at once, one opens it.

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
        async with self._write() as sql:
            chat = await _hold_chat(sql, platform, chat_id, now, "id")
            if exclusive:
                found = await sql.one(
                    "SELECT id FROM matches WHERE chat = ? AND finished_at IS NULL AND status != ?"
                    " ORDER BY id LIMIT 1",
                    (int(chat[0]), BROKEN),
                )
                if found is not None:
                    raise ChatHasTable(platform, str(chat_id), int(found[0]))
            row = await sql.one(
                "INSERT INTO matches (chat, rules, seats, seed, status, meta, version, created_at, updated_at)"
                " VALUES (?, ?, ?, ?, ?, ?, 0, ?, ?) RETURNING id",
                (int(chat[0]), rules_text, seats_text, seed, status, meta_text, now, now),
            )
            await self._created(sql, int(row[0]))
        return int(row[0])

    async def _created(self, sql: Sql, match_id: int) -> None:
        """In the transaction that created a match: what the adapter adds (its creator's lease)."""

    async def append_action(
        self, match_id: int, seq: int, action: dict[str, Any], key: str | None,
        *, deadlines: Mapping[str, float | None] | None = None,
    ) -> AppendResult:
        """Append one accepted action, durably, in one transaction (shared with others: group commit).

        `deadlines`: the timers the action ends (None) and sets (a time), written in the same
        transaction when the action is applied, and not at all when it is refused.

        :returns: "applied", or "duplicate" when `key` was seen before, or when
            `key` is None and this very action is already stored at `seq`
            (a retried system action); nothing changes then.
        :raises SequenceConflict: `seq` holds a different action, or is not the next seq.
        :raises UnknownMatch: no such match.
        :raises MatchClosed: the match is finished.
        :raises LeaseLost: (PostgreSQL with a worker name) another worker drives this table now.
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
                outcomes = await self._write_batch(batch)
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
        async with self._write() as sql:
            if await sql.run(f"UPDATE matches SET {', '.join(sets)} WHERE id = ?", (*params, match_id)) == 0:
                raise UnknownMatch(match_id)

    async def finish_match(self, match_id: int, status: str, result: dict[str, Any]) -> None:
        """Close a match (no more appends) and keep its result for leagues and history.

        :raises UnknownMatch: no such match.
        """
        text = _dumps(_require_dict(result, "result"), "result")
        now = self._clock()
        async with self._write() as sql:
            changed = await sql.run(
                "UPDATE matches SET status = ?, finished_at = coalesce(finished_at, ?), updated_at = ?"
                " WHERE id = ?",
                (status, now, now, match_id),
            )
            if changed == 0:
                raise UnknownMatch(match_id)
            await sql.run(
                "INSERT INTO results (match_id, status, result, finished_at) VALUES (?, ?, ?, ?)"
                " ON CONFLICT (match_id) DO UPDATE SET status = excluded.status, result = excluded.result",
                (match_id, status, text, now),
            )
            await sql.run("DELETE FROM deadlines WHERE match_id = ?", (match_id,))

    async def set_message(self, match_id: int, slot: str, message_id: str | None) -> None:
        """Remember (or with None, forget) the platform message a match edits in `slot`."""
        async with self._write() as sql:
            if message_id is None:
                await sql.run("DELETE FROM messages WHERE match_id = ? AND slot = ?", (match_id, slot))
                return
            await _require_match(sql, match_id)
            await sql.run(
                "INSERT INTO messages (match_id, slot, message_id) VALUES (?, ?, ?)"
                " ON CONFLICT (match_id, slot) DO UPDATE SET message_id = excluded.message_id",
                (match_id, slot, str(message_id)),
            )

    async def set_picks(self, match_id: int, seat: int, state: dict[str, Any] | None) -> None:
        """Keep (or with None, forget) one seat's drawn hand and picks: one row, the match's own untouched."""
        async with self._write() as sql:
            if state is None:
                await sql.run("DELETE FROM seat_picks WHERE match_id = ? AND seat = ?", (match_id, seat))
                return
            await _require_match(sql, match_id)
            await sql.run(
                "INSERT INTO seat_picks (match_id, seat, state) VALUES (?, ?, ?)"
                " ON CONFLICT (match_id, seat) DO UPDATE SET state = excluded.state",
                (match_id, seat, _dumps(state, "seat picks")),
            )

    async def set_deadline(self, match_id: int, kind: str, at: float | None) -> None:
        """Arm (or with None, clear) a timer of the match; timers are data, re-armed after restarts."""
        async with self._write() as sql:
            if at is None:
                await sql.run(CLEAR_DEADLINE, (match_id, kind))
                return
            await _require_match(sql, match_id)
            await sql.run(SET_DEADLINE, (match_id, kind, float(at)))

    # --------------------------------------------------------------- idempotency

    async def seen_key(self, key: str) -> bool:
        """Whether a platform event with this key was already handled: appended as an action."""
        return bool(await self._read("SELECT 1 FROM actions WHERE key = ?", (key,)))

    # ------------------------------------------------------------------ loading

    async def get_match(self, match_id: int) -> StoredMatch | None:
        """One match, finished or not, with its log; None when there is no such match."""
        found = await self._load("m.id = ?", (match_id,))
        return found[0] if found else None

    async def match_tail(self, match_id: int, from_seq: int) -> StoredMatch | None:
        """One match's row, deadlines and only the actions from `from_seq` on: what a worker that
        follows a table another worker drives needs to catch up (`bot.live_follow`), without reading
        the whole log at every change. None when there is no such match."""
        async with self._snapshot() as sql:
            heads = await sql.all(
                "SELECT m.id, c.platform, c.chat_id, m.rules, m.seats, m.seed, m.meta, m.status,"
                " m.version, m.created_at, m.updated_at, m.finished_at, r.result"
                " FROM matches m JOIN chats c ON c.id = m.chat LEFT JOIN results r ON r.match_id = m.id"
                " WHERE m.id = ?",
                (match_id,),
            )
            if not heads:
                return None
            stored = _head(heads[0])
            rows = await sql.all("SELECT seq, action FROM actions WHERE match_id = ? AND seq >= ? ORDER BY seq",
                                 (match_id, int(from_seq)))
            deadlines = await sql.all("SELECT kind, at FROM deadlines WHERE match_id = ?", (match_id,))
        for seq, text in rows:
            if int(seq) != from_seq + len(stored.actions):
                stored.error = f"match {match_id}: a gap in the log at seq {seq}"
                break
            try:
                action = json.loads(text)
            except ValueError:
                stored.error = f"match {match_id}: action seq {seq} is not valid JSON"
                break
            stored.actions.append(action)
        for kind, at in deadlines:
            stored.deadlines[kind] = float(at)
        return stored

    async def load_unfinished(
        self, *, include_broken: bool = False, ids: Collection[int] | None = None
    ) -> list[StoredMatch]:
        """Every unfinished match with its log, messages and deadlines, oldest first.

        A match whose rows cannot be read (bad JSON, a gap or a truncated log:
        `StoredMatch.error`) is set aside here, marked broken and logged, so a
        caller that only replays `actions` can never resume a damaged log.
        With `include_broken`, matches set aside earlier and damaged ones are
        returned too (with `status`/`error` saying so) and nothing is marked.
        `ids`: only these matches (a worker taking over some tables).
        """
        where, params = "m.finished_at IS NULL", tuple[int, ...]()
        if ids is not None:
            chosen = sorted({int(i) for i in ids}) or [-1]
            where += f" AND m.id IN ({', '.join('?' * len(chosen))})"
            params = tuple(chosen)
        if include_broken:
            return await self._load(where, params)
        loaded = await self._load(where + " AND m.status != ?", (*params, BROKEN))
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
        rows = await self._read(
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
        async with self._write() as sql:
            row = await sql.one("SELECT status, meta FROM matches WHERE id = ?" + self._LOCK_ROW, (match_id,))
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
            await sql.run(
                "UPDATE matches SET status = ?, meta = ?, updated_at = ? WHERE id = ?",
                (BROKEN, _dumps(meta, "meta"), self._clock(), match_id),
            )

    async def _load(self, where: str, params: tuple[Any, ...]) -> list[StoredMatch]:
        """Read matches and their logs in a few set-wise queries (fast enough for 1,000s at start-up).

        Each log comes back as one JSON array built by the database, with the list of
        its seqs beside it; a log whose seqs are not exactly 0..n-1 or whose
        array does not decode into n objects is read again row by row, to name
        the damaged row.
        """
        async with self._snapshot() as sql:  # the matches, logs, messages and deadlines agree
            heads = await sql.all(
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
            for match_id, count, seqs, blob in await sql.all(self._LOG_ROWS.format(selected=selected), params):
                stored = matches[match_id]
                actions = _decode_log(int(count), seqs, blob)
                if actions is None:
                    rows = await sql.all("SELECT seq, action FROM actions WHERE match_id = ? ORDER BY seq", (match_id,))
                    _fill_log(stored, [(r[0], r[1]) for r in rows])
                elif stored.error is None:
                    stored.actions = actions
                    _check_version(stored)
            for stored in matches.values():
                if stored.version and not stored.actions and stored.error is None:
                    _check_version(stored)  # a log that lost every row
            messages = await sql.all(
                f"SELECT match_id, slot, message_id FROM messages WHERE match_id IN ({selected})", params
            )
            deadlines = await sql.all(f"SELECT match_id, kind, at FROM deadlines WHERE match_id IN ({selected})", params)
            picks = await sql.all(f"SELECT match_id, seat, state FROM seat_picks WHERE match_id IN ({selected})",
                                  params)
        for match_id, slot, message_id in messages:
            matches[match_id].messages[slot] = message_id
        for match_id, seat, text in picks:
            with contextlib.suppress(ValueError):  # an unreadable row only costs that seat's picks
                state = json.loads(text)
                if isinstance(state, dict):
                    matches[match_id].picks[int(seat)] = state
        for match_id, kind, at in deadlines:
            matches[match_id].deadlines[kind] = float(at)
        return list(matches.values())


CLEAR_DEADLINE = "DELETE FROM deadlines WHERE match_id = ? AND kind = ?"
SET_DEADLINE = (
    "INSERT INTO deadlines (match_id, kind, at) VALUES (?, ?, ?)"
    " ON CONFLICT (match_id, kind) DO UPDATE SET at = excluded.at"
)


async def _hold_chat(sql: Sql, platform: str, chat_id: str, now: float, column: str) -> Any:
    """The chat's row (made if new), with `column`; the upsert takes the row's lock on PostgreSQL
    for the rest of the transaction (SQLite's write transaction holds the whole file), which is what
    makes a read-then-write of one chat safe against another worker."""
    return await sql.one(
        "INSERT INTO chats (platform, chat_id, created_at, updated_at) VALUES (?, ?, ?, ?)"
        f" ON CONFLICT (platform, chat_id) DO UPDATE SET chat_id = excluded.chat_id RETURNING {column}",
        (platform, str(chat_id), now, now),
    )


async def _require_match(sql: Sql, match_id: int) -> None:
    if await sql.one("SELECT 1 FROM matches WHERE id = ?", (match_id,)) is None:
        raise UnknownMatch(match_id)


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
