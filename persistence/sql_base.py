"""What the league, board and tournament stores share: the store they run over and their row chores.

Each of them keeps its own tables' SQL (`league_store`, `board_store`, `tournament_store`) but
they reach the database the same way, through the host store's `transaction()` and
`fetchall()`, and they stamp, insert and save rows alike. That much lives here once, so
a fix to how a store is recognised or a state row is saved reaches all of them.
Persistence imports nothing from bot/, so rows stay plain data.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from contextlib import AbstractAsyncContextManager
from datetime import UTC, datetime
from typing import Any, ClassVar, Protocol, Self


class Database(Protocol):
    """What these stores need from the host's store: write transactions and reads.

    The connection is aiosqlite's, or `PostgresStore`'s look-alike of it
    (execute, executemany, cursors with rowcount and fetchone).
    """

    def transaction(self) -> AbstractAsyncContextManager[Any]: ...

    async def fetchall(self, sql: str, params: Iterable[Any] = ()) -> list[Any]: ...


def now_text() -> str:
    """The time a row is written, as ISO text in UTC: the one form both dialects store and sort alike."""
    return datetime.now(UTC).isoformat()


class StoreOver:
    """A store of some tables over the host's store; subclasses name what uses them in `USERS`."""

    USERS: ClassVar[str] = "these tables"  # the words in the TypeError: "is not a store {USERS} can use"

    def __init__(self, db: Database) -> None:
        self.db = db

    @classmethod
    def of(cls, store: object) -> Self:
        """The store over the host's store (or such a store as it is).

        :raises TypeError: when `store` offers neither `transaction()` nor `fetchall()`.
        """
        if isinstance(store, cls):
            return store
        if callable(getattr(store, "transaction", None)) and callable(getattr(store, "fetchall", None)):
            return cls(store)  # type: ignore[arg-type]
        raise TypeError(f"{type(store).__name__} is not a store {cls.USERS} can use")

    async def insert_id(self, sql: str, params: tuple[Any, ...]) -> int:
        """Run an ``INSERT ... RETURNING id`` in a transaction of its own; the new row's id."""
        async with self.db.transaction() as conn, conn.execute(sql, params) as cur:
            row = await cur.fetchone()
        assert row is not None
        return int(row[0])

    async def save_state(self, table: str, row_id: int, status: str, state: dict[str, Any]) -> None:
        """Write a row's status and JSON state (kept readable: no ASCII escapes) and stamp it updated."""
        async with self.db.transaction() as conn:
            await conn.execute(f"UPDATE {table} SET status = ?, state = ?, updated_at = ? WHERE id = ?",
                               (status, json.dumps(state, ensure_ascii=False), now_text(), row_id))
