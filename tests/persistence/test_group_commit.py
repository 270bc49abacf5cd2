"""Group commit: appends from many tables share a transaction, each caller still gets its own answer."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path
from typing import Any

import pytest

import persistence.store as store_mod
from persistence import SqliteStore
from persistence.errors import MatchClosed, SequenceConflict, UnknownMatch
from tests.persistence.conftest import RULES, SEATS


async def new_match(store: SqliteStore, chat: str) -> int:
    return await store.create_match("telegram", chat, RULES, SEATS, 1, {})


def act(i: int) -> dict[str, Any]:
    return {"t": "play", "seat": i % 4, "cards": [f"{i}"]}


async def test_many_tables_appends_share_commits_and_all_land_in_order(store: SqliteStore, tmp_path: Path) -> None:
    ids = [await new_match(store, str(-i)) for i in range(1, 21)]

    async def table(mid: int) -> list[str]:
        return [await store.append_action(mid, seq, act(seq), f"{mid}-{seq}") for seq in range(15)]

    results = await asyncio.gather(*(table(mid) for mid in ids))
    assert all(r == ["applied"] * 15 for r in results)
    assert store.stats.appends == 300
    assert store.stats.batches < 300 / 5  # about one commit per round of the 20 tables
    assert store.stats.largest_batch >= 10
    # committed: another connection sees every action, each log whole and in order
    other = sqlite3.connect(tmp_path / "tractor.sqlite3")
    try:
        for mid in ids:
            rows = other.execute("SELECT seq, key FROM actions WHERE match_id = ? ORDER BY seq", (mid,)).fetchall()
            assert rows == [(seq, f"{mid}-{seq}") for seq in range(15)]
            assert other.execute("SELECT version FROM matches WHERE id = ?", (mid,)).fetchone() == (15,)
    finally:
        other.close()


async def test_one_batch_gives_each_caller_what_it_would_have_got_alone(store: SqliteStore) -> None:
    m1, m2, closed = [await new_match(store, c) for c in ("-1", "-2", "-3")]
    await store.append_action(closed, 0, act(0), "c0")
    await store.finish_match(closed, "finished", {})
    before = store.stats.batches
    results = await asyncio.gather(
        store.append_action(m1, 0, act(0), "a"),  # applied
        store.append_action(m1, 0, act(1), "b"),  # seq 0 now taken by another action
        store.append_action(m1, 1, act(2), "a"),  # key seen in this very batch
        store.append_action(m1, 1, act(3), None),  # applied (after the first)
        store.append_action(m1, 1, act(3), None),  # the same system action again: duplicate
        store.append_action(m2, 5, act(0), "x"),  # a gap
        store.append_action(9999, 0, act(0), "y"),
        store.append_action(closed, 1, act(1), "z"),
        store.append_action(m2, 0, act(0), "w"),  # applied
        return_exceptions=True,
    )
    assert store.stats.batches == before + 1  # all nine in one transaction
    assert results[0] == "applied"
    assert isinstance(results[1], SequenceConflict)
    assert results[2] == "duplicate"
    assert results[3] == "applied"
    assert results[4] == "duplicate"
    assert isinstance(results[5], SequenceConflict)
    assert isinstance(results[6], UnknownMatch)
    assert isinstance(results[7], MatchClosed)
    assert results[8] == "applied"
    s1, s2 = await store.get_match(m1), await store.get_match(m2)
    assert s1 is not None and s1.actions == [act(0), act(3)] and s1.version == 2
    assert s2 is not None and s2.actions == [act(0)]


async def test_a_failing_statement_rolls_the_batch_back_and_each_append_is_tried_alone(
        store: SqliteStore, monkeypatch: pytest.MonkeyPatch) -> None:
    ids = [await new_match(store, str(-i)) for i in range(1, 5)]
    real = store_mod._append_one
    failed: list[int] = []

    def flaky(conn: sqlite3.Connection, a: Any) -> Any:
        out = real(conn, a)  # written inside the batch's transaction ...
        if a.match_id == ids[2] and not failed:
            failed.append(a.match_id)
            raise sqlite3.OperationalError("disk I/O error")  # ... then the batch fails
        return out

    monkeypatch.setattr(store_mod, "_append_one", flaky)
    results = await asyncio.gather(*(store.append_action(mid, 0, act(0), f"k{mid}") for mid in ids),
                                   return_exceptions=True)
    assert failed and results == ["applied"] * 4  # tried again one by one, each on its own
    for mid in ids:
        stored = await store.get_match(mid)
        assert stored is not None and stored.actions == [act(0)] and stored.version == 1


async def test_an_append_that_fails_alone_fails_only_its_caller(
        store: SqliteStore, monkeypatch: pytest.MonkeyPatch) -> None:
    ids = [await new_match(store, str(-i)) for i in range(1, 4)]
    real = store_mod._append_one

    def broken_for_one(conn: sqlite3.Connection, a: Any) -> Any:
        if a.match_id == ids[1]:
            raise sqlite3.OperationalError("database or disk is full")
        return real(conn, a)

    monkeypatch.setattr(store_mod, "_append_one", broken_for_one)
    results = await asyncio.gather(*(store.append_action(mid, 0, act(0), f"k{mid}") for mid in ids),
                                   return_exceptions=True)
    assert results[0] == results[2] == "applied"
    assert isinstance(results[1], sqlite3.OperationalError)
    stored = await store.get_match(ids[1])
    assert stored is not None and stored.actions == [] and stored.version == 0


async def test_close_writes_the_appends_still_waiting(tmp_path: Path) -> None:
    path = tmp_path / "t.sqlite3"
    store = await SqliteStore.open(path)
    mid = await new_match(store, "-1")
    others = [await new_match(store, str(-i)) for i in range(2, 6)]
    pending = [asyncio.ensure_future(store.append_action(m, 0, act(0), f"k{m}")) for m in [mid, *others]]
    await asyncio.sleep(0)
    await store.close()
    assert [await p for p in pending] == ["applied"] * 5
    again = await SqliteStore.open(path)
    try:
        for m in [mid, *others]:
            stored = await again.get_match(m)
            assert stored is not None and stored.version == 1
    finally:
        await again.close()
