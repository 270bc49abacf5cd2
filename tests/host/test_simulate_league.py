"""`tractor-host simulate --league`: people in one chat, several matches, all of it in the chat's league."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.simulate import simulate_league


@pytest.mark.slow(7)
async def test_a_league_in_one_chat(tmp_path: Path) -> None:
    got = await simulate_league(matches=3, people=6, db=str(tmp_path / "league.sqlite3"), seed=3)
    assert got.finished == 3 and not got.errors, got.errors
    lines = got.standings.splitlines()
    assert lines[0] == "Standings · season 1 · 场分 (doc 004)"
    players = [line for line in lines[2:] if line[:1].isdigit()]
    assert 4 <= len(players) <= 6  # everyone who was drawn to play, no AI
    assert "AI" not in got.standings and "🤖" not in got.standings
    history = got.history.splitlines()
    assert len([line for line in history if line.startswith("#")]) == 3
    assert got.pairs.splitlines()[0] == "Season 1 pairs · 场分 (doc 004)"
