"""Which store a command gets: SQLite at the one database path (`persistence.paths`)."""

from __future__ import annotations

from pathlib import Path

from persistence.paths import default_db_path
from persistence.store import SqliteStore, Synchronous


async def open_store(path: str | Path | None = None, *, synchronous: Synchronous | None = None) -> SqliteStore:
    """The SQLite store at `path`, else $TRACTOR_DB, else data/tractor.sqlite3 (":memory:" keeps nothing).

    `synchronous` ("FULL", "NORMAL", "OFF") trades durability for speed; None keeps the store's default.
    There is no fallback to another store: one that cannot be opened is an error the person sees.
    """
    target = Path(":memory:") if str(path) == ":memory:" else default_db_path(path)
    if synchronous is not None:
        return await SqliteStore.open(target, synchronous=synchronous)
    return await SqliteStore.open(target)
