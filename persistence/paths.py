"""Where the database lives: `--db`, else $TRACTOR_DATABASE_URL, else $TRACTOR_DB, else ./data/tractor.sqlite3.

`--db` takes a SQLite file or a postgresql:// URL; $TRACTOR_DATABASE_URL names
a PostgreSQL database (it wins over $TRACTOR_DB when both are set).
"""

from __future__ import annotations

import os
from pathlib import Path

DEFAULT_DB = Path("data") / "tractor.sqlite3"


def is_postgres_url(target: object) -> bool:
    """Whether `target` names a PostgreSQL database (postgresql://... or postgres://...)."""
    return isinstance(target, str) and target.split("://", 1)[0] in ("postgresql", "postgres")


def default_db_path(explicit: str | os.PathLike[str] | None = None) -> Path:
    """The database path to use: an explicit one wins, then $TRACTOR_DB, then ./data/tractor.sqlite3."""
    if explicit:
        return Path(explicit)
    env = os.environ.get("TRACTOR_DB")
    if env:
        return Path(env)
    return DEFAULT_DB


def database_target(explicit: str | os.PathLike[str] | None = None) -> str | Path:
    """The database to use: a postgresql:// URL (str), or a SQLite file (Path).

    :raises ValueError: $TRACTOR_DATABASE_URL is set to something that is not a PostgreSQL URL.
    """
    if explicit and is_postgres_url(str(explicit)):
        return str(explicit)
    if not explicit:
        url = os.environ.get("TRACTOR_DATABASE_URL", "").strip()
        if url:
            if not is_postgres_url(url):
                raise ValueError(
                    f"TRACTOR_DATABASE_URL must be a postgresql://user:password@host/database URL, not {url[:40]!r}"
                    " (for SQLite set TRACTOR_DB to a file instead)"
                )
            return url
    return default_db_path(explicit)
