"""Which PostgreSQL errors the store tries again (issue 32 item 3): a lost connection and a server
shutting down or starting are tried again on a new connection; a connection used by two tasks at
once is a fault in our code and is raised, never retried (a retry would hide it); and the store
never puts one connection in two tasks' hands, however many calls run at once on a small pool.

The last two tests use the shared test server (real time: a few short statements)."""

from __future__ import annotations

import asyncio

import asyncpg
import pytest

from persistence.pg_lost import lost
from persistence.postgres import PostgresStore


@pytest.mark.parametrize("exc", [
    asyncpg.ConnectionDoesNotExistError("connection was closed in the middle of operation"),
    asyncpg.CannotConnectNowError("the database system is starting up"),
    asyncpg.AdminShutdownError("terminating connection due to administrator command"),
    asyncpg.InternalClientError("cannot switch to state 15; another operation (2) is in progress"),
    asyncpg.InterfaceError("connection is closed"),
    ConnectionRefusedError(111, "Connection refused"),
    TimeoutError(),
])
def test_a_lost_connection_or_a_restarting_server_is_tried_again(exc: BaseException) -> None:
    assert lost(exc)


@pytest.mark.parametrize("exc", [
    asyncpg.InterfaceError("cannot perform operation: another operation is in progress"),
    asyncpg.QueryCanceledError("canceling statement due to statement timeout"),
    asyncpg.UniqueViolationError("duplicate key value violates unique constraint"),
    ValueError("a wrong request"),
])
def test_a_fault_of_ours_or_of_the_request_is_raised(exc: BaseException) -> None:
    assert not lost(exc)


async def test_two_tasks_on_one_connection_is_an_error_not_a_lost_connection(pg_url: str) -> None:
    conn = await asyncpg.connect(pg_url)
    try:
        results = await asyncio.gather(conn.fetchval("SELECT pg_sleep(0.05)"), conn.fetchval("SELECT 1"),
                                       return_exceptions=True)
    finally:
        await conn.close()
    [err] = [r for r in results if isinstance(r, BaseException)]
    assert isinstance(err, asyncpg.InterfaceError) and "another operation is in progress" in str(err)
    assert not lost(err)


async def test_many_calls_at_once_on_a_small_pool_each_get_their_own_connection(pg_url: str) -> None:
    store = await PostgresStore.open(pg_url, max_size=2)
    try:
        rows = await asyncio.gather(*(store.fetchall("SELECT pg_sleep(0.005), ?::int AS n", [i])
                                      for i in range(30)))
    finally:
        await store.close()
    assert [r[0]["n"] for r in rows] == list(range(30))
    assert store.health.errors == 0
