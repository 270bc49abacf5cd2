"""Which store a command gets: PostgreSQL when a postgresql:// URL is given, else the SQLite file
(`persistence.paths.database_target`)."""

from __future__ import annotations

from pathlib import Path

from persistence.paths import database_target
from persistence.postgres import PostgresStore
from persistence.store import SqliteStore, Synchronous


async def open_store(
    path: str | Path | None = None, *, synchronous: Synchronous | None = None, worker: str | None = None
) -> SqliteStore | PostgresStore:
    """The store at `path` (a SQLite file or a postgresql:// URL), else $TRACTOR_DATABASE_URL,
    else $TRACTOR_DB, else data/tractor.sqlite3 (":memory:" keeps nothing).

    `synchronous` ("FULL", "NORMAL", "OFF") trades durability for speed; None keeps the store's default.
    `worker`: this process's name among several sharing a PostgreSQL database (leases); a SQLite
    file has one process, so it has no use for one.
    There is no fallback to another store: one that cannot be opened is an error the person sees.
    """
    target = Path(":memory:") if str(path) == ":memory:" else database_target(path)
    if isinstance(target, str):
        if synchronous is not None:
            return await PostgresStore.open(target, synchronous=synchronous, worker=worker)
        return await PostgresStore.open(target, worker=worker)
    if synchronous is not None:
        return await SqliteStore.open(target, synchronous=synchronous)
    return await SqliteStore.open(target)
