"""Web pages on several workers: worker processes serving the web table (`fakes.web_worker_child`)
on one PostgreSQL database, tables of four people opened through them, and pages (sockets) that
may be opened on any worker, as a reverse proxy sending each to a worker of its own choosing would.

A page keeps everything the server sent it (the tests leak-scan it) and when each state arrived
(the latency benchmark, `benchmarks.web_workers`). `Room.act` has the seat to act play the engine's
quick move (asked of the owner's `/bench/auto`) from its page, and waits until the given pages
show it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import aiohttp
import asyncpg

from adapters.web.auth import LinkSigner
from bot.cluster import encode
from bot.platform import Incoming, User, Where
from fakes.failover import WorkerProcess
from fakes.web_worker_child import SECRET

PLATFORM = "fake"


class WebWorker(WorkerProcess):
    """A worker process serving the web table on its port (`fakes.web_worker_child`)."""

    def __init__(self, url: str, name: str, ttl: float | None = None) -> None:
        super().__init__(url, name)
        self.ttl = ttl

    def argv(self) -> list[str]:
        return ["fakes.web_worker_child", self.url, self.name, str(self.port)] + ([str(self.ttl)] if self.ttl else [])

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"


@dataclass(eq=False)
class Page:
    """One page's socket: every text the server sent, and each state's arrival time."""

    worker: WebWorker
    seat: int | None
    raw: list[str] = field(default_factory=list)
    states: list[dict[str, Any]] = field(default_factory=list)
    arrived: list[tuple[float, int]] = field(default_factory=list)  # (monotonic time, version)
    answers: dict[str, dict[str, Any]] = field(default_factory=dict)
    ws: aiohttp.ClientWebSocketResponse | None = None
    reader: asyncio.Task[None] | None = None
    closed: asyncio.Event = field(default_factory=asyncio.Event)
    close_code: int | None = None
    news: asyncio.Event = field(default_factory=asyncio.Event)  # set at each text and at the close

    @property
    def version(self) -> int:
        return int(self.states[-1].get("version", 0)) if self.states else -1

    async def read(self) -> None:
        assert self.ws is not None
        try:
            async for msg in self.ws:
                if msg.type != aiohttp.WSMsgType.TEXT:
                    continue
                now = time.monotonic()
                self.raw.append(msg.data)
                data = json.loads(msg.data)
                if data.get("type") == "state":
                    self.states.append(data)
                    self.arrived.append((now, int(data.get("version", 0))))
                elif data.get("type") == "notice":
                    self.answers[str(data.get("key"))] = data
                self.news.set()
        finally:
            self.close_code = self.ws.close_code
            self.closed.set()
            self.news.set()

    async def next_text(self) -> None:
        """Waits for the next text the server sends (or the close)."""
        self.news.clear()
        await self.news.wait()

    async def until(self, version: int, timeout: float = 20.0) -> float:
        """Waits for a state of at least this version; when it arrived."""
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(timeout):
                while True:
                    for at, v in self.arrived:
                        if v >= version:
                            return at
                    if self.closed.is_set():
                        raise ConnectionError(f"the page of seat {self.seat} was closed ({self.close_code}):"
                                              f" {self.raw[-1:]}")
                    await self.next_text()
        raise AssertionError(f"seat {self.seat} on {self.worker.name} never showed version {version}"
                             f" (it shows {self.version})")

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()
        if self.reader is not None:
            with contextlib.suppress(Exception):
                await self.reader


@dataclass
class Seated:
    match_id: int
    users: list[str]  # by seat


class Room:
    """Workers, their tables and the pages open on them."""

    def __init__(self, url: str, session: aiohttp.ClientSession) -> None:
        self.url, self.session = url, session
        self.workers: list[WebWorker] = []
        self.signer = LinkSigner(SECRET)
        self.keys = 0
        self.pool: asyncpg.Pool | None = None

    async def add_worker(self, name: str, ttl: float | None = None) -> WebWorker:
        w = WebWorker(self.url, name, ttl)
        await w.start()
        self.workers.append(w)
        return w

    async def db(self) -> asyncpg.Pool:
        if self.pool is None:
            self.pool = await asyncpg.create_pool(self.url, min_size=1, max_size=4)
        return self.pool

    async def close(self) -> None:
        for w in self.workers:
            if w.alive:
                await w.kill()
        if self.pool is not None:
            await self.pool.close()

    def key(self) -> str:
        self.keys += 1
        return f"b{self.keys}"

    async def command(self, at: WebWorker, uid: str, chat: str, name: str, *args: str) -> None:
        event = Incoming("command", User(PLATFORM, uid, f"P{uid}", "en"), Where(PLATFORM, chat), key=self.key(),
                         name=name, args=args)
        async with self.session.post(f"{at.base}/update?wait=0", json=encode(event)) as r:
            assert r.status == 200

    async def open_table(self, at: WebWorker, chat: str) -> Seated:
        """Four people at a new table in `chat`, opened and started through `at` (which drives it first)."""
        users = [f"{chat}-{k}" for k in range(4)]
        await self.command(at, users[0], chat, "new")
        for uid in users[1:]:
            await self.command(at, uid, chat, "join")
        pool = await self.db()
        for _ in range(500):
            row = await pool.fetchrow("SELECT m.id, m.status, m.seats FROM matches m JOIN chats c ON c.id = m.chat"
                                      " WHERE c.chat_id = $1 ORDER BY m.id DESC LIMIT 1", chat)
            if row is not None:
                seats = json.loads(row["seats"])
                if row["status"] == "active":
                    return Seated(int(row["id"]), [str(s["user_id"]) for s in seats])
                if row["status"] == "lobby" and sum(s.get("kind") == "human" for s in seats) == 4:
                    await self.command(at, users[0], chat, "start")
            await asyncio.sleep(0.05)
        raise AssertionError(f"the table of {chat} did not start")

    async def version(self, match_id: int) -> int:
        """The table's version in the store."""
        pool = await self.db()
        return int(await pool.fetchval("SELECT version FROM matches WHERE id = $1", match_id))

    async def owner(self, match_id: int) -> str | None:
        pool = await self.db()
        found = await pool.fetchval("SELECT worker FROM leases WHERE match_id = $1"
                                    " AND expires_at > extract(epoch FROM clock_timestamp())", match_id)
        return None if found is None else str(found)

    async def page(self, at: WebWorker, t: Seated, seat: int | None) -> Page:
        token = self.signer.sign(PLATFORM, t.match_id, None if seat is None else t.users[seat])
        p = Page(at, seat)
        p.ws = await self.session.ws_connect(f"{at.base}/ws", max_msg_size=0)
        await p.ws.send_json({"t": "hello", "auth": {"link": token}, "match": t.match_id})
        p.reader = asyncio.create_task(p.read())
        return p

    async def auto(self, match_id: int, seat: int) -> dict[str, Any] | None:
        """The engine's quick move for this seat, from whichever live worker drives the table."""
        for w in self.workers:
            if not w.alive:
                continue
            with contextlib.suppress(aiohttp.ClientError):
                async with self.session.get(f"{w.base}/bench/auto", params={"m": match_id, "s": seat}) as r:
                    found = await r.json()
                if found is not None:
                    return dict(found)
        return None

    async def act(self, t: Seated, pages: dict[int | None, Page], *,
                  timeout: float = 30.0) -> tuple[str, int, int, float] | None:
        """The seat to act (as its page shows) plays the engine's quick move from its page; returns
        (what it did, its seat, the version before, when it was sent); None if nobody acted in time."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            state = next((p.states[-1] for p in pages.values() if p.states), None)
            table = ((state or {}).get("scene") or {}).get("table") or {}
            to_act = list((table.get("turn") or {}).get("seats") or [])
            if state is None or state.get("status") != "active" or not to_act:
                await _next_text(pages.values(), 0.01)
                continue
            s = int(to_act[0])
            a = await self.auto(t.match_id, s)
            version = int(state["version"])
            if a is None or int(a["version"]) != version:
                await _next_text(pages.values(), 0.01)  # the page is behind the table, or the table is moving
                continue
            page = pages[s]
            key = self.key()
            sent = time.monotonic()
            assert page.ws is not None
            await page.ws.send_json({"t": "act", "a": a["t"], "cards": a.get("cards", []), "key": key})
            while key not in page.answers:
                if time.monotonic() > end or page.closed.is_set():
                    raise AssertionError(f"no answer to seat {s}'s {a['t']} on {page.worker.name}")
                await _next_text([page], max(0.0, end - time.monotonic()))
            answer = page.answers[key]
            if not answer["ok"] and await self.version(t.match_id) > version:
                continue  # the table moved on meanwhile (a window closed in real time): act on what it shows now
            assert answer["ok"], answer
            return str(a["t"]), s, version, sent
        return None


async def _next_text(pages: Iterable[Page], at_most: float) -> None:
    """Waits until any of the pages gets a text from the server, or `at_most` seconds."""
    waits = [asyncio.ensure_future(p.next_text()) for p in pages]
    try:
        await asyncio.wait(waits, timeout=at_most, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for w in waits:
            w.cancel()
