"""The tournament table on SQLite and PostgreSQL: one JSON document per tournament, a chat's live one."""

from __future__ import annotations

import pytest

from persistence import SqliteStore
from persistence.postgres import PostgresStore
from persistence.tournament_store import TournamentStore

STATE = {"fmt": "knockout", "entrants": [{"no": 1, "name": "张三队", "members": [["u1", "张三"]]}]}


@pytest.fixture
def tours(sql_store: SqliteStore | PostgresStore) -> TournamentStore:
    return TournamentStore.of(sql_store)


class TestTournamentStore:
    """Every test on SQLite and on PostgreSQL (`sql_store`)."""

    async def test_create_save_and_find(self, tours: TournamentStore) -> None:
        assert await tours.live("telegram", "g1") is None and await tours.latest("telegram", "g1") is None
        tid = await tours.create("telegram", "g1", "open", STATE)
        got = await tours.get(tid)
        assert got is not None and got.state == STATE and got.status == "open"
        await tours.save(tid, "running", {**STATE, "id": tid})
        live = await tours.live("telegram", "g1")
        assert live is not None and live.id == tid and live.state["id"] == tid
        assert [r.id for r in await tours.all_running()] == [tid]
        await tours.save(tid, "finished", STATE)
        assert await tours.live("telegram", "g1") is None
        latest = await tours.latest("telegram", "g1")
        assert latest is not None and latest.status == "finished"
        assert await tours.all_running() == [] and await tours.get(tid + 99) is None

    async def test_chats_are_apart(self, tours: TournamentStore) -> None:
        a = await tours.create("telegram", "g1", "open", STATE)
        b = await tours.create("discord", "g1", "open", STATE)
        assert a != b
        got = await tours.live("discord", "g1")
        assert got is not None and got.id == b
