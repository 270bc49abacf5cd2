"""Issue 20 item 2: several workers on one PostgreSQL database share the tables, each driven by one
worker at a time; an update reaching any worker reaches the table's owner; a new worker takes a
share, a stopped one hands its tables over at once, one whose lease ran out stops driving."""

from __future__ import annotations

import asyncio

import asyncpg
import pytest
from aiohttp.test_utils import TestClient, TestServer

from app.web import Health, worker_app
from bot.intents import codec
from bot.platform import Incoming, Where
from persistence.errors import LeaseLost, StoreDown
from persistence.postgres import PostgresStore
from persistence.postgres_cluster import LIFE_LOCKS
from tests.cluster.conftest import Workers, until
from tests.host.fakes import Driver, Recorder


def event(ws: Workers, kind: str, uid: str, chat: str, key: str, **kw: object) -> tuple[Incoming, Recorder]:
    user = Driver(ws.platform, chat).user(uid)
    rec = Recorder(ws.platform, user)
    where = Where(ws.platform.name, chat)
    return Incoming(kind, user, where, key=key, reply=rec, **kw), rec  # type: ignore[arg-type]


async def open_lobbies(ws: Workers, worker_host: object, n: int) -> None:
    for i in range(n):
        ev, _ = event(ws, "command", "u1", f"g{i}", f"new{i}", name="new")
        await worker_host.handle(ev)  # type: ignore[attr-defined]
        await worker_host.settle()  # type: ignore[attr-defined]


async def test_tables_are_shared_and_updates_reach_their_owner(workers: Workers) -> None:
    w1 = await workers.start("w1")
    await open_lobbies(workers, w1.host, 4)
    assert len(w1.host.tables) == 4  # whoever opens a table drives it first

    w2 = await workers.start("w2")  # two workers now: w1 is above its share
    await w1.cluster.beat()
    await w2.cluster.beat()
    one, two = set(w1.host.tables), set(w2.host.tables)
    assert len(one) == len(two) == 2 and not one & two
    assert w1.cluster.stats.handed == 2 and w2.cluster.stats.taken == 2

    # a join in a chat whose table w1 drives, received by w2, reaches w1's table
    chat = w1.host.tables[min(one)].chat_id
    ev, rec = event(workers, "command", "u2", chat, "join-u2", name="join")
    await w2.host.handle(ev)
    table = w1.host.tables[min(one)]
    await until(lambda: table.seat_of("u2") is not None)
    assert w2.cluster.stats.forwarded == 1 and w1.cluster.stats.received == 1

    # a button press: the owner's answer comes back to the worker holding the press
    join = next(b for row in workers.platform.messages[table.messages["lobby"]][1].buttons for b in row
                if b.kind == "callback")
    ev, rec = event(workers, "press", "u3", chat, "press-u3", intent=codec.read(join.token))
    await w2.host.handle(ev)
    await until(lambda: bool(rec.texts))
    assert table.seat_of("u3") is not None and len(rec.texts) == 1


async def test_a_stopped_worker_hands_over_at_once_and_a_lapsed_one_stops_driving(workers: Workers) -> None:
    w1 = await workers.start("w1")
    await open_lobbies(workers, w1.host, 3)
    w2 = await workers.start("w2", ttl=1.0)
    await w1.stop()  # clean stop: leases released, worker gone
    await w2.cluster.beat()
    assert sorted(w2.host.tables) == [1, 2, 3] and w2.cluster.stats.workers == 1

    # w2 stalls past its lease; another worker takes table 1 meanwhile
    await workers.db_clock.advance(1.2)
    other = await PostgresStore.open(workers.url, worker="w9")
    try:
        assert await other.acquire_lease(1, ttl=30)
    finally:
        await other.close()
    # its heartbeat finds every lease lapsed: it stops driving them all (another worker may have
    # them already), then takes back the ones still free
    await w2.cluster.beat()
    assert sorted(w2.host.tables) == [2, 3] and w2.cluster.stats.lost == 3

    # an update for table 1 that reaches w2 now waits in the inbox for w9
    ev, _ = event(workers, "command", "u5", "g0", "join-u5", name="join")
    await w2.host.handle(ev)
    conn = await asyncpg.connect(workers.url)
    try:
        assert await conn.fetchval("SELECT count(*) FROM inbox WHERE match_id = 1") == 1
    finally:
        await conn.close()


async def test_a_write_after_the_lease_ran_out_is_refused_and_the_update_goes_to_the_new_owner(
        workers: Workers) -> None:
    w1 = await workers.start("w1", ttl=60.0)  # no lease runs out while the table is set up, however loaded
    for i, (name, args) in enumerate([("new", ()), ("addbot", ()), ("addbot", ()), ("addbot", ()), ("start", ())]):
        ev, _ = event(workers, "command", "u1", "g0", f"c{i}", name=name, args=args)
        await w1.host.handle(ev)
        await w1.host.settle()
    table = w1.host.tables[1]
    assert table.status == "active" and table.match is not None
    version = table.match.version

    other = await PostgresStore.open(workers.url, worker="w9")
    try:  # w1 stalls past its lease, and w9 takes the table
        await expire_leases(workers.url)
        assert await other.acquire_lease(1, ttl=30)
        ev, _ = event(workers, "text", "u1", "g0", "late-pass", text="pass")
        await w1.host.handle(ev, forwarded=True)  # as if w1 still thought it drove the table
        await until(lambda: 1 not in w1.host.tables)
        stored = await other.get_match(1)
        assert stored is not None and stored.version == version  # nothing written by w1
        conn = await asyncpg.connect(workers.url)
        try:
            await until_rows(conn, "SELECT count(*) FROM inbox WHERE match_id = 1", 1)
        finally:
            await conn.close()
    finally:
        await other.close()


async def test_an_update_gone_on_from_a_lost_table_is_served_when_the_same_worker_takes_it_back(
        workers: Workers) -> None:
    """A press the table was serving when its lease ran out goes on to the table's next owner through
    the inbox. When that owner is the same worker again (two workers after a database restart: one
    in two), the press must be served there, not taken for a delivery still being served (found by
    tests/cluster/test_deploys.py: a press taken, never applied, never answered)."""
    w1 = await workers.start("w1", ttl=60.0)
    for i, (name, args) in enumerate([("new", ()), ("addbot", ()), ("addbot", ()), ("addbot", ()), ("start", ())]):
        ev, _ = event(workers, "command", "u1", "g0", f"c{i}", name=name, args=args)
        await w1.host.handle(ev)
        await w1.host.settle()
    other = await PostgresStore.open(workers.url, worker="w9")
    try:  # w1 stalls past its lease, w9 takes the table and goes away before serving anything
        await expire_leases(workers.url)
        assert await other.acquire_lease(1, ttl=30)
        ev, rec = event(workers, "text", "u1", "g0", "late-pass", text="pass")
        await w1.host.handle(ev, forwarded=True)  # as if w1 still thought it drove the table
        await until(lambda: 1 not in w1.host.tables)
        await other.release_lease(1)
    finally:
        await other.close()
    await w1.cluster.beat()  # w1 drives the table again, and serves what waits for it in the inbox
    assert 1 in w1.host.tables
    await until(lambda: bool(rec.texts))
    await w1.host.settle()
    assert len(rec.texts) == 1, rec.texts
    conn = await asyncpg.connect(workers.url)
    try:
        assert await conn.fetchval("SELECT count(*) FROM inbox WHERE match_id = 1") == 0
    finally:
        await conn.close()


async def expire_leases(url: str) -> None:
    """Every lease runs out now, as after a stall longer than the lease."""
    conn = await asyncpg.connect(url)
    try:
        await conn.execute("UPDATE leases SET expires_at = extract(epoch FROM clock_timestamp()) - 1")
    finally:
        await conn.close()


async def until_rows(conn: asyncpg.Connection, sql: str, expected: int, seconds: float = 30.0) -> None:
    """Waits until `sql` counts `expected`: what another connection does shows only in the database,
    so it is asked every few milliseconds; `seconds` only guards against waiting for ever."""
    async with asyncio.timeout(seconds):
        while await conn.fetchval(sql) != expected:
            await asyncio.sleep(0.005)


async def test_one_worker_long_polls_and_the_next_takes_over_when_it_dies(pg_url: str) -> None:
    a = await PostgresStore.open(pg_url, worker="a")
    b = await PostgresStore.open(pg_url, worker="b")
    la, lb = a.cluster(), b.cluster()
    try:
        await la.hold("telegram-polling")
        waiting = asyncio.create_task(lb.hold("telegram-polling"))
        conn = await asyncpg.connect(pg_url)
        try:  # b's session waits for the lock
            await until_rows(conn, "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted", 1)
        finally:
            await conn.close()
        assert not waiting.done()  # b waits in line: two pollers of one bot, Telegram would refuse both
        await la.close()  # a's process ends, and its database session with it
        await asyncio.wait_for(waiting, 5)
    finally:
        await lb.close()
        await a.close()
        await b.close()


async def test_health_readiness_and_metrics(workers: Workers) -> None:
    w1 = await workers.start("w1")
    await open_lobbies(workers, w1.host, 2)
    async with TestClient(TestServer(worker_app(w1.host, w1.store, w1.cluster))) as client:
        assert (await client.get("/healthz")).status == 200
        ready = await client.get("/readyz")
        assert ready.status == 200 and (await ready.json())["tables"] == 2
        text = await (await client.get("/metrics")).text()
    assert "tractor_tables 2.0" in text and "tractor_workers 1.0" in text
    assert "tractor_lease_changes_total" in text and "tractor_updates_forwarded_total 0.0" in text


async def test_readiness_says_no_while_the_database_is_away_or_the_worker_drains(
        workers: Workers, monkeypatch: pytest.MonkeyPatch) -> None:
    w1 = await workers.start("w1")
    health = Health()
    async with TestClient(TestServer(worker_app(w1.host, w1.store, w1.cluster, health=health))) as client:
        assert (await client.get("/readyz")).status == 200

        async def unreachable(timeout: float = 1.0) -> None:
            raise StoreDown("the database does not answer")

        with monkeypatch.context() as patched:
            patched.setattr(w1.store, "ping", unreachable)
            away = await client.get("/readyz")
            assert away.status == 503 and (await away.json())["why"] == "database unreachable"
        assert (await client.get("/readyz")).status == 200
        health.drain()  # SIGTERM's first step
        draining = await client.get("/readyz")
        assert draining.status == 503 and (await draining.json())["why"] == "draining"
        text = await (await client.get("/metrics")).text()
    for line in ("tractor_draining 1.0", "tractor_drains_total 1.0", "tractor_store_errors_total 0.0",
                 "tractor_store_retries_total 0.0", "tractor_store_down 0.0",
                 "tractor_oldest_unhandled_update_seconds 0.0"):
        assert line in text, line


async def test_the_oldest_unhandled_update_is_measured_until_it_is_stored(
        workers: Workers, monkeypatch: pytest.MonkeyPatch) -> None:
    """/metrics' tractor_oldest_unhandled_update_seconds: how long the oldest update in hand has
    waited for the database; 0 again once it is stored. The wait is set, not slept: the update
    is made seven seconds older than it is while the database holds it."""
    w1 = await workers.start("w1")
    await open_lobbies(workers, w1.host, 1)
    asked, held = asyncio.Event(), asyncio.Event()
    seen = w1.store.seen_key

    async def slow(key: str) -> bool:  # a database that takes its time
        asked.set()
        await held.wait()
        return await seen(key)

    monkeypatch.setattr(w1.store, "seen_key", slow)

    def oldest(text: str) -> float:
        [line] = [ln for ln in text.splitlines() if ln.startswith("tractor_oldest_unhandled_update_seconds ")]
        return float(line.split()[1])

    async with TestClient(TestServer(worker_app(w1.host, w1.store, w1.cluster))) as client:
        ev, rec = event(workers, "command", "u2", "g0", "join-u2", name="join")
        handling = asyncio.create_task(w1.host.handle(ev))
        await asyncio.wait_for(asked.wait(), 10)
        for receipt in list(w1.host.unsettled):
            w1.host.unsettled[receipt] -= 7.0
        assert 7.0 <= oldest(await (await client.get("/metrics")).text()) < 60.0
        held.set()
        await asyncio.wait_for(handling, 10)
        await w1.host.settle()  # the table stored the join
        assert oldest(await (await client.get("/metrics")).text()) == 0.0
    assert rec.texts  # the join was answered


async def test_a_dead_worker_is_seen_at_once_and_its_tables_taken_before_its_leases_run_out(
        workers: Workers) -> None:
    w1 = await workers.start("w1", ttl=3600)  # leases that would outlast the test
    await open_lobbies(workers, w1.host, 3)
    w2 = await workers.start("w2", ttl=3600)
    await w2.cluster.beat()
    assert w2.host.tables == {} and w2.cluster.stats.workers == 2  # w1 holds them, alive

    # w1's process dies: the server ends its sessions (its listening one holds its life lock)
    conn = await asyncpg.connect(workers.url)
    try:
        await conn.execute("SELECT pg_terminate_backend(k.pid) FROM pg_locks k JOIN workers w"
                           " ON k.objid = w.life::oid AND w.name = 'w1' WHERE k.locktype = 'advisory'"
                           " AND k.objsubid = 2 AND k.classid = $1::oid", LIFE_LOCKS)
        await until(lambda: w1.cluster.link._listener is not None and w1.cluster.link._listener.is_closed())
        await w2.cluster.beat()  # its next beat: w1 is dead, its three tables are w2's
        assert sorted(w2.host.tables) == [1, 2, 3] and w2.cluster.stats.workers == 1
        assert w2.cluster.stats.taken == 3

        # w1 was in fact alive (only that connection dropped): the store refuses its writes
        with pytest.raises(LeaseLost):
            await w1.store.append_action(1, 0, {"t": "deal"}, "k-late")
        assert await conn.fetchval("SELECT count(*) FROM actions") == 0
        # and its next beat finds it lost the rest, and joins again with a new life lock
        await w1.cluster.beat()
        assert w1.host.tables == {} and w1.cluster.link.rejoined == 1
        await w2.cluster.beat()
        assert w2.cluster.stats.workers == 2
    finally:
        await conn.close()


async def test_a_worker_that_stopped_beating_no_longer_counts_in_the_shares(workers: Workers) -> None:
    """A lost machine's heartbeat row lasts as long as its leases: counted alive until then, its
    share of its own tables would wait for nobody once they run out."""
    w1 = await workers.start("w1")
    await open_lobbies(workers, w1.host, 3)
    w2 = await workers.start("w2")
    conn = await asyncpg.connect(workers.url)
    try:  # a third worker that held table 3, last beat 3 s ago: its row and lease still run
        await w1.cluster._hand_over(3)
        await conn.execute("INSERT INTO workers (name, expires_at, started_at, beat_at) VALUES ('lost',"
                           " extract(epoch FROM clock_timestamp()) + 3, 0, extract(epoch FROM clock_timestamp()) - 3)")
        await conn.execute("INSERT INTO leases (match_id, worker, expires_at) VALUES (3, 'lost',"
                           " extract(epoch FROM clock_timestamp()) + 0.5)")
        await w2.cluster.beat()
        await w1.cluster.beat()
        # two live workers, share = ceil(3 / 2) = 2: counting 'lost', w1 would keep 1 and w2 take 1
        assert w1.cluster.stats.workers == 2 and w2.cluster.stats.workers == 2
        assert sorted(w1.host.tables) == [1, 2] and sorted(w2.host.tables) == []
        await workers.db_clock.advance(0.6)  # its lease runs out: w2's share has room for it
        await w2.cluster.beat()
        assert sorted(w2.host.tables) == [3]
    finally:
        await conn.close()
