"""SqliteStore's own behaviour (SQL rows, files, connections, transactions); what every store does is in test_store_contract.py."""

from __future__ import annotations

import asyncio
import contextlib
import json
import sqlite3
from pathlib import Path

import pytest

from persistence import SequenceConflict, SqliteStore, Store
from tests.persistence.conftest import RULES, SEATS


async def _new_match(store: SqliteStore, chat: str = "-100", seed: int = 42) -> int:
    return await store.create_match("telegram", chat, RULES, SEATS, seed, {"lang": "zh"})


async def _rows(store: SqliteStore, sql: str) -> list[tuple[object, ...]]:
    return [tuple(r) for r in await store.fetchall(sql)]


class TestMatches:
    async def test_list_matches_of_a_chat(self, store: SqliteStore) -> None:
        a = await _new_match(store, "-1")
        b = await _new_match(store, "-1")
        await _new_match(store, "-2")
        await store.finish_match(a, "finished", {"winner_team": 0})
        assert [m["id"] for m in await store.list_matches("telegram", "-1")] == [b, a]
        assert [m["id"] for m in await store.list_matches("telegram", "-1", unfinished_only=True)] == [b]


class TestAppend:
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


class TestLoadUnfinished:
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
