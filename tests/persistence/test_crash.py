"""Crash test: SIGKILL a writer at random moments; nothing acknowledged is lost, nothing half-written stays.

The child (tests/persistence/crash_child.py) prints each action only after its
transaction committed. After every kill the parent opens the file, checks
SQLite's integrity, finds every printed action, checks that each match's log
is whole (version == rows, seq 0..n-1, valid JSON) and replays every match.
Some kills land while the child is still creating the schema and matches.

Real time, because the writer is a process of its own, killed by the operating system at random
moments; it is forked ready-imported (fakes.child), so that a kill soon after the start lands in
the schema's creation, not in Python's imports.
"""

from __future__ import annotations

import asyncio
import json
import random
import signal
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from fakes.child import start_module
from persistence import SqliteStore
from persistence.replay import replay_all
from tests.persistence import crash_child

ROOT = Path(__file__).resolve().parents[2]
KILLS = 52
FRESH_FILE_EVERY = 8


async def _run_and_kill(db: Path, synchronous: str, rng: random.Random) -> tuple[list[tuple[int, int]], bool]:
    """Start the child, SIGKILL it at a random moment; returns the (match, seq) it reported and whether
    the kill came among appends (after the first was reported) rather than during start-up."""
    proc = await start_module("tests.persistence.crash_child", [str(db), synchronous])
    early = rng.random() < 0.2
    first = b""
    if early:
        # Kill during start-up: schema creation, resume, match creation.
        await asyncio.sleep(rng.uniform(0.0, 0.2))
    else:
        ready = await asyncio.wait_for(proc.stdout.readline(), timeout=30)
        assert ready == b"ready\n"
        first = await asyncio.wait_for(proc.stdout.readline(), timeout=30)  # the first append committed
        await asyncio.sleep(rng.uniform(0.0, 0.1))
    proc.send_signal(signal.SIGKILL)
    rest = first + await proc.stdout.read()
    await proc.wait()
    assert proc.returncode == -signal.SIGKILL
    lines = rest.decode().split("\n")
    complete = lines[:-1]  # a last line without its newline was not fully reported
    reported = [(int(a), int(b)) for a, b in (line.split() for line in complete if line != "ready")]
    return reported, not early


_EXPECTED: dict[tuple[str, int], list[dict[str, Any]]] = {}


def _expected(rules: str, seed: int, n: int) -> list[dict[str, Any]]:
    """The child's first n actions for a match, computed once per game and extended as needed."""
    known = _EXPECTED.get((rules, seed), [])
    if len(known) < n:
        known = _EXPECTED[(rules, seed)] = crash_child.expected_log(
            json.loads(rules), seed, max(n, 2 * len(known))
        )
    return known[:n]


def _check_file(db: Path, reported: list[tuple[int, int]]) -> int:
    """The file is sound, holds every reported action, and every log is whole; returns the action count."""
    conn = sqlite3.connect(db)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
        if conn.execute("PRAGMA user_version").fetchone() == (0,):
            # Killed before the first migration committed: no half-made schema either.
            assert conn.execute("SELECT name FROM sqlite_master").fetchall() == []
            assert reported == []
            return 0
        present = set(conn.execute("SELECT match_id, seq FROM actions").fetchall())
        missing = [r for r in reported if r not in present]
        assert not missing, f"acknowledged actions lost: {missing[:5]}"
        for match_id, version, seed, rules in conn.execute("SELECT id, version, seed, rules FROM matches"):
            rows = conn.execute(
                "SELECT seq, action, key FROM actions WHERE match_id = ? ORDER BY seq", (match_id,)
            ).fetchall()
            assert [r[0] for r in rows] == list(range(version)), f"match {match_id}: log and version disagree"
            expected = _expected(rules, seed, version)
            assert [json.loads(r[1]) for r in rows] == expected
            assert [r[2] for r in rows] == [f"{match_id}:{seq}" for seq in range(version)]
        return len(present)
    finally:
        conn.close()


@pytest.mark.slow(8)
async def test_sigkill_at_random_moments_loses_nothing_acknowledged(tmp_path: Path) -> None:
    rng = random.Random(20261129)
    db = tmp_path / "crash-0.sqlite3"
    total_reported = 0
    kills_mid_stream = 0
    for kill in range(KILLS):
        if kill % FRESH_FILE_EVERY == 0:
            db = tmp_path / f"crash-{kill}.sqlite3"
        synchronous = "FULL" if kill % 2 == 0 else "NORMAL"
        reported, mid_stream = await _run_and_kill(db, synchronous, rng)
        total_reported += len(reported)
        kills_mid_stream += mid_stream
        if not db.exists():
            assert reported == []
            continue
        _check_file(db, reported)
        # The file opens through the store (migrations, WAL recovery) and every match replays.
        store = await SqliteStore.open(db)
        try:
            loaded = await store.load_unfinished()
            report = replay_all(loaded, crash_child.rebuild)
            assert report.broken == []
            for stored, state in report.states.values():
                assert state.version == stored.version
        finally:
            await store.close()
    # Most kills landed among appends (the rest during start-up).
    assert kills_mid_stream >= KILLS // 2
    assert total_reported >= kills_mid_stream
    print(
        f"{KILLS} kills: {total_reported} acknowledged actions all present; {kills_mid_stream} kills mid-stream"
    )
