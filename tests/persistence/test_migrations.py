"""Schema migrations: numbered files, applied in order, upgrading older files in place."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import aiosqlite
import pytest

from persistence import SqliteStore
from persistence.migrate import MigrationError, latest_version, load_migrations, migrate, split_statements

FIXTURES = Path(__file__).parent / "fixtures"


def _make_v1_file(path: Path) -> None:
    """A database exactly as the first shipped schema left it, with some data in it."""
    conn = sqlite3.connect(path)
    conn.executescript((FIXTURES / "schema_v1.sql").read_text())
    conn.execute("PRAGMA user_version = 1")
    conn.execute(
        "INSERT INTO players (platform, user_id, name, language, created_at, updated_at)"
        " VALUES ('telegram', '42', 'Ann', 'zh', 1, 1)"
    )
    conn.execute(
        "INSERT INTO chats (platform, chat_id, settings, created_at, updated_at)"
        " VALUES ('telegram', '-100', '{\"preset\": \"classic\"}', 1, 1)"
    )
    conn.execute(
        "INSERT INTO matches (chat, rules, seats, seed, status, meta, version, created_at, updated_at)"
        " VALUES (1, '{\"preset\": \"classic\"}', '[]', 7, 'active', '{}', 2, 1, 1)"
    )
    conn.execute('INSERT INTO actions VALUES (1, 0, \'{"t":"deal","n":1}\', NULL, 1)')
    conn.execute('INSERT INTO actions VALUES (1, 1, \'{"t":"deal","n":1}\', \'tg:5\', 1)')
    conn.commit()
    conn.close()


def test_the_shipped_first_migration_is_unchanged() -> None:
    """0001 has shipped: its text is frozen (add 0002, 0003, ... instead of editing it)."""
    first = load_migrations()[0]
    assert first.number == 1
    assert first.sql == (FIXTURES / "schema_v1.sql").read_text()


async def test_a_file_made_with_the_first_schema_upgrades_in_place(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    _make_v1_file(path)
    store = await SqliteStore.open(path)
    try:
        rows = await store.fetchall("PRAGMA user_version")
        assert rows[0][0] == latest_version()
        (match,) = await store.load_unfinished()
        assert match.actions == [{"t": "deal", "n": 1}, {"t": "deal", "n": 1}]
        assert match.error is None
        assert await store.get_chat("telegram", "-100") == {"preset": "classic"}
        assert await store.seen_key("tg:5")
        assert await store.append_action(match.id, 2, {"t": "close"}, "tg:6") == "applied"
        assert (await store.get_player("telegram", "42")) == {
            "id": 1,
            "platform": "telegram",
            "user_id": "42",
            "name": "Ann",
            "language": "zh",
        }
    finally:
        await store.close()


async def test_a_new_file_gets_wal_foreign_keys_and_a_busy_timeout(tmp_path: Path) -> None:
    store = await SqliteStore.open(tmp_path / "sub" / "new.sqlite3")
    try:
        assert (await store.fetchall("PRAGMA journal_mode"))[0][0] == "wal"
        assert (await store.fetchall("PRAGMA foreign_keys"))[0][0] == 1
        assert (await store.fetchall("PRAGMA busy_timeout"))[0][0] == 5000
        assert (await store.fetchall("PRAGMA synchronous"))[0][0] == 2  # FULL
        assert (await store.fetchall("PRAGMA user_version"))[0][0] == latest_version()
    finally:
        await store.close()


def _write(directory: Path, files: dict[str, str]) -> Path:
    directory.mkdir()
    for name, sql in files.items():
        (directory / name).write_text(sql)
    return directory


async def test_migrations_run_in_number_order_and_only_once(tmp_path: Path) -> None:
    mig = _write(
        tmp_path / "mig",
        {
            "0002_second.sql": "ALTER TABLE t ADD COLUMN b TEXT;\nINSERT INTO log VALUES ('two');",
            "0001_first.sql": "CREATE TABLE t (a INTEGER);\nCREATE TABLE log (step TEXT);\nINSERT INTO log VALUES ('one');",
            "0003_third.sql": "-- a comment line\nCREATE TRIGGER t_ins AFTER INSERT ON t BEGIN\n"
            "  INSERT INTO log VALUES ('trigger');\nEND;\nINSERT INTO log VALUES ('three');",
            "README.txt": "not a migration",
        },
    )
    async with aiosqlite.connect(tmp_path / "db", isolation_level=None) as conn:
        assert await migrate(conn, directory=mig, upto=1) == [1]
        assert await migrate(conn, directory=mig) == [2, 3]
        assert await migrate(conn, directory=mig) == []
        async with conn.execute("SELECT step FROM log") as cur:
            assert [r[0] for r in await cur.fetchall()] == ["one", "two", "three"]
        async with conn.execute("PRAGMA user_version") as cur:
            assert (await cur.fetchone()) == (3,)


async def test_a_failing_migration_leaves_the_file_at_the_previous_version(tmp_path: Path) -> None:
    mig = _write(
        tmp_path / "mig",
        {
            "0001_first.sql": "CREATE TABLE t (a INTEGER);",
            "0002_bad.sql": "CREATE TABLE u (b INTEGER);\nINSERT INTO no_such_table VALUES (1);",
        },
    )
    async with aiosqlite.connect(tmp_path / "db", isolation_level=None) as conn:
        with pytest.raises(MigrationError, match=r"0002_bad\.sql failed"):
            await migrate(conn, directory=mig)
        async with conn.execute("PRAGMA user_version") as cur:
            assert (await cur.fetchone()) == (1,)
        async with conn.execute("SELECT name FROM sqlite_master WHERE name = 'u'") as cur:
            assert await cur.fetchall() == []  # the half of 0002 that worked was rolled back


async def test_a_file_newer_than_the_code_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "future.sqlite3"
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {latest_version() + 1}")
    conn.close()
    with pytest.raises(MigrationError, match="newer than this code"):
        await SqliteStore.open(path)


def test_a_gap_in_migration_numbers_is_refused(tmp_path: Path) -> None:
    mig = _write(tmp_path / "mig", {"0001_a.sql": "SELECT 1;", "0003_c.sql": "SELECT 1;"})
    with pytest.raises(MigrationError, match="expected 0002"):
        load_migrations(mig)


def test_split_statements_keeps_triggers_whole() -> None:
    sql = "CREATE TABLE a (x);\nCREATE TRIGGER tr AFTER INSERT ON a BEGIN\n SELECT 1;\n SELECT 2;\nEND;\n-- end\n"
    parts = split_statements(sql)
    assert len(parts) == 2
    assert parts[1].startswith("CREATE TRIGGER") and parts[1].endswith("END;")
