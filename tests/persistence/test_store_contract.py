"""The storage contract: one set of tests every store must pass (SQLite, PostgreSQL and in memory).

A new backend joins by adding its opener to `BACKENDS` and its way of
counting rows to `Peek`; the tests themselves speak only the `Store` protocol.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from persistence import BROKEN, ChatHasTable, MatchClosed, SequenceConflict, SqliteStore, Store, UnknownMatch
from persistence.memory import MemoryStore
from persistence.postgres import PostgresStore
from tests.persistence.conftest import RULES, SEATS, FakeClock

BACKENDS: dict[str, Callable[[pytest.FixtureRequest, Path, FakeClock], Awaitable[Store]]] = {
    "sqlite": lambda request, tmp, clock: SqliteStore.open(tmp / "tractor.sqlite3", clock=clock),
    "memory": lambda request, tmp, clock: _memory(clock),
    "postgres": lambda request, tmp, clock: _postgres(request, clock),
}


async def _memory(clock: FakeClock) -> Store:
    return MemoryStore(clock=clock)


async def _postgres(request: pytest.FixtureRequest, clock: FakeClock) -> Store:
    # a fresh database on the session's server; skipped (or failed on CI) without PostgreSQL
    url = request.getfixturevalue("pg_url")
    return await PostgresStore.open(url, clock=clock)


@pytest.fixture(params=sorted(BACKENDS))
async def store(request: pytest.FixtureRequest, tmp_path: Path, clock: FakeClock) -> AsyncIterator[Store]:
    s = await BACKENDS[request.param](request, tmp_path, clock)
    try:
        yield s
    finally:
        await s.close()


class Peek:
    """What a test reads behind the protocol's back: every row a store holds, to see that nothing changed."""

    @staticmethod
    async def action_rows(store: Store) -> list[tuple[Any, ...]]:
        if isinstance(store, SqliteStore | PostgresStore):
            return [tuple(r) for r in await store.fetchall("SELECT * FROM actions ORDER BY match_id, seq")]
        assert isinstance(store, MemoryStore)
        keys = {where: key for key, where in store.keys.items()}
        return [(m.id, seq, a, keys.get((m.id, seq))) for m in store.matches.values() for seq, a in enumerate(m.actions)]

    @staticmethod
    async def count_actions(store: Store) -> int:
        return len(await Peek.action_rows(store))

    @staticmethod
    async def count_matches(store: Store) -> int:
        if isinstance(store, SqliteStore | PostgresStore):
            return int((await store.fetchall("SELECT count(*) FROM matches"))[0][0])
        assert isinstance(store, MemoryStore)
        return len(store.matches)

    @staticmethod
    async def results(store: Store) -> list[tuple[Any, ...]]:
        if isinstance(store, SqliteStore | PostgresStore):
            return [tuple(r) for r in await store.fetchall("SELECT match_id, status FROM results")]
        assert isinstance(store, MemoryStore)
        return [(m.id, m.status) for m in store.matches.values() if m.result is not None]


peek = Peek()


async def _new_match(store: Store, chat: str = "-100", seed: int = 42) -> int:
    return await store.create_match("telegram", chat, RULES, SEATS, seed, {"lang": "zh"})


class TestPlayers:
    async def test_upsert_gives_a_stable_id_and_refreshes_the_name(self, store: Store) -> None:
        first = await store.upsert_player("telegram", "42", "Ann", "zh")
        again = await store.upsert_player("telegram", "42", "Ann B.")
        other = await store.upsert_player("discord", "42", "Ann")
        assert first == again != other
        assert await store.get_player("telegram", "42") == {
            "id": first,
            "platform": "telegram",
            "user_id": "42",
            "name": "Ann B.",
            "language": "zh",  # None keeps the stored language
        }

    async def test_language_can_change(self, store: Store) -> None:
        await store.upsert_player("discord", "7", "Bo", "zh")
        await store.upsert_player("discord", "7", "Bo", "en")
        player = await store.get_player("discord", "7")
        assert player is not None and player["language"] == "en"

    async def test_unknown_player_is_none(self, store: Store) -> None:
        assert await store.get_player("telegram", "nobody") is None


class TestChats:
    async def test_a_chat_never_seen_has_no_settings(self, store: Store) -> None:
        assert await store.get_chat("telegram", "-1") == {}

    async def test_settings_round_trip_and_are_replaced_whole(self, store: Store) -> None:
        await store.set_chat("telegram", "-1", {"preset": "classic", "lang": "zh", "timeouts": {"play": 60}})
        await store.set_chat("telegram", "-2", {"lang": "en"})
        assert await store.get_chat("telegram", "-1") == {
            "preset": "classic",
            "lang": "zh",
            "timeouts": {"play": 60},
        }
        await store.set_chat("telegram", "-1", {"lang": "en", "名": "拖拉机"})
        assert await store.get_chat("telegram", "-1") == {"lang": "en", "名": "拖拉机"}
        assert await store.get_chat("telegram", "-2") == {"lang": "en"}

    async def test_updates_at_once_all_land(self, store: Store) -> None:
        """Each update reads what the one before wrote: none undoes another (two workers' journals)."""
        def adding(n: int) -> Callable[[dict[str, Any]], dict[str, Any]]:
            return lambda settings: {**settings, "seen": sorted([*settings.get("seen", []), n])}

        written = await asyncio.gather(*(store.update_chat("telegram", "-1", adding(n)) for n in range(12)))
        assert await store.get_chat("telegram", "-1") == {"seen": list(range(12))}
        assert {"seen": list(range(12))} in written
        with pytest.raises(TypeError, match="must be a dict"):
            await store.update_chat("telegram", "-1", lambda settings: [])  # type: ignore[arg-type,return-value]
        assert await store.get_chat("telegram", "-1") == {"seen": list(range(12))}

    async def test_bad_settings_are_refused_and_change_nothing(self, store: Store) -> None:
        await store.set_chat("telegram", "-1", {"lang": "zh"})
        with pytest.raises(TypeError, match="must be a dict"):
            await store.set_chat("telegram", "-1", ["lang", "en"])  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="not plain JSON"):
            await store.set_chat("telegram", "-1", {"x": {1, 2}})
        assert await store.get_chat("telegram", "-1") == {"lang": "zh"}


class TestMatches:
    async def test_a_new_match_comes_back_as_created(self, store: Store, clock: FakeClock) -> None:
        match_id = await _new_match(store)
        stored = await store.get_match(match_id)
        assert stored is not None
        assert (stored.platform, stored.chat_id, stored.rules, stored.seats, stored.seed) == (
            "telegram",
            "-100",
            RULES,
            SEATS,
            42,
        )
        assert (stored.meta, stored.status, stored.version, stored.actions) == (
            {"lang": "zh"},
            "active",
            0,
            [],
        )
        assert stored.created_at == stored.updated_at == clock.now
        assert stored.finished_at is None and stored.result is None and stored.error is None

    async def test_unknown_match_is_none(self, store: Store) -> None:
        assert await store.get_match(999) is None

    async def test_bad_input_is_refused_before_anything_is_written(self, store: Store) -> None:
        with pytest.raises(TypeError, match="rules must be a dict"):
            await store.create_match("telegram", "-1", "classic", SEATS, 1, {})  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="not plain JSON"):
            await store.create_match("telegram", "-1", {"x": math.nan}, SEATS, 1, {})
        with pytest.raises(TypeError, match="seed must be an int"):
            await store.create_match("telegram", "-1", RULES, SEATS, "42", {})  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="reserved"):
            await store.create_match("telegram", "-1", RULES, SEATS, 1, {}, status=BROKEN)
        assert await peek.count_matches(store) == 0

    async def test_update_replaces_only_what_is_given(self, store: Store, clock: FakeClock) -> None:
        match_id = await _new_match(store)
        clock.now += 5
        new_seats = [*SEATS[:3], {"seat": 3, "player": 9, "name": "Zed", "ai": False}]
        await store.update_match(match_id, seats=new_seats)
        await store.update_match(match_id, status="paused")
        await store.update_match(match_id, meta={"lang": "en", "paused_by": 1})
        stored = await store.get_match(match_id)
        assert stored is not None
        assert stored.seats == new_seats and stored.status == "paused"
        assert stored.meta == {"lang": "en", "paused_by": 1} and stored.rules == RULES
        assert stored.updated_at == clock.now

    async def test_an_exclusive_match_opens_only_in_a_chat_without_an_open_one(self, store: Store) -> None:
        first = await _new_match(store, chat="-7")
        with pytest.raises(ChatHasTable) as refused:
            await store.create_match("telegram", "-7", RULES, SEATS, 1, {}, exclusive=True)
        assert refused.value.match_id == first
        assert [m.id for m in await store.load_unfinished()] == [first]  # nothing written
        other = await store.create_match("telegram", "-8", RULES, SEATS, 1, {}, exclusive=True)
        await store.finish_match(first, "finished", {})
        again = await store.create_match("telegram", "-7", RULES, SEATS, 1, {}, exclusive=True)
        assert len({first, other, again}) == 3

    async def test_update_of_an_unknown_match_raises(self, store: Store) -> None:
        with pytest.raises(UnknownMatch, match="no match with id 5"):
            await store.update_match(5, status="paused")


class TestAppend:
    async def test_actions_append_in_order_and_raise_the_version(self, store: Store) -> None:
        match_id = await _new_match(store)
        log = [{"t": "deal", "n": 1}, {"t": "declare", "seat": 0, "cards": ["2S"]}, {"t": "pass", "seat": 1}]
        for seq, action in enumerate(log):
            assert await store.append_action(match_id, seq, action, f"k{seq}") == "applied"
        stored = await store.get_match(match_id)
        assert stored is not None and stored.actions == log and stored.version == 3

    async def test_a_repeated_key_is_a_duplicate_and_changes_nothing(self, store: Store) -> None:
        match_id = await _new_match(store)
        await store.append_action(match_id, 0, {"t": "deal", "n": 1}, "tg:cb:1")
        before = await peek.action_rows(store)
        assert await store.append_action(match_id, 1, {"t": "pass", "seat": 0}, "tg:cb:1") == "duplicate"
        assert await store.append_action(match_id, 0, {"t": "deal", "n": 1}, "tg:cb:1") == "duplicate"
        assert await peek.action_rows(store) == before
        stored = await store.get_match(match_id)
        assert stored is not None and stored.version == 1

    async def test_a_key_is_unique_across_matches(self, store: Store) -> None:
        a = await _new_match(store, "-1")
        b = await _new_match(store, "-2")
        await store.append_action(a, 0, {"t": "deal", "n": 1}, "same")
        assert await store.append_action(b, 0, {"t": "deal", "n": 1}, "same") == "duplicate"
        stored = await store.get_match(b)
        assert stored is not None and stored.actions == []

    async def test_a_taken_seq_with_another_action_is_a_conflict(self, store: Store) -> None:
        match_id = await _new_match(store)
        await store.append_action(match_id, 0, {"t": "deal", "n": 1}, "a")
        with pytest.raises(SequenceConflict, match="next seq is 1") as info:
            await store.append_action(match_id, 0, {"t": "close"}, "b")
        assert (info.value.seq, info.value.version) == (0, 1)
        assert not await store.seen_key("b")  # the refused key was not recorded

    async def test_the_same_action_again_without_a_key_is_a_duplicate(self, store: Store) -> None:
        match_id = await _new_match(store)
        await store.append_action(match_id, 0, {"t": "deal", "n": 1}, None)
        assert await store.append_action(match_id, 0, {"t": "deal", "n": 1}, None) == "duplicate"
        with pytest.raises(SequenceConflict):
            await store.append_action(match_id, 0, {"t": "deal", "n": 2}, None)

    async def test_skipping_a_seq_is_refused_so_the_log_has_no_gap(self, store: Store) -> None:
        match_id = await _new_match(store)
        with pytest.raises(SequenceConflict, match="cannot append seq 1"):
            await store.append_action(match_id, 1, {"t": "deal", "n": 1}, None)
        assert await peek.count_actions(store) == 0

    async def test_bad_actions_are_refused_and_change_nothing(self, store: Store) -> None:
        match_id = await _new_match(store)
        with pytest.raises(TypeError, match="action must be a dict"):
            await store.append_action(match_id, 0, [1, 2], None)  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="not plain JSON"):
            await store.append_action(match_id, 0, {"cards": object()}, "k")
        with pytest.raises(ValueError, match="seq must be an int"):
            await store.append_action(match_id, -1, {"t": "deal"}, "k")
        assert await peek.count_actions(store) == 0
        assert not await store.seen_key("k")

    async def test_appending_to_an_unknown_or_finished_match_is_refused(self, store: Store) -> None:
        with pytest.raises(UnknownMatch):
            await store.append_action(404, 0, {"t": "deal", "n": 1}, None)
        match_id = await _new_match(store)
        await store.finish_match(match_id, "abandoned", {"reason": "abandon"})
        with pytest.raises(MatchClosed, match="finished"):
            await store.append_action(match_id, 0, {"t": "deal", "n": 1}, "late")

    async def test_concurrent_writers_of_one_seq_get_exactly_one_applied(self, store: Store) -> None:
        match_id = await _new_match(store)
        attempts = [
            store.append_action(match_id, 0, {"t": "play", "seat": i, "cards": ["AS"]}, f"k{i}")
            for i in range(8)
        ]
        outcomes = await asyncio.gather(*attempts, return_exceptions=True)
        assert sum(o == "applied" for o in outcomes) == 1
        assert sum(isinstance(o, SequenceConflict) for o in outcomes) == 7
        assert await peek.count_actions(store) == 1


class TestKeys:
    async def test_an_event_key_is_seen_once_its_action_is_kept_and_only_then(self, store: Store) -> None:
        match_id = await _new_match(store)
        assert not await store.seen_key("tg:upd:1")
        assert await store.append_action(match_id, 0, {"t": "deal", "n": 1}, "tg:upd:1") == "applied"
        assert await store.seen_key("tg:upd:1")
        other = await _new_match(store, "-2")
        assert await store.append_action(other, 0, {"t": "deal", "n": 1}, "tg:upd:1") == "duplicate"


class TestTimersMessagesResults:
    async def test_deadlines_are_set_replaced_and_cleared(self, store: Store) -> None:
        match_id = await _new_match(store)
        await store.set_deadline(match_id, "turn", 100.5)
        await store.set_deadline(match_id, "declare", 90.0)
        await store.set_deadline(match_id, "turn", 130.25)
        await store.set_deadline(match_id, "declare", None)
        stored = await store.get_match(match_id)
        assert stored is not None and stored.deadlines == {"turn": 130.25}

    async def test_messages_are_set_replaced_and_cleared(self, store: Store) -> None:
        match_id = await _new_match(store)
        await store.set_message(match_id, "table", "1001")
        await store.set_message(match_id, "hand:2", "55")
        await store.set_message(match_id, "table", "1002")
        await store.set_message(match_id, "hand:2", None)
        stored = await store.get_match(match_id)
        assert stored is not None and stored.messages == {"table": "1002"}

    async def test_timers_and_messages_need_a_real_match(self, store: Store) -> None:
        with pytest.raises(UnknownMatch):
            await store.set_deadline(77, "turn", 1.0)
        with pytest.raises(UnknownMatch):
            await store.set_message(77, "table", "1")

    async def test_finishing_keeps_the_result_and_takes_the_match_off_the_resume_list(
        self, store: Store, clock: FakeClock
    ) -> None:
        done = await _new_match(store, "-1")
        open_ = await _new_match(store, "-2")
        await store.append_action(done, 0, {"t": "deal", "n": 1}, None)
        await store.set_deadline(done, "turn", 5.0)
        clock.now += 60
        await store.finish_match(done, "finished", {"winner_team": 1, "levels": ["5", "A"]})
        assert [m.id for m in await store.load_unfinished()] == [open_]
        stored = await store.get_match(done)
        assert stored is not None
        assert stored.status == "finished" and stored.finished_at == clock.now
        assert stored.result == {"winner_team": 1, "levels": ["5", "A"]}
        assert stored.deadlines == {} and stored.actions == [{"t": "deal", "n": 1}]
        assert await peek.results(store) == [(done, "finished")]

    async def test_finishing_an_unknown_match_raises(self, store: Store) -> None:
        with pytest.raises(UnknownMatch):
            await store.finish_match(3, "finished", {})


class TestLoadUnfinished:
    async def test_every_open_match_comes_back_with_its_own_log(self, store: Store) -> None:
        ids = [await _new_match(store, f"-{i}", seed=i) for i in range(5)]
        for n, match_id in enumerate(ids):
            for seq in range(n):
                await store.append_action(match_id, seq, {"t": "deal", "n": seq + 1, "m": match_id}, None)
            await store.set_message(match_id, "table", f"msg{n}")
            await store.set_deadline(match_id, "turn", float(n))
        loaded = await store.load_unfinished()
        assert [m.id for m in loaded] == ids
        for n, stored in enumerate(loaded):
            assert stored.seed == n and stored.chat_id == f"-{n}"
            assert stored.actions == [{"t": "deal", "n": s + 1, "m": stored.id} for s in range(n)]
            assert stored.messages == {"table": f"msg{n}"} and stored.deadlines == {"turn": float(n)}
            assert stored.error is None

    async def test_broken_matches_are_left_out_unless_asked_for(self, store: Store) -> None:
        ok = await _new_match(store, "-1")
        bad = await _new_match(store, "-2")
        await store.update_match(bad, status="paused")
        await store.mark_broken(bad, "action seq 3 refused")
        assert [m.id for m in await store.load_unfinished()] == [ok]
        everything = await store.load_unfinished(include_broken=True)
        assert [m.id for m in everything] == [ok, bad]
        assert everything[1].status == BROKEN
        assert everything[1].meta["broken"] == "action seq 3 refused"
        assert everything[1].meta["status_before_broken"] == "paused"
