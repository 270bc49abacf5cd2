"""Issue 32 item 4: SIGTERM hands a worker's tables over before any drain. `app.run.drain` is the
stop `tractor-host run` makes on SIGTERM; here the platform's drain (Telegram's queue, up to
`DRAIN_ON_STOP` seconds) is held open by the test, and another worker must drive every table while
it is still held: nobody waits for a queue to empty before their table moves on.

In-process workers on the throwaway database; the other worker beats only when woken (the
stopping worker's NOTIFY), so nothing but the hand-over can give it the tables.
"""

from __future__ import annotations

import asyncio

import asyncpg

from app.run import drain
from app.web import Health
from tests.cluster.conftest import Workers, until
from tests.cluster.test_workers import open_lobbies


class Steps:
    """What the stop did, in order, with the drain held until `drained` is set."""

    def __init__(self) -> None:
        self.done: list[str] = []
        self.draining = asyncio.Event()
        self.drained = asyncio.Event()


class Intake:
    """Telegram's side of the first step: no update taken any more."""

    def __init__(self, steps: Steps) -> None:
        self.steps = steps

    async def stop_taking(self) -> None:
        self.steps.done.append("stop taking")


class SlowQueue:
    """A platform whose queued messages take as long as the test says to go out."""

    def __init__(self, steps: Steps) -> None:
        self.steps = steps

    async def stop(self) -> None:
        self.steps.done.append("drain")
        self.steps.draining.set()
        await self.steps.drained.wait()


async def test_sigterm_hands_every_table_over_before_the_queue_drains(workers: Workers) -> None:
    w1 = await workers.start("w1")
    await open_lobbies(workers, w1.host, 3)
    w2 = await workers.start("w2")
    await w2.cluster.beat()
    assert sorted(w1.host.tables) == [1, 2, 3] and w2.host.tables == {}  # w1 drives them all
    steps, health = Steps(), Health()
    stopping = asyncio.create_task(drain(health, [], Intake(steps), [], w1.cluster,  # type: ignore[arg-type]
                                         [SlowQueue(steps)]))
    await asyncio.wait_for(steps.draining.wait(), 30)
    assert health.draining and steps.done == ["stop taking", "drain"]
    await until(lambda: sorted(w2.host.tables) == [1, 2, 3], 10)  # woken by w1's NOTIFY, not by a beat of ours
    conn = await asyncpg.connect(workers.url)
    try:
        holders = await conn.fetch("SELECT match_id, worker FROM leases ORDER BY match_id")
    finally:
        await conn.close()
    assert [(r[0], r[1]) for r in holders] == [(1, "w2"), (2, "w2"), (3, "w2")]
    assert not stopping.done() and w1.host.tables == {}  # still draining, driving nothing
    steps.drained.set()
    await asyncio.wait_for(stopping, 30)
    assert w1.cluster.stats.handed == 3 and w2.cluster.stats.taken == 3
