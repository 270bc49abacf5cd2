"""A web table served by any worker: behind one reverse proxy a page's socket lands on any worker,
not only on the one driving its table. Two workers (in this process) on a throwaway PostgreSQL,
each serving the web table; the four seats' sockets spread over both. Plays go through the sockets
(the actions of the sockets on the other worker reach the owner through the inbox; their views come
from a replica read from the store); the seats served by the other worker count as on the web at
the owner. Then the owner stops (SIGTERM's clean handover: its sockets reconnect to the other
worker, whose own sockets stay open) and play goes on; then the new owner's lease lapses as when it
is killed, a third worker takes the table, and its sockets see it through. Every frame is
leak-scanned. The workers beat by themselves (every 0.3 s), and where a step hinges on a beat the
test beats for them rather than wait for one; the database's clock stands still until the test
moves it past b's lease (`db_clock`), so no lease lapses early on a busy machine nor is waited for. With worker processes, real signals and a whole hand: test_web_processes.py.
Also: a page of a best of three's ended game is moved to the next game whichever worker drives it."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import aiohttp
import pytest
from aiohttp.test_utils import TestServer

from adapters.web.config import WebConfig
from adapters.web.server import WebTable
from app.features import build_host
from bot.cluster import Cluster
from persistence.postgres import PostgresStore
from tests.cluster.conftest import Worker, Workers, until
from tests.host.conftest import FAST
from tests.host.fakes import Driver
from tests.web.client import Client
from tests.web.conftest import leaks

PEOPLE = ["1", "2", "3", "4"]
SECRET = b"s" * 32


@dataclass
class Served:
    """One worker and the web table it serves (the proxy may send a page to any of them)."""

    worker: Worker
    web: WebTable
    server: TestServer


@dataclass
class Room:
    workers: Workers
    session: aiohttp.ClientSession
    served: list[Served] = field(default_factory=list)
    opened: int = 0

    async def serve(self, name: str, ttl: float | None = None, beat: float = 0.3) -> Served:
        """A worker that beats by itself (every `beat` seconds), and its web table."""
        store = await PostgresStore.open(self.workers.url, synchronous="OFF", worker=name)
        host = build_host(store, clock=self.workers.clock, defaults=FAST, use_ai_threads=False, rng=random.Random(len(name)))
        host.register(self.workers.platform)
        cluster = Cluster(host, store, store.cluster(), beat=beat, ttl=ttl)
        await cluster.start()
        w = Worker(name, host, store, cluster)
        self.workers.started.append(w)
        web = WebTable(w.host, WebConfig(port=0, public_url="https://cards.test", secret=SECRET))
        w.host.live.links = web
        server = TestServer(web.application())
        await server.start_server()
        s = Served(w, web, server)
        self.served.append(s)
        return s

    async def page(self, at: Served, match_id: int, uid: str | None) -> Client:
        c = Client(self.session, str(at.server.make_url("/ws")))
        self.opened += 1
        c._keys = 1000 * self.opened  # a reloaded page's keys are new ones (the page keys by time)
        await c.connect({"link": at.web.signer.sign(self.workers.platform.name, match_id, uid)})
        return c

    def owner(self, match_id: int) -> Served:
        for s in self.served:
            if match_id in s.worker.host.tables:
                return s
        raise AssertionError(f"nobody drives table {match_id}")

    async def driver(self, match_id: int) -> Served:
        """The worker driving the table, once one does (a lease may be changing hands)."""
        await until(lambda: any(match_id in s.worker.host.tables for s in self.served), 15.0)
        return self.owner(match_id)


@pytest.fixture
async def room(workers: Workers) -> AsyncIterator[Room]:
    r = Room(workers, aiohttp.ClientSession())
    yield r
    await r.session.close()
    for s in r.served:
        await s.web.stop()
        await s.server.close()


async def open_table(room: Room, at: Served, *new: str, d: Driver | None = None) -> int:
    d = d or Driver(room.workers.platform, "g1")
    for uid, name in [("1", "new"), ("2", "join"), ("3", "join"), ("4", "join"), ("1", "start")]:
        await at.worker.host.handle(d.command(uid, name, *(new if name == "new" else ())))
        await at.worker.host.settle()
    table = at.worker.host.by_chat[(room.workers.platform.name, "g1")]
    assert table.status == "active"
    return table.id


async def play(room: Room, match_id: int, pages: dict[int | None, Client], *, until_hand: int,
               plays: int | None = None) -> int:
    """Each seat acts from its page when the engine says it is to act, with the engine's quick move,
    until hand `until_hand` starts (or `plays` plays were made); every page must show each action."""
    made = 0
    for _ in range(600):
        owner = await room.driver(match_id)
        table = owner.worker.host.tables[match_id]
        m = table.match
        assert m is not None
        if table.status != "active" or int(m.public_view()["hand_no"]) >= until_hand or made == plays:
            return made
        to_act = m.to_act()
        if not to_act:
            clock = room.workers.clock
            clock.advance(min(table.deadlines.values(), default=clock.now()) - clock.now() + 0.01)
            await owner.worker.host.settle()
            continue
        s = to_act[0]
        act = m.auto_action(s, rng_seed=m.version)
        assert act is not None
        version = m.version
        page = pages[s]
        await page.until(lambda st, v=version: st["version"] >= v)
        key = await page.act(act.t, list(getattr(act, "cards", ())))
        answer = await page.answer(key)
        assert answer["ok"], answer
        made += act.t == "play"
        for p in pages.values():  # every page shows the action, wherever its socket is served
            await p.until(lambda st, v=version: st["version"] > v)
    raise AssertionError("the hand did not end")


@pytest.mark.slow(5)
async def test_a_web_table_plays_from_any_worker_and_survives_its_owner_going(room: Room) -> None:
    a = await room.serve("wa", ttl=30.0)
    match_id = await open_table(room, a)
    b = await room.serve("wb", ttl=3.0)
    for _ in range(2):  # (besides their own beats) two beats each, as after a while
        await b.worker.cluster.beat()
        await a.worker.cluster.beat()
    assert room.owner(match_id) is a  # one table, two workers: its opener keeps it, beat after beat
    table = a.worker.host.tables[match_id]
    uid = {s: str(table.seats[s].user_id) for s in range(4)}
    # seats 0 and 2 on the owner's worker, 1 and 3 and an onlooker on the other one
    pages: dict[int | None, Client] = {}
    for s in range(4):
        pages[s] = await room.page(a if s % 2 == 0 else b, match_id, uid[s])
    pages[None] = await room.page(b, match_id, None)
    for s, p in pages.items():
        st = await p.until(lambda st: st.get("version", 0) > 0)
        assert st["seat"] == s and (st["scene"]["hand"] is not None) == (s is not None)
    await until(lambda: a.worker.host.live.seats_watched(match_id) == {0, 1, 2, 3})  # b told a
    await a.worker.host.settle()
    everything: dict[int | None, list[str]] = {s: [] for s in pages}
    before = len(room.workers.platform.log)

    # plays through the sockets
    assert await play(room, match_id, pages, until_hand=2, plays=16) == 16
    assert b.worker.cluster.stats.forwarded > 0 and a.worker.cluster.stats.received > 0
    assert a.worker.cluster.stats.live_sent > 0 and b.worker.cluster.follower.reads > 0
    # the seats whose pages b serves count as on the web: their hands in the chat stay folded
    private = [e for e in room.workers.platform.log[before:] if e.op in ("send", "edit") and e.where.private]
    assert private == [], [(e.where.chat_id, e.view.text[:40]) for e in private]

    # the owner stops as on SIGTERM: its pages close (the page reconnects, here to b); b's stay open
    for s in (0, 2):
        everything[s] += pages[s].raw
        await pages[s].close()
    await a.web.stop()
    await a.worker.stop()
    await b.worker.cluster.beat()  # its next beat, without waiting for it
    assert match_id in b.worker.host.tables
    for s in (0, 2):
        pages[s] = await room.page(b, match_id, uid[s])
    table = b.worker.host.tables[match_id]
    for p in pages.values():
        await p.until(lambda st: st["version"] == table.match.version)
    assert await play(room, match_id, pages, until_hand=3, plays=12) == 12

    # b dies (its lease lapses, as after a SIGKILL); c takes the table over; sockets on c see it through
    c = await room.serve("wc")
    for s in (1, 3, None):
        everything[s] += pages[s].raw
        await pages[s].close()
        pages[s] = await room.page(c, match_id, uid[s] if s is not None else None)
    for s in (0, 2):  # their socket on b dies with it
        everything[s] += pages[s].raw
        await pages[s].close()
    b.worker.cluster.stopping = True
    for task in (b.worker.cluster._task, b.worker.cluster._renewer):
        if task is not None:
            task.cancel()
    await b.web.stop()
    for t in list(b.worker.host.tables.values()):
        t.abandon()
    b.worker.host.tables.clear()
    await room.workers.db_clock.advance(3.1)  # its lease (3 s) runs out
    await c.worker.cluster.beat()
    assert match_id in c.worker.host.tables
    for s in (0, 2):
        pages[s] = await room.page(c, match_id, uid[s])
    assert await play(room, match_id, pages, until_hand=3, plays=8) == 8

    for s, p in pages.items():
        everything[s] += p.raw
    assert await leaks(a_rig(room, c), match_id, everything) == []


async def test_a_page_follows_a_best_of_three_to_its_next_game_on_another_worker(room: Room) -> None:
    """Game 1 of a best of three ends on worker a's table (a team concedes it) and a deals game 2:
    a page on b that says hello to game 1 again is told where the series went; then game 2 is
    handed to b, and a page on a is moved to it too. The link it is given opens game 2 at the
    person's seat on a worker that does not drive it (the proxy may send the page anywhere). Before,
    each got `no_table`: the next game was looked for in the serving worker's own tables only.
    The workers beat only when the test says."""
    a = await room.serve("wa", beat=3600)
    b = await room.serve("wb", beat=3600)
    d = Driver(room.workers.platform, "g1")
    first = await open_table(room, a, "format=bo3", d=d)
    table = a.worker.host.tables[first]
    uid = {s: str(table.seats[s].user_id) for s in range(4)}
    for s in (0, 2):
        await a.worker.host.handle(d.command(uid[s], "forfeit"))
        await a.worker.host.settle()
    second = a.worker.host.by_chat[(room.workers.platform.name, "g1")].id
    assert second != first and first not in b.worker.host.tables

    async def moved(at: Served, uid: str | None) -> dict[str, Any]:
        old = await room.page(at, first, uid)
        assert await old.ended() == 4302
        return old.received[-1]

    for person in (uid[1], None):  # game 2 on a, the pages (a seat, an onlooker by link) on b
        got = await moved(b, person)
        assert got["type"] == "moved" and got["match"] == second

    await a.worker.cluster._hand_over(second)  # game 2 goes to b
    await b.worker.cluster.beat()
    assert second in b.worker.host.tables and second not in a.worker.host.tables
    second_table = b.worker.host.tables[second]
    for person in (uid[3], None):  # the pages on a
        got = await moved(a, person)
        assert got["type"] == "moved" and got["match"] == second
        new = Client(room.session, str(a.server.make_url("/ws")))  # the proxy may send it to a again
        await new.connect({"link": got["link"]}, second)
        st = await new.until(lambda st: st.get("type") == "state")
        assert st["match"] == second and st["seat"] == (second_table.seat_of(person) if person else None)
        await new.close()


def a_rig(room: Room, at: Served) -> Any:
    """What `tests.web.conftest.leaks` reads: the store."""
    return type("R", (), {"store": at.worker.store})()
