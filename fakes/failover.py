"""Failover under load: several workers on one PostgreSQL database, SIGKILLed at random moments.

Each worker is its own process (`fakes.worker_child`); every update goes to a worker picked at
random, as a load balancer in front of webhooks would do, so most updates reach a worker that
does not drive their table and go on through the inbox. Four people sit at every table and
type their legal action into their private chat at a pace; they read the state from the
database, as a person reads the screen. An action is *acknowledged* when the bot answered "✓".
An update that got no answer (its worker died, the table was moving) is sent again, with the
same key, to another worker, as a platform redelivers it.

Measured and checked: for each kill, the seconds until every table of the dead worker is held
by a live one (failover time); at the end, every acknowledged action is in a log, no key twice,
every log replays through the engine, every table moved on after the last kill.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import socket
import statistics
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal

import aiohttp
import asyncpg

import engine
from bot.cluster import encode
from bot.platform import Incoming, User, Where
from fakes.child import ChildProcess
from fakes.typed import typed_text

Kind = Literal["command", "press", "text", "inline_query", "chosen"]


@dataclass
class FailoverReport:
    workers: int
    tables: int
    kills: int = 0
    sent: int = 0
    acknowledged: int = 0
    actions: int = 0
    finished: int = 0
    failover: list[float] = field(default_factory=list)
    lost: list[str] = field(default_factory=list)
    doubled: list[str] = field(default_factory=list)
    stuck: list[int] = field(default_factory=list)
    slow: list[float] = field(default_factory=list)  # failovers over 10 s
    errors: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not (self.lost or self.doubled or self.stuck or self.slow)

    def text(self) -> str:
        fo = self.failover or [0.0]
        return "\n".join([
            f"{self.workers} workers, {self.tables} tables, {self.kills} SIGKILLs in {self.seconds:.1f}s",
            f"updates sent: {self.sent}, acknowledged: {self.acknowledged}, actions in the logs: {self.actions},"
            f" matches finished: {self.finished}",
            f"failover: median {statistics.median(fo):.2f}s, max {max(fo):.2f}s over {len(self.failover)} kills",
            f"acknowledged actions lost: {len(self.lost)}, applied twice: {len(self.doubled)},"
            f" tables stuck: {len(self.stuck)}, failovers over 10 s: {len(self.slow)},"
            f" worker errors: {len(self.errors)}",
        ])


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class WorkerProcess(ChildProcess):
    """A worker (`fakes.worker_child`) on the PostgreSQL database, taking updates on its own port."""

    def __init__(self, url: str, name: str, answers: str = "") -> None:
        super().__init__()
        self.url, self.name, self.port, self.answers = url, name, free_port(), answers

    def argv(self) -> list[str]:
        return ["fakes.worker_child", self.url, self.name, str(self.port), *([self.answers] if self.answers else [])]


class Table:
    def __init__(self, index: int) -> None:
        self.index = index
        self.chat = f"g{index}"
        self.users = [f"{index}-{i}" for i in range(4)]
        self.match_id: int | None = None
        self.match: Any = None
        self.seats: list[str] = []


class Cluster:
    """The workers, and the people sending them updates."""

    def __init__(self, url: str, rng: random.Random, session: aiohttp.ClientSession) -> None:
        self.url, self.rng, self.session = url, rng, session
        self.workers: list[WorkerProcess] = []
        self.generation = 0
        self.sent = 0
        self.acked: set[str] = set()
        self.keys = 0

    answers = ""  # where the workers post their answers (fakes.deploys), else in the webhook's reply

    async def add_worker(self) -> WorkerProcess:
        self.generation += 1
        w = WorkerProcess(self.url, f"w{self.generation}", self.answers)
        await w.start()
        self.workers.append(w)
        return w

    async def send(self, event: Incoming, *, wait: bool = True) -> str | None:
        """Posts an update to a live worker at random; its answer, or None (no answer: try again)."""
        live = [w for w in self.workers if w.alive]
        if not live:
            return None
        w = self.rng.choice(live)
        self.sent += 1
        try:
            async with self.session.post(f"http://127.0.0.1:{w.port}/update" + ("" if wait else "?wait=0"),
                                         json=encode(event),
                                         timeout=aiohttp.ClientTimeout(total=8)) as r:
                answer = (await r.json()).get("answer")
        except (TimeoutError, aiohttp.ClientError, ValueError):
            return None
        if answer == "✓":
            self.acked.add(event.key)
        return None if answer is None else str(answer)

    def key(self) -> str:
        self.keys += 1
        return f"u{self.keys}"


def _event(kind: Kind, uid: str, chat: str, key: str, *, private: bool = False, **kw: Any) -> Incoming:
    return Incoming(kind, User("fake", uid, f"P{uid}", "en"), Where("fake", uid if private else chat, private),
                    key=key, **kw)


async def _read(conn: asyncpg.Pool, t: Table) -> None:
    row = await conn.fetchrow("SELECT rules, seed, seats, status FROM matches WHERE id = $1", t.match_id)
    if row is None or row["status"] == "lobby":
        return
    if t.match is None:
        t.match = engine.Match.new(engine.Rules.from_dict(json.loads(row["rules"])), seed=int(row["seed"]))
        t.seats = [str(s.get("user_id", "")) for s in json.loads(row["seats"])]
    rows = await conn.fetch("SELECT action FROM actions WHERE match_id = $1 AND seq >= $2 ORDER BY seq",
                            t.match_id, t.match.version)
    for r in rows:
        t.match.apply(json.loads(r[0]))


async def _people(c: Cluster, conn: asyncpg.Pool, t: Table, until: float, pace: tuple[float, float]) -> None:
    """The four people of one table: one typed action at a time, the same update again when unanswered."""
    pending: tuple[str, str, str] | None = None  # (user, text, key)
    while time.monotonic() < until:
        await asyncio.sleep(c.rng.uniform(*pace))
        if pending is None:
            with contextlib.suppress(asyncpg.PostgresError, OSError):
                await _read(conn, t)
            m = t.match
            if m is None or m.result is not None:
                continue
            for seat in m.to_act():
                auto = m.auto_action(seat)
                if auto is not None:
                    a = auto.to_json()
                    text = typed_text(a)
                    pending = (t.seats[seat], text, c.key())
                    break
            if pending is None:
                continue
        uid, text, key = pending
        answer = await c.send(_event("text", uid, t.chat, key, private=True, text=text))
        if answer is not None:
            pending = None


async def _failover_time(c: Cluster, conn: asyncpg.Pool, dead: str, tables: list[int],
                         killed_at: float) -> float:
    """Seconds from the kill until every table the dead worker held is held by a live worker."""
    while tables:
        live = {w.name for w in c.workers if w.alive}
        rows = await conn.fetch(
            "SELECT match_id, worker FROM leases WHERE match_id = ANY($1::bigint[])"
            " AND expires_at > extract(epoch FROM clock_timestamp())", tables)
        held = {int(r[0]) for r in rows if r[1] != dead and r[1] in live}
        finished = {int(r[0]) for r in await conn.fetch(
            "SELECT id FROM matches WHERE id = ANY($1::bigint[]) AND finished_at IS NOT NULL", tables)}
        tables = [m for m in tables if m not in held | finished]
        if tables:
            await asyncio.sleep(0.05)
    return time.monotonic() - killed_at


async def play_on(conn: asyncpg.Pool, ts: list[Table], report: FailoverReport, final: float,
                  people: Callable[[Table, float], Awaitable[None]]) -> None:
    """Play on (`people(table, until)`, a second at a time, for at most `final` seconds) until every
    table moved on past where it stands now, the last disturbance; then count the finished and the
    stuck into `report`."""
    before = {t.match_id: (t.match.version if t.match else 0) for t in ts}
    end = time.monotonic() + final
    while time.monotonic() < end:
        await asyncio.gather(*(people(t, time.monotonic() + 1.0) for t in ts))
        if all(t.match is not None and (t.match.result is not None or t.match.version > before[t.match_id])
               for t in ts):
            break
    for t in ts:
        await _read(conn, t)
        done = t.match is not None and t.match.result is not None
        report.finished += done
        if not done and (t.match is None or t.match.version <= before[t.match_id]):
            assert t.match_id is not None
            report.stuck.append(t.match_id)


async def run_failover(url: str, *, workers: int = 3, tables: int = 6, kills: int = 10, seed: int = 1,
                       up: tuple[float, float] = (1.0, 3.0), pace: tuple[float, float] = (0.01, 0.05),
                       final: float = 20.0, acks_between: int = 0, log: Any = None) -> FailoverReport:
    """`workers` workers, `tables` tables of four people, `kills` SIGKILLs of a worker picked at random,
    each `up` seconds after the last and not before the people's actions got `acks_between` more
    acknowledgements (on a loaded machine the time alone may see few); see the module docstring."""
    rng = random.Random(seed)
    report = FailoverReport(workers, tables)
    started = time.monotonic()
    conn = await asyncpg.create_pool(url, min_size=1, max_size=8)  # the people's eyes, table by table
    watch = await asyncpg.create_pool(url, min_size=1, max_size=4)
    async with aiohttp.ClientSession() as session:
        c = Cluster(url, rng, session)
        try:
            for _ in range(workers):
                await c.add_worker()
            ts = [Table(i) for i in range(tables)]
            for t in ts:  # opened through random workers; the opener drives it until the shares settle
                await c.send(_event("command", t.users[0], t.chat, c.key(), name="new", args=("classic", "target=A")),
                             wait=False)
                for uid in t.users[1:]:
                    await c.send(_event("command", uid, t.chat, c.key(), name="join"), wait=False)
                t.match_id = await conn.fetchval(
                    "SELECT m.id FROM matches m JOIN chats c ON c.id = m.chat WHERE c.chat_id = $1", t.chat)
            asked: dict[int, float] = {}
            for _ in range(1200):  # once everyone sits, the first person starts (again if unheard)
                rows = await conn.fetch("SELECT id, status, seats FROM matches")
                if {r[1] for r in rows} == {"active"}:
                    break
                for mid, status, seats in rows:
                    full = sum(1 for s in json.loads(seats) if s.get("kind") == "human") == 4
                    if status == "lobby" and full and time.monotonic() - asked.get(mid, 0.0) > 2.0:
                        t = next(t for t in ts if t.match_id == mid)
                        await c.send(_event("command", t.users[0], t.chat, c.key(), name="start"), wait=False)
                        asked[mid] = time.monotonic()
                await asyncio.sleep(0.05)
            else:
                raise AssertionError("tables did not start")
            measures: list[asyncio.Task[float]] = []
            for _ in range(kills):
                target = len(c.acked) + acks_between
                await asyncio.gather(*(_people(c, conn, t, time.monotonic() + rng.uniform(*up), pace) for t in ts))
                for _ in range(600):  # a guard: two minutes of people playing at most
                    if len(c.acked) >= target:
                        break
                    await asyncio.gather(*(_people(c, conn, t, time.monotonic() + 0.2, pace) for t in ts))
                victim = rng.choice([w for w in c.workers if w.alive])
                held = [int(r[0]) for r in await conn.fetch("SELECT match_id FROM leases WHERE worker = $1",
                                                            victim.name)]
                await victim.kill()
                killed_at = time.monotonic()
                report.kills += 1
                measures.append(asyncio.create_task(_failover_time(c, watch, victim.name, held, killed_at)))
                await c.add_worker()  # its replacement (a supervisor's restart), under a new name
                if log is not None:
                    log(f"kill {report.kills}: {victim.name} held {held}")
            for task in measures:
                report.failover.append(await asyncio.wait_for(task, 60))
            await play_on(conn, ts, report, final, lambda t, until: _people(c, conn, t, until, pace))
            for w in c.workers:  # the logs are checked at rest
                if w.alive:
                    await w.kill()
            await _check(conn, c, report)
        finally:
            for w in c.workers:
                if w.alive:
                    await w.kill()
            for w in c.workers:
                report.errors += [line for line in w.output if line.startswith("error")
                                  and "lease lost" not in line and "lost table" not in line]
            await conn.close()
            await watch.close()
    report.slow = [s for s in report.failover if s > 10.0]
    report.sent = c.sent
    report.acknowledged = len(c.acked)
    report.seconds = time.monotonic() - started
    return report


async def _check(conn: asyncpg.Pool, c: Cluster, report: FailoverReport) -> None:
    """Every acknowledged update's action is stored once, and every log replays."""
    keys = [str(r[0]) for r in await conn.fetch("SELECT key FROM actions WHERE key IS NOT NULL")]
    seen: set[str] = set()
    for k in keys:
        if k in seen:
            report.doubled.append(k)
        seen.add(k)
    report.lost = sorted(k for k in c.acked if k not in seen)
    for mid, rules, seed, version in await conn.fetch("SELECT id, rules, seed, version FROM matches"):
        actions = [json.loads(r[0]) for r in await conn.fetch(
            "SELECT action FROM actions WHERE match_id = $1 ORDER BY seq", mid)]
        assert len(actions) == version, (mid, len(actions), version)
        if actions:
            engine.Match.replay(engine.Rules.from_dict(json.loads(rules)), int(seed), actions)
        report.actions += int(version)
