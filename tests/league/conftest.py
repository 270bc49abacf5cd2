"""The league tests' store: a LeagueStore on its own SQLite file, migrations applied, closed after the test."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from persistence.league_store import LeagueStore


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[LeagueStore]:
    s = await LeagueStore.open(tmp_path / "league.sqlite3")
    yield s
    await s.close()
