"""Resume, export and check with the real engine: a stored match comes back exactly as it was played."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from app.db import db_command
from persistence import BROKEN, SqliteStore
from persistence.replay import resume_all
from tests.persistence import engine_play


def _views(match: Any) -> list[dict[str, Any]]:
    return [match.public_view(), *(match.view(seat) for seat in range(4))]


async def _store_played(store: SqliteStore, seed: int, n: int) -> tuple[int, Any]:
    """Play a real match action by action, persisting each one first, as the host does."""
    rules = engine_play.rules_dict()
    match_id = await store.create_match(
        "telegram", f"-{seed}", rules, [{"seat": s} for s in range(4)], seed, {}
    )
    live = engine_play.new(rules, seed)
    for _ in range(n):
        action = engine_play.next_action(live)
        if action is None:
            break
        assert (
            await store.append_action(match_id, live.version, action, f"{seed}:{live.version}") == "applied"
        )
        live.apply(action)
    return match_id, live


async def test_resumed_matches_match_the_live_ones_seat_by_seat(store: SqliteStore) -> None:
    played = [await _store_played(store, seed, n) for seed, n in ((1, 40), (2, 120), (3, 260))]
    report = await resume_all(store, engine_play.rebuild)
    assert report.broken == []
    for match_id, live in played:
        stored, resumed = report.states[match_id]
        assert resumed.version == live.version == stored.version
        assert resumed.phase == live.phase
        assert _views(resumed) == _views(live)


async def test_an_action_the_engine_refuses_is_named_and_set_aside(store: SqliteStore) -> None:
    good_id, _ = await _store_played(store, 4, 80)
    bad_id, live = await _store_played(store, 5, 80)
    plays = [seq for seq, a in enumerate(live.actions_json()) if a["t"] == "play"]
    target = plays[3]
    forged = dict(live.actions_json()[target], seat=(live.actions_json()[target]["seat"] + 1) % 4)
    async with store.transaction() as conn:
        await conn.execute(
            "UPDATE actions SET action = ? WHERE match_id = ? AND seq = ?",
            (json.dumps(forged), bad_id, target),
        )
    report = await resume_all(store, engine_play.rebuild)
    assert list(report.states) == [good_id]
    (broken,) = report.broken
    assert broken.match_id == bad_id
    assert broken.reason.startswith(f"match {bad_id}: action seq {target} ")
    assert "refused by the engine: IllegalAction" in broken.reason
    stored = await store.get_match(bad_id)
    assert stored is not None and stored.status == BROKEN


async def test_an_export_replays_through_the_engine(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "t.sqlite3"
    store = await SqliteStore.open(db)
    try:
        match_id, live = await _store_played(store, 6, 150)
    finally:
        await store.close()
    assert await db_command(["--db", str(db), "export", str(match_id)]) == 0
    document = json.loads(capsys.readouterr().out)
    replayed = engine_play.rebuild(document["rules"], document["seed"], document["actions"])
    assert _views(replayed) == _views(live)


async def test_db_check_replays_through_the_engine_by_default(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "t.sqlite3"
    store = await SqliteStore.open(db)
    try:
        for seed in (7, 8):
            await _store_played(store, seed, 60)
    finally:
        await store.close()
    assert await db_command(["--db", str(db), "check"]) == 0
    assert "unfinished matches: 2, replayed: 2, broken: 0" in capsys.readouterr().out
