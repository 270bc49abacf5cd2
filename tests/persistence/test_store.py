"""SqliteStore: what goes in comes out; appends are atomic, ordered and idempotent."""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import sqlite3
from pathlib import Path

import pytest

from persistence import BROKEN, MatchClosed, SequenceConflict, SqliteStore, Store, UnknownMatch
from tests.persistence.conftest import RULES, SEATS, FakeClock


async def _new_match(store: SqliteStore, chat: str = "-100", seed: int = 42) -> int:
    return await store.create_match("telegram", chat, RULES, SEATS, seed, {"lang": "zh"})


async def _rows(store: SqliteStore, sql: str) -> list[tuple[object, ...]]:
    return [tuple(r) for r in await store.fetchall(sql)]


class TestPlayers:
    async def test_upsert_gives_a_stable_id_and_refreshes_the_name(self, store: SqliteStore) -> None:
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

    async def test_language_can_change(self, store: SqliteStore) -> None:
        await store.upsert_player("discord", "7", "Bo", "zh")
        await store.upsert_player("discord", "7", "Bo", "en")
        player = await store.get_player("discord", "7")
        assert player is not None and player["language"] == "en"

    async def test_unknown_player_is_none(self, store: SqliteStore) -> None:
        assert await store.get_player("telegram", "nobody") is None


class TestChats:
    async def test_a_chat_never_seen_has_no_settings(self, store: SqliteStore) -> None:
        assert await store.get_chat("telegram", "-1") == {}

    async def test_settings_round_trip_and_are_replaced_whole(self, store: SqliteStore) -> None:
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

    async def test_bad_settings_are_refused_and_change_nothing(self, store: SqliteStore) -> None:
        await store.set_chat("telegram", "-1", {"lang": "zh"})
        with pytest.raises(TypeError, match="must be a dict"):
            await store.set_chat("telegram", "-1", ["lang", "en"])  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="not plain JSON"):
            await store.set_chat("telegram", "-1", {"x": {1, 2}})
        assert await store.get_chat("telegram", "-1") == {"lang": "zh"}

    async def test_upsert_chat_gives_a_stable_row_id(self, store: SqliteStore) -> None:
        a = await store.upsert_chat("telegram", "-1")
        await store.set_chat("telegram", "-1", {"lang": "en"})
        assert await store.upsert_chat("telegram", "-1") == a
        assert await store.upsert_chat("discord", "-1") != a


class TestMatches:
    async def test_a_new_match_comes_back_as_created(self, store: SqliteStore, clock: FakeClock) -> None:
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

    async def test_unknown_match_is_none(self, store: SqliteStore) -> None:
        assert await store.get_match(999) is None

    async def test_bad_input_is_refused_before_anything_is_written(self, store: SqliteStore) -> None:
        with pytest.raises(TypeError, match="rules must be a dict"):
            await store.create_match("telegram", "-1", "classic", SEATS, 1, {})  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="not plain JSON"):
            await store.create_match("telegram", "-1", {"x": math.nan}, SEATS, 1, {})
        with pytest.raises(TypeError, match="seed must be an int"):
            await store.create_match("telegram", "-1", RULES, SEATS, "42", {})  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="reserved"):
            await store.create_match("telegram", "-1", RULES, SEATS, 1, {}, status=BROKEN)
        assert await _rows(store, "SELECT count(*) FROM matches") == [(0,)]

    async def test_update_replaces_only_what_is_given(self, store: SqliteStore, clock: FakeClock) -> None:
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

    async def test_update_of_an_unknown_match_raises(self, store: SqliteStore) -> None:
        with pytest.raises(UnknownMatch, match="no match with id 5"):
            await store.update_match(5, status="paused")

    async def test_list_matches_of_a_chat(self, store: SqliteStore) -> None:
        a = await _new_match(store, "-1")
        b = await _new_match(store, "-1")
        await _new_match(store, "-2")
        await store.finish_match(a, "finished", {"winner_team": 0})
        assert [m["id"] for m in await store.list_matches("telegram", "-1")] == [b, a]
        assert [m["id"] for m in await store.list_matches("telegram", "-1", unfinished_only=True)] == [b]


class TestAppend:
    async def test_actions_append_in_order_and_raise_the_version(self, store: SqliteStore) -> None:
        match_id = await _new_match(store)
        log = [{"t": "deal", "n": 1}, {"t": "declare", "seat": 0, "cards": ["2S"]}, {"t": "pass", "seat": 1}]
        for seq, action in enumerate(log):
            assert await store.append_action(match_id, seq, action, f"k{seq}") == "applied"
        stored = await store.get_match(match_id)
        assert stored is not None and stored.actions == log and stored.version == 3

    async def test_a_repeated_key_is_a_duplicate_and_changes_nothing(self, store: SqliteStore) -> None:
        match_id = await _new_match(store)
        await store.append_action(match_id, 0, {"t": "deal", "n": 1}, "tg:cb:1")
        before = await _rows(store, "SELECT * FROM actions")
        assert await store.append_action(match_id, 1, {"t": "pass", "seat": 0}, "tg:cb:1") == "duplicate"
        assert await store.append_action(match_id, 0, {"t": "deal", "n": 1}, "tg:cb:1") == "duplicate"
        assert await _rows(store, "SELECT * FROM actions") == before
        stored = await store.get_match(match_id)
        assert stored is not None and stored.version == 1

    async def test_a_key_is_unique_across_matches(self, store: SqliteStore) -> None:
        a = await _new_match(store, "-1")
        b = await _new_match(store, "-2")
        await store.append_action(a, 0, {"t": "deal", "n": 1}, "same")
        assert await store.append_action(b, 0, {"t": "deal", "n": 1}, "same") == "duplicate"
        stored = await store.get_match(b)
        assert stored is not None and stored.actions == []

    async def test_a_taken_seq_with_another_action_is_a_conflict(self, store: SqliteStore) -> None:
        match_id = await _new_match(store)
        await store.append_action(match_id, 0, {"t": "deal", "n": 1}, "a")
        with pytest.raises(SequenceConflict, match="next seq is 1") as info:
            await store.append_action(match_id, 0, {"t": "close"}, "b")
        assert (info.value.seq, info.value.version) == (0, 1)
        assert not await store.seen_key("b")  # the refused key was not recorded

    async def test_the_same_action_again_without_a_key_is_a_duplicate(self, store: SqliteStore) -> None:
        match_id = await _new_match(store)
        await store.append_action(match_id, 0, {"t": "deal", "n": 1}, None)
        assert await store.append_action(match_id, 0, {"t": "deal", "n": 1}, None) == "duplicate"
        with pytest.raises(SequenceConflict):
            await store.append_action(match_id, 0, {"t": "deal", "n": 2}, None)

    async def test_skipping_a_seq_is_refused_so_the_log_has_no_gap(self, store: SqliteStore) -> None:
        match_id = await _new_match(store)
        with pytest.raises(SequenceConflict, match="cannot append seq 1"):
            await store.append_action(match_id, 1, {"t": "deal", "n": 1}, None)
        assert await _rows(store, "SELECT count(*) FROM actions") == [(0,)]

    async def test_bad_actions_are_refused_and_change_nothing(self, store: SqliteStore) -> None:
        match_id = await _new_match(store)
        with pytest.raises(TypeError, match="action must be a dict"):
            await store.append_action(match_id, 0, [1, 2], None)  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="not plain JSON"):
            await store.append_action(match_id, 0, {"cards": object()}, "k")
        with pytest.raises(ValueError, match="seq must be an int"):
            await store.append_action(match_id, -1, {"t": "deal"}, "k")
        assert await _rows(store, "SELECT count(*) FROM actions") == [(0,)]
        assert not await store.seen_key("k")

    async def test_appending_to_an_unknown_or_finished_match_is_refused(self, store: SqliteStore) -> None:
        with pytest.raises(UnknownMatch):
            await store.append_action(404, 0, {"t": "deal", "n": 1}, None)
        match_id = await _new_match(store)
        await store.finish_match(match_id, "abandoned", {"reason": "abandon"})
        with pytest.raises(MatchClosed, match="finished"):
            await store.append_action(match_id, 0, {"t": "deal", "n": 1}, "late")

    async def test_concurrent_writers_of_one_seq_get_exactly_one_applied(self, store: SqliteStore) -> None:
        match_id = await _new_match(store)
        attempts = [
            store.append_action(match_id, 0, {"t": "play", "seat": i, "cards": ["AS"]}, f"k{i}")
            for i in range(8)
        ]
        outcomes = await asyncio.gather(*attempts, return_exceptions=True)
        assert sum(o == "applied" for o in outcomes) == 1
        assert sum(isinstance(o, SequenceConflict) for o in outcomes) == 7
        assert await _rows(store, "SELECT count(*) FROM actions") == [(1,)]

    async def test_two_connections_to_one_file_cannot_both_take_a_seq(self, tmp_path: Path) -> None:
        path = tmp_path / "shared.sqlite3"
        one = await SqliteStore.open(path)
        two = await SqliteStore.open(path)
        try:
            match_id = await _new_match(one)
            assert await one.append_action(match_id, 0, {"t": "deal", "n": 1}, "one") == "applied"
            with pytest.raises(SequenceConflict):
                await two.append_action(match_id, 0, {"t": "close"}, "two")
            assert await two.append_action(match_id, 0, {"t": "deal", "n": 1}, "one") == "duplicate"
            assert await two.append_action(match_id, 1, {"t": "close"}, "two") == "applied"
            stored = await one.get_match(match_id)
            assert stored is not None and stored.actions == [{"t": "deal", "n": 1}, {"t": "close"}]
        finally:
            await one.close()
            await two.close()

    async def test_actions_are_stored_as_compact_json(self, store: SqliteStore) -> None:
        match_id = await _new_match(store)
        action = {"t": "play", "seat": 2, "cards": ["BJ", "SJ"], "note": "大王"}
        await store.append_action(match_id, 0, action, None)
        (row,) = await _rows(store, "SELECT action FROM actions")
        assert json.loads(str(row[0])) == action and " " not in str(row[0])


class TestKeys:
    async def test_keys_of_non_action_events_are_remembered_once(self, store: SqliteStore) -> None:
        assert not await store.seen_key("tg:upd:1")
        assert await store.remember_key("tg:upd:1") is True
        assert await store.remember_key("tg:upd:1") is False
        assert await store.seen_key("tg:upd:1")

    async def test_a_remembered_key_makes_an_append_a_duplicate(self, store: SqliteStore) -> None:
        match_id = await _new_match(store)
        await store.remember_key("k")
        assert await store.append_action(match_id, 0, {"t": "deal", "n": 1}, "k") == "duplicate"
        match_key_used = await _new_match(store, "-2")
        await store.append_action(match_key_used, 0, {"t": "deal", "n": 1}, "k2")
        assert await store.remember_key("k2") is False

    async def test_old_remembered_keys_can_be_forgotten(self, store: SqliteStore, clock: FakeClock) -> None:
        await store.remember_key("old")
        clock.now += 100
        await store.remember_key("new")
        assert await store.forget_keys(older_than=clock.now - 50) == 1
        assert not await store.seen_key("old") and await store.seen_key("new")


class TestTimersMessagesResults:
    async def test_deadlines_are_set_replaced_and_cleared(self, store: SqliteStore) -> None:
        match_id = await _new_match(store)
        await store.set_deadline(match_id, "turn", 100.5)
        await store.set_deadline(match_id, "declare", 90.0)
        await store.set_deadline(match_id, "turn", 130.25)
        await store.set_deadline(match_id, "declare", None)
        stored = await store.get_match(match_id)
        assert stored is not None and stored.deadlines == {"turn": 130.25}

    async def test_messages_are_set_replaced_and_cleared(self, store: SqliteStore) -> None:
        match_id = await _new_match(store)
        await store.set_message(match_id, "table", "1001")
        await store.set_message(match_id, "hand:2", "55")
        await store.set_message(match_id, "table", "1002")
        await store.set_message(match_id, "hand:2", None)
        stored = await store.get_match(match_id)
        assert stored is not None and stored.messages == {"table": "1002"}

    async def test_timers_and_messages_need_a_real_match(self, store: SqliteStore) -> None:
        with pytest.raises(UnknownMatch):
            await store.set_deadline(77, "turn", 1.0)
        with pytest.raises(UnknownMatch):
            await store.set_message(77, "table", "1")

    async def test_finishing_keeps_the_result_and_takes_the_match_off_the_resume_list(
        self, store: SqliteStore, clock: FakeClock
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
        assert await _rows(store, "SELECT match_id, status FROM results") == [(done, "finished")]

    async def test_finishing_an_unknown_match_raises(self, store: SqliteStore) -> None:
        with pytest.raises(UnknownMatch):
            await store.finish_match(3, "finished", {})


class TestLoadUnfinished:
    async def test_every_open_match_comes_back_with_its_own_log(self, store: SqliteStore) -> None:
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

    async def test_broken_matches_are_left_out_unless_asked_for(self, store: SqliteStore) -> None:
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

    async def test_a_failed_transaction_leaves_nothing_behind(self, store: SqliteStore) -> None:
        match_id = await _new_match(store)
        with pytest.raises(RuntimeError):
            async with store.transaction() as conn:
                await conn.execute(
                    "INSERT INTO actions (match_id, seq, action, key, at) VALUES (?, 0, '{}', NULL, 0)",
                    (match_id,),
                )
                raise RuntimeError("boom")
        assert await _rows(store, "SELECT count(*) FROM actions") == [(0,)]
        assert await store.append_action(match_id, 0, {"t": "deal", "n": 1}, None) == "applied"


def _satisfies_the_port(store: SqliteStore) -> Store:
    """mypy checks here that SqliteStore offers everything the Store protocol promises."""
    return store


async def test_two_processes_worth_of_writers_share_one_file(tmp_path: Path) -> None:
    """Separate connections appending at once wait for each other (busy timeout) instead of failing."""
    path = tmp_path / "shared.sqlite3"
    stores = [await SqliteStore.open(path, synchronous="NORMAL") for _ in range(3)]
    try:
        ids = [await s.create_match("telegram", f"-{i}", RULES, SEATS, i, {}) for i, s in enumerate(stores)]

        async def write(store: SqliteStore, match_id: int) -> None:
            for seq in range(40):
                assert (
                    await store.append_action(match_id, seq, {"t": "deal", "n": seq}, f"{match_id}:{seq}")
                    == "applied"
                )

        await asyncio.gather(*(write(s, m) for s, m in zip(stores, ids, strict=True)))
        loaded = await stores[0].load_unfinished()
        assert [len(m.actions) for m in loaded] == [40, 40, 40]
    finally:
        for s in stores:
            await s.close()


async def test_tasks_cancelled_mid_transaction_do_not_wedge_the_store(tmp_path: Path) -> None:
    """The host cancels table tasks on stop; a cancel at any await must leave the connection usable."""
    path = tmp_path / "c.sqlite3"
    store = await SqliteStore.open(path, synchronous="NORMAL")
    try:
        match_id = await _new_match(store)
        for i in range(120):
            chores = (
                lambda n=i: store.set_chat("telegram", "-1", {"i": n}),
                store.load_unfinished,
                lambda: store.get_match(match_id),
            )
            task = asyncio.ensure_future(chores[i % 3]())
            for _ in range(i % 6):
                await asyncio.sleep(0)
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        assert await store.append_action(match_id, 0, {"t": "deal", "n": 1}, "after") == "applied"
        other = sqlite3.connect(path)
        try:
            assert other.execute("SELECT count(*) FROM actions").fetchone() == (
                1,
            )  # committed, not stuck open
        finally:
            other.close()
    finally:
        await store.close()


async def test_an_in_memory_store_works_for_throwaway_tables() -> None:
    store = await SqliteStore.open(":memory:")
    try:
        match_id = await _new_match(store)
        assert await store.append_action(match_id, 0, {"t": "deal", "n": 1}, "k") == "applied"
        assert [m.actions for m in await store.load_unfinished()] == [[{"t": "deal", "n": 1}]]
    finally:
        await store.close()


async def test_an_unknown_synchronous_mode_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="synchronous must be"):
        await SqliteStore.open(tmp_path / "x.sqlite3", synchronous="SOMETIMES")  # type: ignore[arg-type]
    assert not (tmp_path / "x.sqlite3").exists()


async def test_a_store_call_inside_a_transaction_is_refused_not_deadlocked(store: SqliteStore) -> None:
    with pytest.raises(RuntimeError, match=r"inside store\.transaction"):
        async with store.transaction():
            await store.get_chat("telegram", "-1")
    await store.set_chat("telegram", "-1", {"lang": "en"})  # the store is fine afterwards
    assert await store.get_chat("telegram", "-1") == {"lang": "en"}
