"""Which store a command gets: PostgreSQL when a postgresql:// URL is given, else the SQLite file
(`persistence.paths.database_target`)."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING

from persistence.migrate import MigrationError
from persistence.paths import database_target
from persistence.store import SqliteStore, Synchronous

if TYPE_CHECKING:
    from persistence.postgres import PostgresStore


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
    if isinstance(target, str):
        return await _open_postgres(target, synchronous, worker)
    try:
        if synchronous is not None:
            return await SqliteStore.open(target, synchronous=synchronous)
        return await SqliteStore.open(target)
    except (OSError, TimeoutError, sqlite3.Error, MigrationError) as exc:
        raise StoreUnavailable(f"cannot open the database {target}: {type(exc).__name__}: {exc}") from None


async def _open_postgres(url: str, synchronous: Synchronous | None, worker: str | None) -> PostgresStore:
    """asyncpg is loaded here, when a URL asks for it: the terminal table and the SQLite tools start without it."""
    import asyncpg

    from persistence.postgres import PostgresStore, redact

    try:
        if synchronous is not None:
            return await PostgresStore.open(url, synchronous=synchronous, worker=worker)
        return await PostgresStore.open(url, worker=worker)
    except (OSError, TimeoutError, asyncpg.PostgresError, asyncpg.InterfaceError, MigrationError) as exc:
        raise StoreUnavailable(f"cannot open the database {redact(url)}: {type(exc).__name__}: {exc}") from None
