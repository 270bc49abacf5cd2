"""Deploys and database restarts under load: nothing a person sent may be lost or left unanswered.

The same rig as the failover run (`fakes.failover`): worker processes (`fakes.worker_child`) on one
PostgreSQL database, people at every table typing their legal action at a pace, each update
sent to a live worker picked at random, as a load balancer in front of webhooks does. The
worker's `/update` answers as a webhook is answered: 503 when the update was not stored (or the
worker drains), and then the same update goes again, as Telegram redelivers; 200 with the
bot's answer once it was. Two disturbances:

- `run_rolling`: a rolling restart. Each worker in turn gets SIGTERM (a deploy) and a new one
  starts in its place. Measured: for each SIGTERM, the seconds until every table the worker
  drove is held by another live worker; over the whole run, from a watcher reading the leases
  every 20 ms, the longest time any open table had no live holder.
- `run_restarts`: the database server restarted N times (the caller's `restart`), the workers
  left running.

Checked in both: no update answered 200 without an answer (an update taken must be answered),
every acknowledged action in a log once, every log replays, every table moved on.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import random
import signal
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import aiohttp
import asyncpg
from aiohttp import web

from bot.cluster import encode
from bot.platform import Incoming
from fakes.failover import (
    Cluster,
    FailoverReport,
    Table,
    WorkerProcess,
    _check,
    _event,
    _failover_time,
    _read,
    free_port,
    play_on,
)
from fakes.typed import typed_text

#: Seconds a person waits for the bot's answer to an update it took: as long as Telegram takes an
#: answer to a press (about 15 s; the adapter's own limit is 12, adapters/telegram/inbound.py).
ANSWER_WAIT = 12.0


@dataclass
class DeployReport(FailoverReport):
    """`FailoverReport` plus what a deploy or a database restart may do wrong."""

    not_taken: int = 0  # deliveries refused (503, connection refused): sent again
    unanswered: list[str] = field(default_factory=list)  # taken (200) without an answer
    answered_twice: list[str] = field(default_factory=list)  # answered in two ways: "key: answer | answer"
    # stored, yet its first answer was not the "✓" of an applied move: "key: answer" (a person presses again)
    applied_unacked: list[str] = field(default_factory=list)
    terms: int = 0  # SIGTERMs
    undriven: list[float] = field(default_factory=list)  # per SIGTERM: until its tables had new holders
    exits: list[float] = field(default_factory=list)  # per SIGTERM: until the process ended
    longest_gap: float = 0.0  # the longest time an open table had no live holder (the watcher's)
    restarts: int = 0
    slowest_answer: float = 0.0  # seconds from a taken delivery's 200 to its answer, at most
    store: dict[str, float] = field(default_factory=dict)  # the live workers' store metrics at the end
    not_ready: dict[str, int] = field(default_factory=dict)  # /readyz 503s seen during the disturbances, by why

    @property
    def ok(self) -> bool:
        return super().ok and not self.unanswered and not self.answered_twice and not self.applied_unacked

    def text(self) -> str:
        lines = [super().text(), f"deliveries refused and sent again: {self.not_taken},"
                                 f" taken but unanswered: {len(self.unanswered)},"
                                 f" answered twice: {self.answered_twice},"
                                 f" applied but not answered as applied: {self.applied_unacked};"
                                 f" slowest answer after the 200: {self.slowest_answer:.2f} s"]
        if self.terms:
            lines.append(f"SIGTERMs: {self.terms}; tables held elsewhere after (max) {max(self.undriven):.2f} s;"
                         f" process exit after (max) {max(self.exits):.2f} s;"
                         f" longest time a table had no live holder: {self.longest_gap:.2f} s")
        if self.restarts:
            lines.append(f"database restarts: {self.restarts}; the workers' store metrics at the end: {self.store}")
        lines.append(f"/readyz said 503 during the disturbances: {self.not_ready}")
        return "\n".join(lines)


class Deliveries(Cluster):
    """`fakes.failover.Cluster` with the platform's answer API: the workers post each answer to
    `answers` (whichever worker serves the update, as any worker answers a Telegram press), and
    a send tells a refused delivery from a taken one left unanswered."""

    def __init__(self, url: str, rng: random.Random, session: aiohttp.ClientSession, report: DeployReport) -> None:
        super().__init__(url, rng, session)
        self.report = report
        self.answered: dict[str, list[str]] = {}  # update key -> every answer it got
        self.typed: set[str] = set()  # the keys of the people's moves
        self._heard: dict[str, asyncio.Event] = {}
        self._runner: web.AppRunner | None = None

    async def serve_answers(self) -> None:
        app = web.Application()
        app.router.add_post("/answer", self._on_answer)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        port = free_port()
        await web.TCPSite(self._runner, "127.0.0.1", port).start()
        self.answers = f"http://127.0.0.1:{port}/answer"

    async def close(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()

    async def _on_answer(self, request: web.Request) -> web.Response:
        data = await request.json()
        key = str(data["key"])
        self.answered.setdefault(key, []).append(str(data["text"]))
        self._heard.setdefault(key, asyncio.Event()).set()
        return web.json_response({"ok": True})

    async def send(self, event: Incoming, *, wait: bool = True) -> str | None:
        """The bot's answer; None when the delivery was refused (the caller sends it again)."""
        live = [w for w in self.workers if w.alive]
        if not live:
            return None
        w = self.rng.choice(live)
        self.sent += 1
        heard = self._heard.setdefault(event.key, asyncio.Event())
        try:
            async with self.session.post(f"http://127.0.0.1:{w.port}/update", json=encode(event),
                                         timeout=aiohttp.ClientTimeout(total=40)) as r:
                if r.status != 200:
                    self.report.not_taken += 1
                    return None
        except (TimeoutError, aiohttp.ClientError, ValueError):
            self.report.not_taken += 1
            return None
        if not wait:
            return ""
        taken = time.monotonic()
        try:
            await asyncio.wait_for(heard.wait(), ANSWER_WAIT)
            self.report.slowest_answer = max(self.report.slowest_answer, time.monotonic() - taken)
        except TimeoutError:
            self.report.unanswered.append(event.key)
            return ""  # taken: not sent again
        answer = self.answered[event.key][0]
        if answer == "✓":
            self.acked.add(event.key)
        return answer


async def _people(c: Deliveries, conn: asyncpg.Pool, t: Table, until: float, pace: tuple[float, float]) -> None:
    """The four people of one table: one typed action at a time; a refused delivery goes again."""
    pending: tuple[str, str, str] | None = None  # (user, text, key)
    give_up = until + 60.0  # an update refused for a minute: the run has failed anyway
    while time.monotonic() < until or (pending is not None and time.monotonic() < give_up):
        await asyncio.sleep(c.rng.uniform(*pace))
        if pending is None:
            with contextlib.suppress(Exception):  # a restarting database: read again next time
                await _read(conn, t)
            m = t.match
            if m is None or m.result is not None:
                continue
            for seat in m.to_act():
                auto = m.auto_action(seat)
                if auto is not None:
                    pending = (t.seats[seat], typed_text(auto.to_json()), c.key())
                    break
            if pending is None:
                continue
        uid, text, key = pending
        c.typed.add(key)
        if await c.send(_event("text", uid, t.chat, key, private=True, text=text)) is not None:
            pending = None


class Watcher:
    """Reads the leases every 20 ms: for each open table, the longest stretch with no live holder."""

    def __init__(self, url: str, c: Deliveries, report: DeployReport) -> None:
        self.url, self.c, self.report = url, c, report
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._watch())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def _watch(self) -> None:
        since: dict[int, float] = {}
        conn = await asyncpg.connect(self.url)
        try:
            while True:
                live = {w.name for w in self.c.workers if w.alive}
                rows = await conn.fetch(
                    "SELECT m.id, l.worker FROM matches m LEFT JOIN leases l ON l.match_id = m.id"
                    " AND l.expires_at > extract(epoch FROM clock_timestamp()) WHERE m.finished_at IS NULL"
                    " AND m.status = 'active'")
                now = time.monotonic()
                for mid, holder in rows:
                    if holder is not None and holder in live:
                        start = since.pop(int(mid), None)
                        if start is not None:
                            self.report.longest_gap = max(self.report.longest_gap, now - start)
                    else:
                        since.setdefault(int(mid), now)
                await asyncio.sleep(0.02)
        finally:
            await conn.close()


async def _probe(c: Deliveries, report: DeployReport, workers: list[WorkerProcess], stop: asyncio.Event) -> None:
    """Asks the workers' /readyz every 20 ms until `stop`, counting the 503s by their reason."""
    while not stop.is_set():
        for w in workers:
            if not w.alive:
                continue
            with contextlib.suppress(aiohttp.ClientError, TimeoutError, ValueError):
                async with c.session.get(f"http://127.0.0.1:{w.port}/readyz",
                                         timeout=aiohttp.ClientTimeout(total=2)) as r:
                    if r.status == 503:
                        why = str((await r.json()).get("why"))
                        report.not_ready[why] = report.not_ready.get(why, 0) + 1
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), 0.02)


async def _setup(c: Deliveries, conn: asyncpg.Pool, workers: int, tables: int) -> list[Table]:
    for _ in range(workers):
        await c.add_worker()
    ts = [Table(i) for i in range(tables)]
    for t in ts:  # opened through random workers; the opener drives it until the shares settle
        while await c.send(_event("command", t.users[0], t.chat, c.key(), name="new", args=("classic", "target=A")),
                           wait=False) is None:
            await asyncio.sleep(0.05)
        for uid in t.users[1:]:
            while await c.send(_event("command", uid, t.chat, c.key(), name="join"), wait=False) is None:
                await asyncio.sleep(0.05)
        t.match_id = await conn.fetchval(
            "SELECT m.id FROM matches m JOIN chats c ON c.id = m.chat WHERE c.chat_id = $1", t.chat)
    asked: dict[int, float] = {}
    for _ in range(1200):  # once everyone sits, the first person starts (again if unheard)
        rows = await conn.fetch("SELECT id, status FROM matches")
        if {r[1] for r in rows} == {"active"}:
            return ts
        for mid, status in rows:
            if status == "lobby" and time.monotonic() - asked.get(mid, 0.0) > 2.0:
                t = next(t for t in ts if t.match_id == mid)
                await c.send(_event("command", t.users[0], t.chat, c.key(), name="start"), wait=False)
                asked[mid] = time.monotonic()
        await asyncio.sleep(0.05)
    raise AssertionError("tables did not start")


async def _finish(c: Deliveries, conn: asyncpg.Pool, ts: list[Table], report: DeployReport, final: float,
                  pace: tuple[float, float]) -> None:
    """Play on until every table moved on past where it stood at the last disturbance; then check."""
    await play_on(conn, ts, report, final, lambda t, until: _people(c, conn, t, until, pace))
    for w in c.workers:  # what the store met, from the workers' metrics
        if w.alive:
            with contextlib.suppress(aiohttp.ClientError, TimeoutError):
                async with c.session.get(f"http://127.0.0.1:{w.port}/metrics") as r:
                    for line in (await r.text()).splitlines():
                        name, _, value = line.partition(" ")
                        if name in ("tractor_store_errors_total", "tractor_store_retries_total"):
                            report.store[name] = report.store.get(name, 0.0) + float(value)
    for w in c.workers:  # the logs are checked at rest
        if w.alive:
            await w.kill()
    await _check(conn, c, report)
    # every move stored was answered as applied, by whichever worker applied it (issue 32, item 6)
    stored = {str(r[0]) for r in await conn.fetch("SELECT key FROM actions WHERE key IS NOT NULL")}
    report.applied_unacked = sorted(f"{k}: {(c.answered.get(k) or ['(none)'])[0]!r}" for k in stored & c.typed
                                    if (c.answered.get(k) or [""])[0] != "✓")


#: How a worker's log line begins (fakes/worker_child.py's format): anything else continues a traceback.
_LEVELS = ("debug ", "info ", "warning ", "error ", "critical ")


def _errors(output: list[str]) -> list[str]:
    """A worker's error lines, each with the last line of its traceback (the exception and its
    message), so that a failed run says why and not only that."""
    found: list[str] = []
    for i, line in enumerate(output):
        if not line.startswith("error"):
            continue
        tail = list(itertools.takewhile(lambda ln: not ln.startswith(_LEVELS), output[i + 1:]))
        found.append(f"{line} <- {tail[-1]}" if tail else line)
    return found


async def _run(url: str, workers: int, tables: int, seed: int, pace: tuple[float, float], final: float,
               disturb: Callable[[Deliveries, asyncpg.Pool, list[Table], DeployReport], Awaitable[None]],
               ) -> DeployReport:
    rng = random.Random(seed)
    report = DeployReport(workers, tables)
    started = time.monotonic()
    conn = await asyncpg.create_pool(url, min_size=1, max_size=8)  # the people's eyes, table by table
    c: Deliveries | None = None
    try:
        async with aiohttp.ClientSession() as session:
            c = Deliveries(url, rng, session, report)
            await c.serve_answers()
            try:
                ts = await _setup(c, conn, workers, tables)
                await disturb(c, conn, ts, report)
                await _finish(c, conn, ts, report, final, pace)
            finally:
                for w in c.workers:
                    if w.alive:
                        await w.kill()
                for w in c.workers:
                    report.errors += [line for line in _errors(w.output)
                                      if "lease lost" not in line and "lost table" not in line]
                # a delivery that was taken though it was refused (its commit's answer lost) is taken
                # again: its answers must agree (Telegram shows the first; a person must not be told
                # "done" and "not done" for one press)
                report.answered_twice = [f"{k}: {' | '.join(said)}" for k, said in c.answered.items()
                                         if len(set(said)) > 1]
                for key in [*report.unanswered, *(k.split(":")[0] for k in report.answered_twice)]:
                    report.errors += [f"{w.name}: {line}" for w in c.workers for line in w.output
                                      if f" {key} " in f" {line} " or f"{key}:" in line]
                for mid in report.stuck:  # what the workers said about a stuck table, to tell why
                    report.errors += [f"{w.name}: {line}" for w in c.workers for line in w.output
                                      if f"table {mid}" in line]
                await c.close()
    finally:
        await conn.close()
    assert c is not None
    report.slow = [s for s in report.failover if s > 10.0]
    report.sent = c.sent
    report.acknowledged = len(c.acked)
    report.seconds = time.monotonic() - started
    return report


async def run_rolling(url: str, *, workers: int = 3, tables: int = 4, seed: int = 1,
                      up: tuple[float, float] = (0.5, 1.0), pace: tuple[float, float] = (0.01, 0.05),
                      final: float = 20.0) -> DeployReport:
    """Every worker in turn: SIGTERM under load, a new one started in its place."""

    async def disturb(c: Deliveries, conn: asyncpg.Pool, ts: list[Table], report: DeployReport) -> None:
        watcher = Watcher(url, c, report)
        watcher.start()
        try:
            for victim in list(c.workers):
                await asyncio.gather(*(_people(c, conn, t, time.monotonic() + c.rng.uniform(*up), pace) for t in ts))
                held = [int(r[0]) for r in await conn.fetch("SELECT match_id FROM leases WHERE worker = $1",
                                                            victim.name)]
                people = [asyncio.create_task(_people(c, conn, t, time.monotonic() + 2.0, pace)) for t in ts]
                termed = time.monotonic()
                measure = asyncio.create_task(_failover_time(c, conn, victim.name, held, termed))
                probed = asyncio.Event()
                probe = asyncio.create_task(_probe(c, report, [victim], probed))
                await victim.kill(signal.SIGTERM)  # returns once the process ended
                probed.set()
                await probe
                report.exits.append(time.monotonic() - termed)
                report.terms += 1
                report.undriven.append(await asyncio.wait_for(measure, 30))
                await c.add_worker()  # its replacement, as the deploy starts the new version
                await asyncio.gather(*people)
        finally:
            await watcher.stop()

    return await _run(url, workers, tables, seed, pace, final, disturb)


async def run_restarts(url: str, restart: Callable[[], Awaitable[Any]], *, restarts: int = 5, workers: int = 2,
                       tables: int = 4, seed: int = 1, up: tuple[float, float] = (0.3, 0.8),
                       pace: tuple[float, float] = (0.01, 0.05), final: float = 20.0) -> DeployReport:
    """The database restarted `restarts` times while people play; the workers stay up."""

    async def disturb(c: Deliveries, conn: asyncpg.Pool, ts: list[Table], report: DeployReport) -> None:
        for _ in range(restarts):
            people = [asyncio.create_task(_people(c, conn, t, time.monotonic() + c.rng.uniform(*up), pace))
                      for t in ts]
            await asyncio.sleep(c.rng.uniform(0.1, 0.3))  # mid-play
            probed = asyncio.Event()
            probe = asyncio.create_task(_probe(c, report, list(c.workers), probed))
            await restart()
            probed.set()
            await probe
            report.restarts += 1
            await conn.expire_connections()  # the people's own connections died with the server
            await asyncio.gather(*people)

    return await _run(url, workers, tables, seed, pace, final, disturb)

