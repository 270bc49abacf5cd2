"""Schema migrations for PostgreSQL: the numbered files of `persistence.migrations_postgres`.

PostgreSQL has no `user_version`; the applied numbers are rows of
`schema_migrations`. Each file runs in one transaction under an advisory lock,
so several workers starting at once against a new database apply each file once.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import asyncpg
from asyncpg.pool import PoolConnectionProxy

from persistence.migrate import MigrationError, load_migrations

PACKAGE = "persistence.migrations_postgres"

#: The advisory lock key migrations hold (any fixed number; "tractor" in ASCII).
_LOCK = 0x7472616374


async def schema_version(conn: asyncpg.Connection[Any] | PoolConnectionProxy[Any]) -> int:
    """The highest migration number applied (0 for an empty database)."""
    exists = await conn.fetchval("SELECT to_regclass('schema_migrations') IS NOT NULL")
    if not exists:
        return 0
    return int(await conn.fetchval("SELECT coalesce(max(version), 0) FROM schema_migrations"))


async def migrate(conn: asyncpg.Connection[Any] | PoolConnectionProxy[Any], *, directory: Path | None = None, upto: int | None = None) -> list[int]:
    """Apply every migration newer than the database's (up to `upto`), each in its own transaction.

    :returns: the numbers applied.
    :raises MigrationError: the database is newer than this code, or a migration failed.
    """
    migrations = load_migrations(directory, package=PACKAGE)
    latest = migrations[-1].number if migrations else 0
    applied: list[int] = []
    async with conn.transaction():
        await conn.execute("SELECT pg_advisory_xact_lock($1)", _LOCK)
        await conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations"
            " (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())"
        )
    current = await schema_version(conn)
    if current > latest:
        raise MigrationError(
            f"database schema version {current} is newer than this code knows ({latest}); "
            "upgrade tractor-host before opening this database"
        )
    for migration in migrations:
        if migration.number <= current or (upto is not None and migration.number > upto):
            continue
        try:
            async with conn.transaction():
                await conn.execute("SELECT pg_advisory_xact_lock($1)", _LOCK)
                if await schema_version(conn) >= migration.number:
                    continue  # another worker applied it meanwhile
                await conn.execute(migration.sql)  # a whole script: the simple query protocol
                await conn.execute(
                    "INSERT INTO schema_migrations (version, name) VALUES ($1, $2)",
                    migration.number, migration.name,
                )
        except asyncpg.PostgresError as exc:
            raise MigrationError(f"migration {migration.number:04d}_{migration.name}.sql failed: {exc}") from exc
        applied.append(migration.number)
    return applied
