"""`db backup`, `db export`, `db check`: what an operator runs, on real files."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from persistence import SqliteStore
from persistence.cli import EXPORT_FORMAT, db_main
from persistence.paths import DEFAULT_DB, default_db_path
from tests.persistence import standin

ROOT = Path(__file__).resolve().parents[2]


async def _seed_db(path: Path, matches: int = 2, n: int = 9) -> list[int]:
    store = await SqliteStore.open(path)
    try:
        ids = []
        for i in range(matches):
            match_id = await store.create_match(
                "telegram", f"-{i}", {"seats": 4}, [{"seat": 0}], i, {"lang": "zh"}
            )
            for seq, action in enumerate(standin.play(i, n)):
                await store.append_action(match_id, seq, action, None)
            ids.append(match_id)
        return ids
    finally:
        await store.close()


def test_the_database_path_comes_from_the_flag_then_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TRACTOR_DB", raising=False)
    assert default_db_path() == DEFAULT_DB == Path("data/tractor.sqlite3")
    monkeypatch.setenv("TRACTOR_DB", "/srv/t.db")
    assert default_db_path() == Path("/srv/t.db")
    assert default_db_path("x.db") == Path("x.db")


async def test_backup_while_another_connection_keeps_appending(tmp_path: Path) -> None:
    db = tmp_path / "live.sqlite3"
    (match_id,) = await _seed_db(db, matches=1, n=0)
    writer = await SqliteStore.open(db)
    stop, under_way = asyncio.Event(), asyncio.Event()

    async def keep_appending() -> int:
        seq = 0
        for action in standin.play(0, 100_000):
            if stop.is_set():
                break
            await writer.append_action(match_id, seq, action, None)
            seq += 1
            if seq == 20:
                under_way.set()
        return seq

    task = asyncio.create_task(keep_appending())
    try:
        await under_way.wait()  # the backup starts mid-stream, however slow the machine
        assert await db_main(["--db", str(db), "backup", str(tmp_path / "copy.sqlite3")], rebuild=standin.rebuild) == 0
        stop.set()
        appended = await task
    finally:
        await writer.close()
    copy = sqlite3.connect(tmp_path / "copy.sqlite3")
    try:
        assert copy.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        (version,) = copy.execute("SELECT version FROM matches").fetchone()
        (rows,) = copy.execute("SELECT count(*) FROM actions").fetchone()
    finally:
        copy.close()
    assert version == rows <= appended  # a consistent snapshot taken mid-stream
    assert not (tmp_path / "copy.sqlite3.partial").exists()
    backup_store = await SqliteStore.open(tmp_path / "copy.sqlite3")
    try:
        (stored,) = await backup_store.load_unfinished()
        assert stored.error is None and stored.actions == standin.play(0, rows)
    finally:
        await backup_store.close()


async def test_backup_refuses_to_overwrite_the_live_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "live.sqlite3"
    await _seed_db(db)
    assert await db_main(["--db", str(db), "backup", str(db)], rebuild=standin.rebuild) == 1
    assert "is the live database itself" in capsys.readouterr().err


async def test_a_missing_database_is_reported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert await db_main(["--db", str(tmp_path / "none.db"), "check"], rebuild=standin.rebuild) == 1
    assert "no database at" in capsys.readouterr().err
    assert not (tmp_path / "none.db").exists()


async def test_bad_usage_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert await db_main(["frobnicate"], rebuild=standin.rebuild) == 2
    assert await db_main(["export", "not-a-number"], rebuild=standin.rebuild) == 2
    assert "invalid int value" in capsys.readouterr().err


async def test_export_gives_a_replayable_log(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "t.sqlite3"
    _, second = await _seed_db(db, n=13)
    assert await db_main(["--db", str(db), "export", str(second)], rebuild=standin.rebuild) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["format"] == EXPORT_FORMAT and document["match_id"] == second
    assert (document["rules"], document["seed"], document["seats"]) == ({"seats": 4}, 1, [{"seat": 0}])
    assert document["version"] == 13
    replayed = standin.rebuild(document["rules"], document["seed"], document["actions"])
    assert replayed.actions == standin.play(1, 13)


async def test_export_to_a_file_and_of_an_unknown_match(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "t.sqlite3"
    (first, _) = await _seed_db(db)
    out = tmp_path / "m.json"
    assert await db_main(["--db", str(db), "export", str(first), "-o", str(out)], rebuild=standin.rebuild) == 0
    assert json.loads(out.read_text())["actions"] == standin.play(0, 9)
    assert await db_main(["--db", str(db), "export", "999"], rebuild=standin.rebuild) == 1
    assert "no match with id 999" in capsys.readouterr().err


async def test_check_passes_on_a_sound_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "t.sqlite3"
    await _seed_db(db, matches=3)
    assert await db_main(["--db", str(db), "check"], rebuild=standin.rebuild) == 0
    out = capsys.readouterr().out
    assert "integrity: ok" in out and "unfinished matches: 3, replayed: 3, broken: 0" in out
    # --db after the command works too (`tractor-host db check --db FILE`).
    assert await db_main(["check", "--db", str(db)], rebuild=standin.rebuild) == 0
    assert "replayed: 3" in capsys.readouterr().out


async def test_check_names_the_damaged_match(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "t.sqlite3"
    first, second = await _seed_db(db)
    conn = sqlite3.connect(db)
    conn.execute(
        'UPDATE actions SET action = \'{"t":"draw","seat":3}\' WHERE match_id = ? AND seq = 2', (second,)
    )
    conn.commit()
    conn.close()
    assert await db_main(["--db", str(db), "check"], rebuild=standin.rebuild) == 1
    out = capsys.readouterr().out
    assert "replayed: 1, broken: 1" in out
    assert f"match {second}: action seq 2" in out and f"db export {second}" in out
    assert f"match {first}:" not in out


def test_the_module_runs_standalone(tmp_path: Path) -> None:
    db = tmp_path / "t.sqlite3"
    asyncio.run(_seed_db(db))
    done = subprocess.run(
        [sys.executable, "-m", "app.cli", "db", "backup", str(tmp_path / "b.sqlite3")],
        cwd=ROOT,
        env={"TRACTOR_DB": str(db), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "backed up" in done.stdout and (tmp_path / "b.sqlite3").exists()


async def test_a_file_that_is_not_a_database_is_reported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    junk = tmp_path / "junk.sqlite3"
    junk.write_bytes(b"this is not SQLite" * 100)
    assert await db_main(["--db", str(junk), "check"], rebuild=standin.rebuild) == 1
    assert "cannot open" in capsys.readouterr().err
    assert junk.read_bytes() == b"this is not SQLite" * 100


async def test_export_of_a_damaged_match_shows_the_raw_rows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "t.sqlite3"
    (first, _) = await _seed_db(db, n=4)
    conn = sqlite3.connect(db)
    conn.execute('UPDATE actions SET action = \'{"t": "dr\' WHERE match_id = ? AND seq = 2', (first,))
    conn.commit()
    conn.close()
    assert await db_main(["--db", str(db), "export", str(first)], rebuild=standin.rebuild) == 1
    captured = capsys.readouterr()
    document = json.loads(captured.out)
    assert document["error"].startswith(f"match {first}: action seq 2 is not valid JSON")
    assert document["actions"] == standin.play(0, 2)  # what could be read
    assert document["raw_actions"][2] == {"seq": 2, "text": '{"t": "dr'}
    assert len(document["raw_actions"]) == 4
    assert "the log is damaged" in captured.err
