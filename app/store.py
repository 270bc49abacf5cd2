"""Which store a command gets: PostgreSQL when a postgresql:// URL is given, else the SQLite file
(`persistence.paths.database_target`)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import asyncpg

from persistence.migrate import MigrationError
from persistence.paths import database_target
from persistence.postgres import PostgresStore, redact
from persistence.store import SqliteStore, Synchronous


class StoreUnavailable(Exception):
    """The database could not be opened. `str()` is one line for the operator: which database
    (never its password) and why."""


async def open_store(
    path: str | Path | None = None, *, synchronous: Synchronous | None = None, worker: str | None = None
) -> SqliteStore | PostgresStore:
    """The store at `path` (a SQLite file or a postgresql:// URL), else $TRACTOR_DATABASE_URL,
    else $TRACTOR_DB, else data/tractor.sqlite3 (":memory:" keeps nothing).

    `synchronous` ("FULL", "NORMAL", "OFF") trades durability for speed; None keeps the store's default.
    `worker`: this process's name among several sharing a PostgreSQL database (leases); a SQLite
    file has one process, so it has no use for one.
    There is no fallback to another store: one that cannot be opened is an error the person sees.

    :raises StoreUnavailable: the database cannot be reached, refuses us, or is newer than this code.
    """
    try:
        target = Path(":memory:") if str(path) == ":memory:" else database_target(path)
    except ValueError as exc:
        raise StoreUnavailable(str(exc)) from None
    try:
        if isinstance(target, str):
            if synchronous is not None:
                return await PostgresStore.open(target, synchronous=synchronous, worker=worker)
            return await PostgresStore.open(target, worker=worker)
        if synchronous is not None:
            return await SqliteStore.open(target, synchronous=synchronous)
        return await SqliteStore.open(target)
    except (OSError, TimeoutError, asyncpg.PostgresError, asyncpg.InterfaceError, sqlite3.Error,
            MigrationError) as exc:
        where = redact(target) if isinstance(target, str) else str(target)
        raise StoreUnavailable(f"cannot open the database {where}: {type(exc).__name__}: {exc}") from None
