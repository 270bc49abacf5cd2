"""Where the database lives: `--db`, else env TRACTOR_DB, else ./data/tractor.sqlite3."""

from __future__ import annotations

import os
from pathlib import Path

DEFAULT_DB = Path("data") / "tractor.sqlite3"


def default_db_path(explicit: str | os.PathLike[str] | None = None) -> Path:
    """The database path to use: an explicit one wins, then $TRACTOR_DB, then ./data/tractor.sqlite3."""
    if explicit:
        return Path(explicit)
    env = os.environ.get("TRACTOR_DB")
    if env:
        return Path(env)
    return DEFAULT_DB
