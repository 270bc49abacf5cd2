"""Fixtures for the store tests: a fresh SQLite file per test with a controllable clock."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from persistence import SqliteStore


class FakeClock:
    """A clock the test moves by hand, so timestamps are exact."""

    def __init__(self, now: float = 1_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
async def store(tmp_path: Path, clock: FakeClock) -> AsyncIterator[SqliteStore]:
    s = await SqliteStore.open(tmp_path / "tractor.sqlite3", clock=clock)
    try:
        yield s
    finally:
        await s.close()


RULES = {"preset": "classic", "target": "A"}
SEATS = [{"seat": i, "player": i + 1, "name": f"P{i}", "ai": i == 3} for i in range(4)]
