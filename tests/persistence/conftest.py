"""Fixtures for the store tests: a fresh SQLite file (or PostgreSQL database) per test, a controllable clock."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from persistence import SqliteStore
from persistence.postgres import PostgresStore
from tests.persistence.db_clock import DbClock
from tests.persistence.pg_server import PgServer, find_bin
from tests.persistence.pg_server import start as start_pg


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


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PgServer]:
    """One throwaway PostgreSQL server for the whole run (tests/persistence/pg_server.py).

    Without PostgreSQL installed the tests that need it are skipped and say why;
    on CI (CI=true) they fail instead, so a missing server never passes for green.
    """
    if find_bin() is None:
        message = "PostgreSQL is not installed (no initdb): apt-get install postgresql to run these tests"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    server = start_pg()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def pg_url(pg_server: PgServer) -> str:
    """A new, empty database on the shared server, for one test."""
    return pg_server.new_database()


@pytest.fixture
async def db_clock(pg_url: str) -> AsyncIterator[DbClock]:
    """The clock of this test's database (`pg_url`), standing still until the test moves it: leases,
    heartbeats and flood windows run out when the test says, however loaded the machine is."""
    clock = await DbClock.install(pg_url)
    try:
        yield clock
    finally:
        await clock.close()


@pytest.fixture(params=["sqlite", "postgres"])
async def sql_store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[SqliteStore | PostgresStore]:
    """The host's store on SQLite, then on PostgreSQL (skipped, or failed on CI, without it).

    The board and tournament stores write the SQL both dialects share; each of their tests runs on both.
    """
    if request.param == "sqlite":
        s: SqliteStore | PostgresStore = await SqliteStore.open(tmp_path / "s.sqlite3", synchronous="OFF")
    else:
        s = await PostgresStore.open(request.getfixturevalue("pg_url"))
    try:
        yield s
    finally:
        await s.close()
