"""Issue 20 with tournaments: a worker that dies after a tournament's match ended, before it opened
the next, leaves nothing for the others to take; one of them moves the tournament on (bot.move_on),
as a restart would with one process, and never while the ending worker is alive and at it. The
same for a duplicate event between two boards."""

from __future__ import annotations

import asyncpg

from persistence.board_store import BoardStore
from persistence.postgres_cluster import LIFE_LOCKS
from tests.cluster.conftest import Worker, Workers, until
from tests.cluster.test_workers import event


async def test_a_tournament_whose_worker_died_between_two_matches_goes_on(workers: Workers) -> None:
    w1 = await workers.start("w1")
    for i, (uid, args) in enumerate([("u1", ("new", "knockout")), ("u1", ("team", "Red")),
                                     ("u2", ("team", "Blue")), ("u1", ("start",))]):
        ev, _ = event(workers, "command", uid, "g0", f"t{i}", name="tournament", args=args, extra={"admin": "1"})
        await w1.host.handle(ev)
        await w1.host.settle()
    first = w1.host.by_chat[("fake", "g0")]
    assert first.meta.tournament and first.status == "lobby"
    w2 = await workers.start("w2")

    # the match ends on w1 (written), and w1 is still moving the tournament on: nobody else does
    await w1.store.finish_match(first.id, "abandoned", {"reason": "abandoned"})
    w1.host.forget(first)
    first.abandon()
    await w1.cluster.beat()  # the ended match's lease is kept while its tournament moves on
    assert await w2.cluster.move_on() == []
    assert ("fake", "g0") not in w2.host.by_chat

    # w1's process dies right then: the next match was never opened
    conn = await asyncpg.connect(workers.url)
    try:
        await kill_life(conn, w1)
        assert await w2.cluster.move_on() == ["tournament 1"]
        second = w2.host.by_chat[("fake", "g0")]  # w2 opened the next match of the pairing, and drives it
        assert second.id != first.id and second.meta.tournament.pairing == first.meta.tournament.pairing
        assert await conn.fetchval("SELECT worker FROM leases WHERE match_id = $1", second.id) == "w2"
        assert await w2.cluster.move_on() == []  # once
    finally:
        await conn.close()


async def kill_life(conn: asyncpg.Connection, w: Worker) -> None:
    """The worker's process dies, as far as the others can see (its life lock's session ends)."""
    await conn.execute("SELECT pg_terminate_backend(k.pid) FROM pg_locks k JOIN workers w"
                       " ON k.objid = w.life::oid AND w.name = $2 WHERE k.locktype = 'advisory'"
                       " AND k.objsubid = 2 AND k.classid = $1::oid", LIFE_LOCKS, w.name)
    await until(lambda: w.cluster.link._listener is not None and w.cluster.link._listener.is_closed())


async def test_a_duplicate_event_whose_worker_died_between_two_boards_goes_on(workers: Workers) -> None:
    w1 = await workers.start("w1")
    for i, args in enumerate([("new", "boards=2"), ("join", "home"), ("ai",), ("start",)]):
        ev, _ = event(workers, "command", "u1", "g1", f"d{i}", name="duplicate", args=args)
        await w1.host.handle(ev)
        await w1.host.settle()
    board = w1.host.by_chat[("fake", "g1")]
    assert board.meta.board and board.meta.board.event
    w2 = await workers.start("w2")

    # the board's table ends on w1 and its result is stored; w1 dies before the next board opens
    await w1.store.finish_match(board.id, "finished", {"reason": "board"})
    await BoardStore.of(w1.store).finish_play(board.id, "done", 40, 0)
    w1.host.forget(board)
    board.abandon()
    await w1.cluster.beat()
    assert await w2.cluster.move_on() == []  # w1 alive: moving it on is w1's
    conn = await asyncpg.connect(workers.url)
    try:
        await kill_life(conn, w1)
        event_id = board.meta.board.event
        assert await w2.cluster.move_on() == [f"event {event_id}"]
        nxt = w2.host.by_chat[("fake", "g1")]
        assert nxt.id != board.id and nxt.meta.board.event == event_id
        assert await conn.fetchval("SELECT worker FROM leases WHERE match_id = $1", nxt.id) == "w2"
    finally:
        await conn.close()
