"""What is particular to the PostgreSQL store (the shared behaviour is in test_store_contract.py).

Schema migrations, leagues over the host's store, two workers (two stores) on one
database, the damaged-log checks and the `db` tools. Each test gets a fresh database
on a throwaway server (conftest `pg_url`); without PostgreSQL they are skipped and say so.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import asyncpg
import pytest

from app.db import engine_rebuild
from app.store import open_store
from persistence import SequenceConflict, UnknownMatch
from persistence.cli import db_main
from persistence.errors import LeaseLost
from persistence.league_store import LeagueStore
from persistence.migrate import MigrationError, latest_version
from persistence.postgres import PostgresStore, redact
from persistence.postgres_migrate import PACKAGE, schema_version
from tests.league.sim import SEASON
from tests.league.test_store import TestLeagueStore as _LeagueTests
from tests.persistence.conftest import RULES, SEATS
from tests.persistence.db_clock import DbClock


@pytest.fixture
async def pg(pg_url: str) -> AsyncIterator[PostgresStore]:
    store = await PostgresStore.open(pg_url)
    try:
        yield store
    finally:
        await store.close()


class TestMigrations:
    async def test_a_new_database_gets_every_migration_once(self, pg_url: str) -> None:
        first = await PostgresStore.open(pg_url)
        await first.close()
        again = await PostgresStore.open(pg_url)  # nothing left to apply
        await again.close()
        conn = await asyncpg.connect(pg_url)
        try:
            assert await schema_version(conn) == latest_version(package=PACKAGE) >= 2
            rows = await conn.fetch("SELECT version FROM schema_migrations ORDER BY version")
            assert [r[0] for r in rows] == list(range(1, latest_version(package=PACKAGE) + 1))
            # The host never wrote event_keys: 0011 dropped it, as SQLite's 0006 did.
            assert await conn.fetchval("SELECT to_regclass('event_keys')") is None
        finally:
            await conn.close()

    async def test_workers_starting_together_apply_each_migration_once(self, pg_url: str) -> None:
        stores = await asyncio.gather(*(PostgresStore.open(pg_url) for _ in range(4)))
        for s in stores:
            await s.close()
        conn = await asyncpg.connect(pg_url)
        try:
            assert await conn.fetchval("SELECT count(*) FROM schema_migrations") == latest_version(package=PACKAGE)
        finally:
            await conn.close()

    async def test_a_database_newer_than_the_code_is_refused(self, pg_url: str) -> None:
        await (await PostgresStore.open(pg_url)).close()
        conn = await asyncpg.connect(pg_url)
        try:
            await conn.execute("INSERT INTO schema_migrations (version, name) VALUES (999, 'future')")
        finally:
            await conn.close()
        with pytest.raises(MigrationError, match="newer than this code"):
            await PostgresStore.open(pg_url)


class TestTwoWorkers:
    async def test_two_stores_racing_for_one_seq_get_one_applied(self, pg_url: str) -> None:
        a, b = await PostgresStore.open(pg_url), await PostgresStore.open(pg_url)
        try:
            match_id = await a.create_match("telegram", "-1", RULES, SEATS, 7, {})
            outcomes = await asyncio.gather(
                *(s.append_action(match_id, 0, {"t": "play", "seat": i}, f"k{i}") for i, s in enumerate([a, b] * 4)),
                return_exceptions=True,
            )
            assert sum(o == "applied" for o in outcomes) == 1
            assert sum(isinstance(o, SequenceConflict) for o in outcomes) == 7
            stored = await b.get_match(match_id)
            assert stored is not None and stored.version == 1 and len(stored.actions) == 1
        finally:
            await a.close()
            await b.close()

    async def test_deadlines_ride_with_their_action_or_not_at_all(self, pg: PostgresStore) -> None:
        match_id = await pg.create_match("telegram", "-1", RULES, SEATS, 7, {})
        await pg.set_deadline(match_id, "declare", 50.0)
        await pg.append_action(match_id, 0, {"t": "deal"}, "k0", deadlines={"declare": None, "turn": 90.0})
        with pytest.raises(SequenceConflict):
            await pg.append_action(match_id, 0, {"t": "other"}, "k1", deadlines={"turn": 1.0})
        stored = await pg.get_match(match_id)
        assert stored is not None and stored.deadlines == {"turn": 90.0}


class TestDamage:
    async def test_a_log_with_a_gap_is_set_aside_and_reported_by_check(
        self, pg: PostgresStore, pg_url: str
    ) -> None:
        ok = await pg.create_match("telegram", "-1", RULES, SEATS, 1, {})
        bad = await pg.create_match("telegram", "-2", RULES, SEATS, 2, {})
        for seq in range(3):
            await pg.append_action(bad, seq, {"t": "deal", "n": seq}, None)
        conn = await asyncpg.connect(pg_url)
        try:
            await conn.execute("DELETE FROM actions WHERE match_id = $1 AND seq = 1", bad)
        finally:
            await conn.close()
        assert await pg.integrity_check() == [f"match {bad}: version 3, 2 actions stored, seqs with gaps (up to 2)"]
        assert [m.id for m in await pg.load_unfinished()] == [ok]
        set_aside = await pg.get_match(bad)
        assert set_aside is not None and set_aside.status == "broken"
        assert "seq 1 is missing" in set_aside.meta["broken"]


class TestLeagueOnPostgres(_LeagueTests):
    """Every league store test, on the host's PostgreSQL store."""

    @pytest.fixture
    async def store(self, pg_url: str) -> AsyncIterator[LeagueStore]:  # type: ignore[override]
        host = await PostgresStore.open(pg_url)
        yield LeagueStore.of(host)
        await host.close()

    async def test_league_tables_come_with_the_host_store(self, tmp_path: Path, pg_url: str) -> None:  # type: ignore[override]
        host = await PostgresStore.open(pg_url)
        try:
            league = LeagueStore.of(host)
            await host.upsert_player("telegram", "uA", "A")
            assert await league.add_match(SEASON[0].to_dict())
            assert not await league.add_match(SEASON[0].to_dict())
            assert [d["match_id"] for d in await league.player_matches("telegram", "uA")] == [1]
        finally:
            await host.close()


class TestChoosingAndTools:
    async def test_the_url_chooses_postgres_and_sqlite_stays_the_default(
        self, pg_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setenv("TRACTOR_DATABASE_URL", pg_url)
        store = await open_store()
        try:
            assert isinstance(store, PostgresStore)
        finally:
            await store.close()
        monkeypatch.delenv("TRACTOR_DATABASE_URL")
        sqlite = await open_store(tmp_path / "x.sqlite3")
        try:
            assert not isinstance(sqlite, PostgresStore)
        finally:
            await sqlite.close()

    async def test_check_and_export_work_and_backup_names_pg_dump(
        self, pg: PostgresStore, pg_url: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
    ) -> None:
        match_id = await pg.create_match("telegram", "-1", {}, SEATS, 3, {})
        assert await db_main(["--db", pg_url, "check"], rebuild=engine_rebuild) == 0
        out = capsys.readouterr().out
        assert "integrity: ok" in out and "unfinished matches: 1, replayed: 1, broken: 0" in out
        assert await db_main(["--db", pg_url, "export", str(match_id)], rebuild=engine_rebuild) == 0
        assert f'"match_id": {match_id}' in capsys.readouterr().out
        assert await db_main(["--db", pg_url, "backup", str(tmp_path / "b")], rebuild=engine_rebuild) == 1
        assert "pg_dump" in capsys.readouterr().err

    def test_messages_never_show_the_password(self) -> None:
        assert redact("postgresql://bot:s3cret@db.example:5433/tractor") == "postgresql://bot:***@db.example:5433/tractor"
        assert redact("postgresql://bot@db/tractor") == "postgresql://bot@db/tractor"


class TestLeases:
    """Issue 20's single writer across workers: a table's lease, and writes refused once it is lost."""

    async def test_one_worker_at_a_time_and_a_lost_lease_refuses_writes(self, pg_url: str, db_clock: DbClock) -> None:
        a = await PostgresStore.open(pg_url, worker="w1")
        b = await PostgresStore.open(pg_url, worker="w2")
        try:
            match_id = await a.create_match("telegram", "-1", RULES, SEATS, 7, {})
            with pytest.raises(LeaseLost):  # whoever opens a table holds it first: nobody else may write
                await b.append_action(match_id, 0, {"t": "deal"}, "k0")
            assert await a.acquire_lease(match_id, ttl=0.5)  # renews its own
            assert not await b.acquire_lease(match_id, ttl=0.5)  # w1's lease runs
            assert await a.append_action(match_id, 0, {"t": "deal"}, "k0") == "applied"
            with pytest.raises(LeaseLost, match="does not hold its lease"):
                await b.append_action(match_id, 1, {"t": "pass", "seat": 0}, "k1")
            assert await a.renew_leases(ttl=0.5) == [match_id]  # the heartbeat
            await db_clock.advance(0.49)
            assert not await b.acquire_lease(match_id, ttl=30)  # renewed: it runs to the end
            await db_clock.advance(0.02)  # w1 stops beating (its machine died): the lease runs out
            assert await b.acquire_lease(match_id, ttl=30)
            with pytest.raises(LeaseLost):  # w1 comes back and tries to go on: refused, nothing written
                await a.append_action(match_id, 1, {"t": "stale"}, "k-stale")
            assert await a.renew_leases(ttl=30) == []
            assert await b.append_action(match_id, 1, {"t": "pass", "seat": 0}, "k1") == "applied"
            stored = await b.get_match(match_id)
            assert stored is not None and stored.actions == [{"t": "deal"}, {"t": "pass", "seat": 0}]
            assert not await a.seen_key("k-stale")
        finally:
            await a.close()
            await b.close()

    async def test_a_clean_stop_hands_the_table_over_at_once(self, pg_url: str) -> None:
        a = await PostgresStore.open(pg_url, worker="w1")
        b = await PostgresStore.open(pg_url, worker="w2")
        try:
            match_id = await a.create_match("telegram", "-1", RULES, SEATS, 7, {})
            assert await a.acquire_lease(match_id, ttl=60)
            await a.release_lease(match_id)
            assert await b.acquire_lease(match_id, ttl=60)
            with pytest.raises(UnknownMatch):
                await b.acquire_lease(9999, ttl=60)
        finally:
            await a.close()
            await b.close()

    async def test_without_a_worker_name_there_are_no_leases(self, pg: PostgresStore) -> None:
        match_id = await pg.create_match("telegram", "-1", RULES, SEATS, 7, {})
        assert await pg.append_action(match_id, 0, {"t": "deal"}, None) == "applied"
        with pytest.raises(RuntimeError, match="worker name"):
            await pg.acquire_lease(match_id, ttl=1)


async def test_a_worker_takes_many_free_tables_in_one_statement(pg_url: str) -> None:
    a = await PostgresStore.open(pg_url, worker="w1")
    b = await PostgresStore.open(pg_url, worker="w2")
    try:
        ids = [await a.create_match("telegram", f"-{i}", RULES, SEATS, 7, {}) for i in range(4)]
        await a.release_lease(ids[0])
        await a.release_lease(ids[1])
        # w1 still holds 3 and 4; a table that does not exist is skipped
        assert await b.acquire_leases([*ids, 9999], ttl=30) == ids[:2]
        assert await a.acquire_leases(ids, ttl=30) == ids[2:]  # renews its own only
    finally:
        await a.close()
        await b.close()
