"""Random sequences of store calls against a plain-Python model of what they must do, for every store
(SQLite, PostgreSQL, in memory)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import asyncpg
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from persistence import MatchClosed, SequenceConflict, SqliteStore, Store, UnknownMatch
from persistence.memory import MemoryStore
from persistence.postgres import PostgresStore
from tests.persistence.pg_server import PgServer

ACTIONS = [{"t": "deal", "n": 4}, {"t": "play", "seat": 2, "cards": ["AS"]}]
NAMED_KEYS = [f"k{i}" for i in range(10)]
KEYS: list[str | None] = [None, *NAMED_KEYS]


@dataclass
class ModelMatch:
    log: list[dict[str, Any]] = field(default_factory=list)
    finished: bool = False


@dataclass
class Model:
    """What the store must answer, written the simplest way."""

    matches: list[ModelMatch] = field(default_factory=list)
    keys: set[str] = field(default_factory=set)

    def append(self, index: int, seq: int, action: dict[str, Any], key: str | None) -> str:
        if key is not None and key in self.keys:
            return "duplicate"
        if index >= len(self.matches):
            return "UnknownMatch"
        match = self.matches[index]
        if seq < len(match.log):
            return "duplicate" if key is None and match.log[seq] == action else "SequenceConflict"
        if match.finished:
            return "MatchClosed"
        if seq > len(match.log):
            return "SequenceConflict"
        match.log.append(action)
        if key is not None:
            self.keys.add(key)
        return "applied"



_append = st.tuples(
    st.just("append"),
    st.integers(0, 3),  # matches 0 and 1 exist from the start; 2 and 3 only once created
    st.sampled_from([0, 0, -1, 1]),  # next seq mostly; a taken one; a gap
    st.sampled_from(range(len(ACTIONS))),
    st.sampled_from(KEYS),
)
# Appends are listed several times so that they make up most of a run.
operation = st.one_of(
    st.tuples(st.just("create")),
    _append,
    _append,
    _append,
    _append,
    st.tuples(st.just("finish"), st.integers(0, 3)),
)


async def _open(backend: str, url: str | None) -> Store:
    if backend == "postgres":
        assert url is not None
        return await PostgresStore.open(url)
    return await SqliteStore.open(":memory:") if backend == "sqlite" else MemoryStore()


async def _emptied(url: str) -> str:
    """The database at `url` with no rows, its ids counting from 1 again, as a new one would have;
    emptying it is a fraction of the cost of a new database at every example."""
    conn = await asyncpg.connect(url)
    try:
        tables = await conn.fetchval("SELECT string_agg(format('%I', tablename), ', ') FROM pg_tables"
                                     " WHERE schemaname = 'public' AND tablename <> 'schema_migrations'")
        if tables:
            await conn.execute(f"TRUNCATE {tables} RESTART IDENTITY CASCADE")
    finally:
        await conn.close()
    return url


async def _run(operations: list[tuple[Any, ...]], backend: str, url: str | None = None) -> None:
    if url is not None:
        url = await _emptied(url)
    store = await _open(backend, url)
    model = Model()
    ids: list[int] = []
    try:
        for op in [("create",), ("create",), *operations]:
            if op[0] == "create":
                ids.append(await store.create_match("t", f"c{len(ids)}", {}, [], len(ids), {}))
                model.matches.append(ModelMatch())
            elif op[0] == "append":
                _, index, offset, which, key = op
                version = len(model.matches[index].log) if index < len(model.matches) else 0
                seq = max(0, version + offset)
                match_id = ids[index] if index < len(ids) else 10_000 + index
                expected = model.append(index, seq, ACTIONS[which], key)
                got: str
                try:
                    got = await store.append_action(match_id, seq, ACTIONS[which], key)
                except (SequenceConflict, UnknownMatch, MatchClosed) as exc:
                    got = type(exc).__name__
                assert got == expected, (op, got, expected)
            elif op[0] == "finish" and op[1] < len(ids):
                await store.finish_match(ids[op[1]], "finished", {})
                model.matches[op[1]].finished = True
        open_ids = [ids[i] for i, m in enumerate(model.matches) if not m.finished]
        loaded = await store.load_unfinished()
        assert [m.id for m in loaded] == open_ids
        for i, match in enumerate(model.matches):
            stored = await store.get_match(ids[i])
            assert stored is not None and stored.actions == match.log and stored.version == len(match.log)
        for key in NAMED_KEYS:
            assert await store.seen_key(key) == (key in model.keys)
    finally:
        await store.close()


@pytest.fixture(scope="session", params=["memory", "sqlite", "postgres"])
def backend(request: pytest.FixtureRequest) -> str:
    if request.param == "postgres":
        request.getfixturevalue("pg_server")  # skipped (failed on CI) without PostgreSQL
    return str(request.param)


@pytest.fixture(scope="session")
def new_database(request: pytest.FixtureRequest) -> Callable[[str], str | None]:
    """A PostgreSQL database of this run's own; each example empties it first (`_emptied`):
    examples must not see each other's rows."""
    made: list[str] = []

    def make(backend: str) -> str | None:
        if backend != "postgres":
            return None
        if not made:
            server: PgServer = request.getfixturevalue("pg_server")
            made.append(server.new_database())
        return made[0]

    return make



@settings(max_examples=80, deadline=None)
@given(st.lists(operation, max_size=40))
# Rare in random runs, so spelled out: the same action at a taken seq under a new key
# (a second click on a stale button), after the match finished, and a key used again at the next seq.
@pytest.mark.slow(11)
@example([("append", 0, 0, 0, "k1"), ("append", 0, -1, 0, "k2")])
@example([("append", 1, 0, 1, None), ("finish", 1), ("append", 1, -1, 1, None), ("append", 1, 0, 1, "k3")])
@example([("append", 0, 0, 0, "k4"), ("append", 0, 1, 0, "k4"), ("append", 0, 0, 0, None)])
def test_the_store_answers_like_the_model(
    backend: str, new_database: Callable[[str], str | None], operations: list[tuple[Any, ...]]
) -> None:
    asyncio.run(_run(operations, backend, new_database(backend)))
