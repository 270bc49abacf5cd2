"""Schema migrations: numbered SQL files applied in order, tracked by `PRAGMA user_version`.

Kept apart from the store so that tests (and `db check`) can build a file at
any older version and watch the current code upgrade it in place.
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import aiosqlite

_NAME = re.compile(r"^(\d{4})_([a-z0-9_]+)\.sql$")


class MigrationError(Exception):
    """The migration files or the database's schema version do not fit together."""


@dataclass(frozen=True)
class Migration:
    number: int
    name: str
    sql: str


def load_migrations(directory: Path | None = None, *, package: str = "persistence.migrations") -> list[Migration]:
    """Every migration file, sorted by number; numbers must run 1, 2, 3, ... without gaps.

    `package` holds one backend's files (SQLite's by default; PostgreSQL's are
    `persistence.migrations_postgres`); `directory` overrides it (tests).

    :raises MigrationError: on a duplicate or missing number.
    """
    if directory is None:
        files = [(f.name, f) for f in resources.files(package).iterdir()]
    else:
        files = [(p.name, p) for p in Path(directory).iterdir()]
    found: list[Migration] = []
    for name, ref in files:
        match = _NAME.match(name)
        if match:
            found.append(Migration(int(match.group(1)), match.group(2), ref.read_text(encoding="utf-8")))
    found.sort(key=lambda m: m.number)
    for expected, migration in enumerate(found, start=1):
        if migration.number != expected:
            raise MigrationError(
                f"migration numbers must run 1, 2, 3, ...: expected {expected:04d}, found "
                f"{migration.number:04d}_{migration.name}.sql"
            )
    return found


def latest_version(directory: Path | None = None, *, package: str = "persistence.migrations") -> int:
    """The schema version the code expects (the highest migration number)."""
    migrations = load_migrations(directory, package=package)
    return migrations[-1].number if migrations else 0


async def schema_version(conn: aiosqlite.Connection) -> int:
    async with conn.execute("PRAGMA user_version") as cur:
        row = await cur.fetchone()
    return int(row[0]) if row else 0


async def migrate(
    conn: aiosqlite.Connection, *, directory: Path | None = None, upto: int | None = None
) -> list[int]:
    """Apply every migration newer than the file's version (up to `upto`), each in its own transaction.

    The connection must be in autocommit mode (isolation_level=None). A failing
    migration is rolled back whole, leaving the file at the previous version.

    :returns: the numbers applied.
    :raises MigrationError: the file is newer than this code, or a migration failed.
    """
    migrations = load_migrations(directory)
    latest = migrations[-1].number if migrations else 0
    current = await schema_version(conn)
    if current > latest:
        raise MigrationError(
            f"database schema version {current} is newer than this code knows ({latest}); "
            "upgrade tractor-host before opening this file"
        )
    pending = [m for m in migrations if m.number > current and (upto is None or m.number <= upto)]
    if not pending:
        return []
    # one hop to the connection's thread for them all (each migration still its own transaction):
    # a statement at a time through aiosqlite cost a new file ~90 hops, 30 ms of CPU at every open
    return await conn._execute(_apply, conn._conn, pending)  # type: ignore[no-untyped-call,no-any-return]


def _apply(conn: sqlite3.Connection, pending: list[Migration]) -> list[int]:
    """In the connection's thread: each migration in its own transaction; the numbers applied."""
    applied: list[int] = []
    for migration in pending:
        # One transaction per file, user_version written inside it. The version is
        # read again under the write lock, so two processes opening a new file at
        # once do not both run the same migration.
        conn.execute("BEGIN IMMEDIATE")
        try:
            if int(conn.execute("PRAGMA user_version").fetchone()[0]) >= migration.number:
                conn.execute("COMMIT")
                continue
            for statement in split_statements(migration.sql):
                conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {migration.number}")
            conn.execute("COMMIT")
        except Exception as exc:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise MigrationError(
                f"migration {migration.number:04d}_{migration.name}.sql failed: {exc}"
            ) from exc
        applied.append(migration.number)
    return applied


def split_statements(sql: str) -> list[str]:
    """Split a script into complete statements (triggers' BEGIN ... END stay whole)."""
    statements: list[str] = []
    buffer = ""
    for line in sql.splitlines(keepends=True):
        buffer += line
        if sqlite3.complete_statement(buffer):
            if buffer.strip() and not _only_comments(buffer):
                statements.append(buffer.strip())
            buffer = ""
    if buffer.strip() and not _only_comments(buffer):
        raise MigrationError(f"incomplete SQL statement at the end of a migration: {buffer.strip()[:80]!r}")
    return statements


def _only_comments(text: str) -> bool:
    return all(not line.strip() or line.strip().startswith("--") for line in text.splitlines())
