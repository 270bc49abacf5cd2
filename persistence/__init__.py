"""Durable storage: players, chats, and every match as an event log in SQLite.

The only package that speaks SQL. The host talks to it through the `Store`
protocol; `SqliteStore` is the adapter on one SQLite file.
"""

from persistence.errors import ChatHasTable, MatchClosed, SequenceConflict, StoreError, UnknownMatch
from persistence.paths import default_db_path
from persistence.store import BROKEN, AppendResult, SqliteStore, Store, StoredMatch

__all__ = [
    "BROKEN",
    "AppendResult",
    "ChatHasTable",
    "MatchClosed",
    "SequenceConflict",
    "SqliteStore",
    "Store",
    "StoreError",
    "StoredMatch",
    "UnknownMatch",
    "default_db_path",
]
