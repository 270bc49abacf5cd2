"""Opening the store: SQLite through persistence/ when it is installed, else in memory."""

from __future__ import annotations

import importlib
import logging
import os
from pathlib import Path
from typing import Any

from bot.memstore import MemoryStore

log = logging.getLogger(__name__)
DEFAULT_DB = "data/tractor.sqlite3"


def db_path(path: str | None = None) -> str:
    """The database file: the argument, else $TRACTOR_DB, else data/tractor.sqlite3."""
    return path or os.environ.get("TRACTOR_DB") or DEFAULT_DB


async def open_store(path: str | None = None, *, synchronous: str | None = None) -> Any:
    """`persistence.store.SqliteStore.open(path)`; a MemoryStore (nothing kept) if persistence is missing.

    `synchronous` ("FULL", "NORMAL", "OFF") trades durability for speed; None keeps the store's default.
    """
    target = db_path(path)
    try:
        mod = importlib.import_module("persistence.store")
        sqlite_store = mod.SqliteStore
    except (ImportError, AttributeError):
        log.warning("persistence.store is not available: matches are kept in memory only")
        return MemoryStore()
    if target != ":memory:":
        Path(target).parent.mkdir(parents=True, exist_ok=True)
    if synchronous is not None:
        return await sqlite_store.open(target, synchronous=synchronous)
    return await sqlite_store.open(target)
