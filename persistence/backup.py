"""Online backup through SQLite's backup API: a consistent copy while the bot keeps writing.

The copy goes to a temporary file beside the target and is renamed into place
only when complete and checked, so a half-made backup never looks like one.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import aiosqlite


async def backup_connection(source: aiosqlite.Connection, target: Path) -> None:
    """Copy `source` into `target` (replacing it) atomically.

    :raises ValueError: target is the live database file itself.
    :raises RuntimeError: the copy failed its integrity check.
    """
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    async with source.execute("PRAGMA database_list") as cur:
        rows = await cur.fetchall()
    live = {Path(r[2]).resolve() for r in rows if r[2]}
    if target.resolve() in live:
        raise ValueError(f"backup target {target} is the live database itself; choose another path")
    partial = target.with_name(target.name + ".partial")
    partial.unlink(missing_ok=True)
    dest = sqlite3.connect(partial, check_same_thread=False)
    try:
        # pages=-1 copies everything in one step under one read snapshot; in WAL mode
        # that snapshot does not block the bot's writers.
        await source.backup(dest, pages=-1)
        dest.execute("PRAGMA journal_mode = DELETE")
        (verdict,) = dest.execute("PRAGMA integrity_check").fetchone()
        if verdict != "ok":
            raise RuntimeError(f"backup copy failed its integrity check: {verdict}")
        dest.commit()
    finally:
        dest.close()
    os.replace(partial, target)
