"""`tractor-host db ...`: the database tools of `persistence.cli`, handed the engine to replay with.

Persistence knows no rules; checking a stored match means replaying it, so
the root passes the engine's replay in as the `rebuild` function.
"""

from __future__ import annotations

from typing import Any

import engine
from persistence.cli import db_main


def engine_rebuild(rules: dict[str, Any], seed: int, actions: list[dict[str, Any]]) -> object:
    """A stored match replayed through the real engine."""
    return engine.Match.replay(engine.Rules.from_dict(rules), seed, actions)


async def db_command(argv: list[str]) -> int:
    """Runs one `db` command; returns the exit code (0 ok, 1 problems found, 2 usage)."""
    return await db_main(argv, rebuild=engine_rebuild)
