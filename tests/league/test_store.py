"""League rows in SQLite: seasons, idempotent recording, identity across chats."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.league.records import MatchRecord
from persistence.league_store import LeagueStore
from persistence.migrate import schema_version
from persistence.store import SqliteStore
from tests.league.sim import SEASON, match


class TestLeagueStore:
    async def test_new_league_starts_at_season_one(self, store: LeagueStore) -> None:
        info = await store.league("telegram", "g1")
        assert (info.season, info.method) == (1, "rating")

    async def test_recording_is_idempotent_and_round_trips(self, store: LeagueStore) -> None:
        assert await store.add_match(SEASON[0].to_dict())
        assert not await store.add_match(SEASON[0].to_dict())
        got = await store.matches("telegram", "g1")
        assert [MatchRecord.from_dict(d) for d in got] == [SEASON[0]]

    async def test_seasons_split_matches(self, store: LeagueStore) -> None:
        for r in SEASON[:2]:
            await store.add_match(r.to_dict())
        assert await store.new_season("telegram", "g1", "uadmin") == 2
        for r in SEASON[2:]:
            await store.add_match(r.to_dict())
        ids = lambda ds: [d["match_id"] for d in ds]  # noqa: E731
        assert ids(await store.matches("telegram", "g1", 1)) == [1, 2]
        assert ids(await store.matches("telegram", "g1", 2)) == [3, 4, 5]
        assert ids(await store.matches("telegram", "g1")) == [1, 2, 3, 4, 5]
        assert ids(await store.recent("telegram", "g1", 2)) == [5, 4]
        assert (await store.league("telegram", "g1")).season == 2

    async def test_player_identity_across_chats_of_one_platform(self, store: LeagueStore) -> None:
        await store.add_match(match(1, ("A", "B"), ("C", "D"), 0, (12, 5), chat_id="g1").to_dict())
        await store.add_match(match(2, ("A", "E"), ("F", "G"), 1, (4, 12), chat_id="g2").to_dict())
        await store.add_match(
            match(3, ("A", "E"), ("F", "G"), 1, (4, 12), chat_id="g2", platform="discord").to_dict()
        )
        mine = await store.player_matches("telegram", "uA")
        assert [(d["chat_id"], d["match_id"]) for d in mine] == [("g1", 1), ("g2", 2)]
        assert [d["match_id"] for d in await store.player_matches("discord", "uA")] == [3]

    async def test_ai_seats_are_not_indexed_as_players(self, store: LeagueStore) -> None:
        await store.add_match(match(1, ("A", "ai"), ("ai", "D"), 0, (12, 5)).to_dict())
        assert await store.player_matches("telegram", "") == []

    async def test_method_and_shown_positions(self, store: LeagueStore) -> None:
        await store.set_method("telegram", "g1", "bigsmall")
        assert (await store.league("telegram", "g1")).method == "bigsmall"
        assert await store.shown_positions("telegram", "g1", "all", "bigsmall") == {}
        await store.save_shown_positions("telegram", "g1", "all", "bigsmall", {"uA": 1, "uB": 2})
        await store.save_shown_positions("telegram", "g1", "all", "bigsmall", {"uA": 2, "uB": 1})
        assert await store.shown_positions("telegram", "g1", "all", "bigsmall") == {"uA": 2, "uB": 1}

    async def test_league_tables_come_with_the_host_store(self, tmp_path: Path) -> None:
        host = await SqliteStore.open(tmp_path / "host.sqlite3")
        try:
            assert await schema_version(host._conn) >= 2
            league = LeagueStore.of(host)
            assert LeagueStore.of(league) is league
            await host.upsert_player("telegram", "uA", "A")
            assert await league.add_match(SEASON[0].to_dict())
            assert [d["match_id"] for d in await league.player_matches("telegram", "uA")] == [1]
        finally:
            await host.close()
        with pytest.raises(TypeError):
            LeagueStore.of(object())
