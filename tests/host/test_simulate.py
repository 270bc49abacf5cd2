"""`tractor-host simulate`: AI-only matches through the whole host, SQLite included."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from app.cli import main


def test_simulate_plays_matches_to_the_end_and_stores_them(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "sim.sqlite3"
    code = main(["simulate", "--matches", "2", "--preset", "classic", "--db", str(db), "--seed", "4", "target=3"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert out.startswith("2/2 matches finished")
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT status FROM matches").fetchall()
        actions = conn.execute("SELECT count(*) FROM actions").fetchone()[0]
    assert [r[0] for r in rows] == ["finished"] * 2
    assert f"{actions} actions" in out


def test_simulate_reports_a_bad_option(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code = main(["simulate", "--matches", "1", "--db", str(tmp_path / "x.sqlite3"), "target=banana"])
    out = capsys.readouterr().out
    assert code == 1 and "0/1 matches finished" in out and "error:" in out
