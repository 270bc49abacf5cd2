"""The flood ledger workers share (persistence/postgres_flood.py): a place is granted only while
the bot's, the group's and the chat's windows have room counting every worker's places; settled
places count from their arrival; a dead worker's unsettled places run out after `hold`.

The database's clock stands still (tests/persistence/db_clock.py): each test moves it past a
window instead of waiting for the window to pass, and a slow machine cannot make one run out early."""

from __future__ import annotations

from persistence.postgres import PostgresStore
from persistence.postgres_flood import FloodLedger
from tests.persistence.db_clock import DbClock

# (cap, window seconds): the bot, a group, a chat; small caps so a test is a handful of rounds
LIMITS = ((4, 1.0), (3, 60.0), (2, 2.0))


async def _ledgers(url: str, n: int) -> tuple[list[PostgresStore], list[FloodLedger]]:
    stores = [await PostgresStore.open(url, worker=f"w{k}") for k in range(n)]
    return stores, [s.flood_ledger() for s in stores]


async def test_the_bot_budget_counts_every_workers_places(pg_url: str, db_clock: DbClock) -> None:
    stores, (a, b) = await _ledgers(pg_url, 2)
    try:
        first = await a.claim([1, 2, 3], LIMITS, hold=5.0)
        assert all(p is not None for p in first.places)
        second = await b.claim([4, 5], LIMITS, hold=5.0)  # one place left for the bot
        assert second.places[0] is not None and second.places[1] is None
        # the wait: until the oldest place leaves the bot's second (it counts as arriving at hold)
        assert 5.0 < second.waits[1] <= 6.0
        # a's messages arrived just now: their places leave the window a second from now
        await a.claim([], LIMITS, hold=5.0, arrived=[(p, first.now) for p in first.places if p is not None])
        again = await b.claim([5], LIMITS, hold=5.0)
        assert again.places == [None] and again.waits[0] <= 1.0
        await db_clock.advance(again.waits[0] - 0.01)
        assert (await b.claim([5], LIMITS, hold=5.0)).places == [None]  # not a moment early
        await db_clock.advance(0.06)
        assert (await b.claim([5], LIMITS, hold=5.0)).places[0] is not None
    finally:
        for s, led in zip(stores, (a, b), strict=True):
            await led.close()
            await s.close()


async def test_a_chat_and_a_group_are_shared_too(pg_url: str, db_clock: DbClock) -> None:
    stores, (a, b) = await _ledgers(pg_url, 2)
    try:
        # a private chat: two at once, from either worker, then wait
        assert (await a.claim([7], LIMITS, hold=0.1)).places[0] is not None
        assert (await b.claim([7], LIMITS, hold=0.1)).places[0] is not None
        await db_clock.advance(0.01)  # a moment later
        third = await a.claim([7, 8], LIMITS, hold=0.1)
        assert third.places[0] is None and third.places[1] is not None and third.waits[0] <= 2.1
        # a group: its chat window, and three a minute between both workers
        await db_clock.advance(1.2)  # the bot's second is free again
        assert None not in (await a.claim([-9, -9], LIMITS, hold=0.1)).places
        await db_clock.advance(2.2)
        got = await b.claim([-9], LIMITS, hold=0.1)
        assert got.places[0] is not None  # the third of the minute
        await db_clock.advance(2.2)
        full = await a.claim([-9], LIMITS, hold=0.1)
        assert full.places == [None] and full.waits[0] > 50  # the minute is spent
    finally:
        for s, led in zip(stores, (a, b), strict=True):
            await led.close()
            await s.close()


async def test_a_dead_workers_places_run_out_after_hold(pg_url: str, db_clock: DbClock) -> None:
    stores, (a, b) = await _ledgers(pg_url, 2)
    try:
        taken = await a.claim([1, 2, 3, 4], LIMITS, hold=0.3)  # a then dies without settling
        assert all(p is not None for p in taken.places)
        refused = await b.claim([5], LIMITS, hold=0.3)
        assert refused.places == [None] and refused.waits[0] <= 1.35
        await db_clock.advance(refused.waits[0] - 0.01)
        assert (await b.claim([5], LIMITS, hold=0.3)).places == [None]  # not a moment early
        await db_clock.advance(0.06)
        assert (await b.claim([5], LIMITS, hold=0.3)).places[0] is not None
    finally:
        for s, led in zip(stores, (a, b), strict=True):
            await led.close()
            await s.close()
