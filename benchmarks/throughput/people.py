"""People at the tables: four simulated people a table type (or play inline) through the fake server.

Measured: actions per second, the time from an update to the last API call it
caused, API calls per action, 429s and memory per table (see
`benchmarks.host_throughput`).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import itertools
import random
import statistics
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import engine
from adapters.telegram.config import FloodLimits
from benchmarks.throughput.common import (
    MESSAGE_METHODS,
    SETTINGS,
    BenchTable,
    add_people,
    call_log,
    choose_result,
    latency_by_update,
    loadavg,
    people_of,
    rss_bytes,
)
from benchmarks.throughput.fake_process import FakeProcess, RemoteFake
from bot.cardtext import cards_text
from fakes.telegram_api import FakeTelegram, Limits
from fakes.telegram_rig import NO_LIMITS, Rig, boot
from fakes.typed import typed_text


@dataclass
class Result:
    tables: int
    actions: int = 0
    seconds: float = 0.0
    calls: int = 0
    message_calls: int = 0
    latencies: list[float] = field(default_factory=list)
    rejected_429: int = 0
    memory_per_table: float = 0.0
    plays: int = 0
    errors: int = 0
    by_method: dict[str, int] = field(default_factory=dict)
    by_chat_kind: dict[str, int] = field(default_factory=dict)  # message calls to groups / private chats
    rejected_where: dict[str, int] = field(default_factory=dict)
    latency_by_kind: dict[str, list[float]] = field(default_factory=dict)
    cpu_seconds: float = 0.0  # CPU time of this process (bot and players; and the fake unless fake_process)
    fake_process: bool = False  # the fake server ran in its own process
    fake_cpu: float = 0.0  # CPU time of the fake's process (fake_process)
    loadavg: str = ""

    def text(self, scale: float) -> str:
        lat = sorted(self.latencies)
        med = statistics.median(lat) if lat else 0.0
        p99 = lat[min(len(lat) - 1, int(len(lat) * 0.99))] if lat else 0.0
        unit = "Telegram s" if scale != 1.0 else "ms"
        k = 1 / scale if scale != 1.0 else 1000.0
        return "\n".join([
            f"tables: {self.tables}",
            f"actions: {self.actions} in {self.seconds:.1f}s = {self.actions / max(self.seconds, 1e-9):.0f} actions/s"
            f" ({self.plays} plays)",
            f"update -> last API call: median {med * k:.3f} {unit}, p99 {p99 * k:.3f} {unit} ({len(lat)} updates)",
            f"API calls: {self.calls} = {self.calls / max(1, self.actions):.2f} per action, "
            f"{self.calls / max(1, self.plays):.2f} per play "
            f"(message calls {self.message_calls / max(1, self.plays):.2f} per play, other calls"
            f" {(self.calls - self.message_calls) / max(1, self.plays):.2f} per play)",
            f"by method: {dict(sorted(self.by_method.items()))}; message calls per play by chat: "
            f"{ {k: round(v / max(1, self.plays), 2) for k, v in sorted(self.by_chat_kind.items())} }",
            "p99 by action: " + ", ".join(
                f"{kind} {sorted(v)[min(len(v) - 1, int(len(v) * 0.99))] * k:.3f} ({len(v)})"
                for kind, v in sorted(self.latency_by_kind.items())),
            f"429 answers: {self.rejected_429} {self.rejected_where}; handler errors: {self.errors}",
            f"memory: {self.memory_per_table / 1024:.0f} KiB per table (RSS growth / tables)",
            (f"CPU: bot and players {self.cpu_seconds:.1f} s in {self.seconds:.1f} s "
             f"({self.cpu_seconds / max(self.seconds, 1e-9):.0%} of one core); fake server in its own process "
             f"{self.fake_cpu:.1f} s ({self.fake_cpu / max(self.seconds, 1e-9):.0%})" if self.fake_process else
             f"CPU: {self.cpu_seconds:.1f} s in {self.seconds:.1f} s ({self.cpu_seconds / max(self.seconds, 1e-9):.0%}"
             f" of one core, for the bot, the fake server and the players together)"),
            f"load average before/after: {self.loadavg}",
        ])


class Players:
    """Four people per table who read the screen (the host's state) and type their actions."""

    def __init__(self, rig: Rig, tables: list[BenchTable], rng: random.Random, *, paced: tuple[float, float] | None,
                 scale: float, tg: Any = None) -> None:
        self.rig, self.tables, self.rng, self.paced, self.scale = rig, tables, rng, paced, scale
        self.tg: Any = tg if tg is not None else _LocalPush(rig.fake)  # where the people's updates go
        self.updates: list[tuple[int, float, int]] = []  # (update id, pushed at, table index)
        self.actions = 0
        self.plays = 0
        self.kinds: dict[int, str] = {}  # update id -> the action it carried

    def idle(self, t: BenchTable, table: Any) -> bool:
        """The table took the action and is done with it (its messages may still be on their way)."""
        return not table.busy()

    def step(self, now: float) -> int:
        """One look at every table; returns how many are still playing."""
        playing = 0
        host = self.rig.host
        for t in self.tables:
            table = host.tables.get(t.match_id)
            if table is None or table.match is None:
                continue
            playing += 1
            m = table.match
            if t.pending is not None:
                if m.version == t.version_at_push or not self.idle(t, table):
                    continue
                t.pending = None
                self.actions += 1
            actor: Any = t.actor
            if self.paced is not None and actor is not None and actor[1] == m.version and now < t.acts_at:
                continue  # still thinking over this very state: nothing new to look at
            seat = next((s for s in m.to_act() if m.auto_action(s) is not None), None)
            if seat is None:
                continue
            if self.paced is not None:
                if t.actor != (seat, m.version):
                    t.actor = (seat, m.version)  # type: ignore[assignment]
                    t.acts_at = now + self.rng.uniform(*self.paced) * self.scale
                if now < t.acts_at:
                    continue
            auto = m.auto_action(seat)
            assert auto is not None
            action = auto.to_json()
            uid = int(str(table.seats[seat].user_id))
            pushed = self.act(t, uid, action)
            if pushed is None:
                continue
            t.pending = pushed
            self.kinds[pushed] = str(action["t"])
            t.pushed_at = time.monotonic()
            t.version_at_push = m.version
            self.plays += action["t"] == "play"
            self.updates.append((t.pending, t.pushed_at, t.index))
        self.tg.flush()
        return playing

    def act(self, t: BenchTable, uid: int, action: dict[str, Any]) -> int | None:
        """The person does `action`; returns the update that does it (None: not yet)."""
        text = typed_text(action)
        return int(self.tg.send_text(uid, uid, text))


class InlinePlayers(Players):
    """People who play their cards from the group (inline mode, "play from here"): the query
    shows their own legal plays (answerInlineQuery), they choose one, and the client posts it as
    their own message in the group. Other actions (declaring, burying) are typed as before."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.queries: dict[int, str] = {}  # table index -> inline query in flight

    def act(self, t: BenchTable, uid: int, action: dict[str, Any]) -> int | None:
        if action["t"] != "play":
            return super().act(t, uid, action)
        tg = self.tg
        qid = self.queries.get(t.index)
        if qid is None:
            self.queries[t.index] = tg.inline_query(uid)
            return None
        count = tg.answered(qid)
        if count is None:
            return None  # the bot has not answered the query yet
        del self.queries[t.index]
        if not count:
            return None  # asked too early: ask again
        return int(tg.choose(uid, qid, cards_text(action["cards"]), t.group))


class _LocalPush:
    """The people's updates straight into the fake server in this process."""

    def __init__(self, fake: FakeTelegram) -> None:
        self.fake = fake

    def send_text(self, uid: int, chat: int, text: str) -> int:
        return self.fake.send_text(uid, chat, text)

    def inline_query(self, uid: int) -> str:
        return self.fake.inline_query(uid, "")

    def answered(self, qid: str) -> int | None:
        """How many results the bot offered for the query (None: not answered yet)."""
        answer = self.fake.inline_answers.get(qid)
        return None if answer is None else len(answer["results"])

    def choose(self, uid: int, qid: str, want: str, group: int) -> int:
        return choose_result(self.fake, uid, qid, want, group)

    def flush(self) -> None:
        pass


class _RemotePush:
    """The people's updates to the fake server in its own process: batched over the control pipe
    (one message per look at the tables, no answer awaited); the fake reports inline answers on
    `events`. Updates are named by keys this side picks (the fake keeps its own update ids)."""

    def __init__(self, conn: Any, events: Any) -> None:
        self.conn, self.events = conn, events
        self.keys = itertools.count(1)
        self.batch: list[tuple[Any, ...]] = []
        self.answers: dict[int, int] = {}

    def send_text(self, uid: int, chat: int, text: str) -> int:
        key = next(self.keys)
        self.batch.append(("text", key, uid, chat, text))
        return key

    def inline_query(self, uid: int) -> int:
        key = next(self.keys)
        self.batch.append(("iq", key, uid))
        return key

    def answered(self, key: int) -> int | None:
        while self.events.poll():
            k, n = self.events.recv()
            self.answers[k] = n
        return self.answers.pop(key, None)

    def choose(self, uid: int, key: int, want: str, group: int) -> int:
        new = next(self.keys)
        self.batch.append(("choose", new, uid, key, want, group))
        return new

    def flush(self) -> None:
        if self.batch:
            self.conn.send(("push", self.batch))
            self.batch = []


MODES = {"typed": Players, "inline": InlinePlayers}


async def open_tables(rig: Rig, n: int) -> list[BenchTable]:
    fake = rig.fake
    tables = []
    for i in range(n):
        t = BenchTable(i, -(900_000 + i), [1_000_000 + 4 * i + k for k in range(4)])
        fake.add_group(t.group)
        for k, uid in enumerate(t.users):
            fake.add_user(uid, f"P{i}.{k}", opened=True)
        tables.append(t)
    ids = []
    for t in tables:
        ids.append(fake.command(t.users[0], t.group, "/new classic target=A"))
        ids += [fake.command(uid, t.group, "/join") for uid in t.users[1:]]
    await rig.handled(*ids, timeout=600)
    await rig.handled(*[fake.command(t.users[0], t.group, "/start") for t in tables], timeout=600)
    for t in tables:
        t.match_id = rig.host.by_chat[("telegram", str(t.group))].id
    return tables


async def open_tables_direct(rig: Rig, n: int, registered: bool = False) -> list[BenchTable]:
    """The same tables, written straight into the store and resumed by the host (fast set-up:
    each table then costs its five opening messages, not a lobby's worth of updates).
    `registered`: the fake already knows the groups and people (`people_of`)."""

    store = rig.store
    rules = engine.preset("classic").to_dict()
    if not registered:
        add_people(rig.fake, people_of(n))
    tables = []
    for i, (group, users) in enumerate(people_of(n)):
        t = BenchTable(i, group, users)
        seats = []
        for k, uid in enumerate(t.users):
            seats.append({"kind": "human", "user_id": str(uid), "name": f"P{i}.{k}", "lang": "en", "away": False,
                          "timeouts": 0})
        meta = {"preset": "classic", "creator": str(t.users[0]), "creator_name": f"P{i}.0", "options": "",
                "settings": SETTINGS.to_dict()}
        t.match_id = await store.create_match("telegram", str(t.group), rules, seats, 1000 + i, meta,
                                              status="active")
        tables.append(t)
    await rig.host.start()
    await rig.settle()
    return tables


async def warm_up(players: Players, seconds: float, paced: tuple[float, float] | None, scale: float) -> None:
    """Play for `seconds` without measuring (past the deal, the declarations and the bury, and
    until the tables' turns no longer come all at once), then forget the counts."""
    start = time.monotonic()
    while time.monotonic() - start < seconds:
        players.step(time.monotonic())
        await asyncio.sleep(0.005 if paced is None else 0.02 * scale)
    players.actions = players.plays = 0
    players.updates.clear()


async def run(tables: int, *, seconds: float, paced: tuple[float, float] | None, scale: float, limits: bool,
              seed: int = 1, profile: str | None = None, lobby: bool = False, mode: str = "typed",
              warmup: float = 0.0, fake_process: bool = False, fake_cores: set[int] | None = None) -> Result:
    """People at N tables. `fake_process`: the fake server runs in a child process (pinned to
    `fake_cores`) and the people's updates reach it over the control pipe; else all in this process."""
    remote: Any = None
    fake: Any
    result = Result(tables, fake_process=fake_process, loadavg=loadavg())
    if fake_process:
        if lobby:
            raise SystemExit("--lobby needs the fake server in this process")
        remote = await FakeProcess.start(fake_cores, scale if limits else None)
        await remote.ask("people", people_of(tables))
        fake = RemoteFake(remote.token, remote.api_root)
    else:
        fake = FakeTelegram(limits=Limits(scale=scale) if limits else None)
        await fake.start()
    workdir = tempfile.mkdtemp(prefix="tractor-bench-")
    adapter_limits = FloodLimits(scale=scale) if limits else NO_LIMITS
    rig = await boot(fake, str(Path(workdir) / "bench.sqlite3"), settings=SETTINGS, limits=adapter_limits,
                     answer_deadline=2.5 * scale if limits else 0.5)
    try:
        gc.collect()
        rss0 = rss_bytes()
        ts = await (open_tables(rig, tables) if lobby else open_tables_direct(rig, tables, registered=fake_process))
        tg = _RemotePush(remote.conn, remote.events) if remote is not None else None
        players = MODES[mode](rig, ts, random.Random(seed), paced=paced, scale=scale, tg=tg)
        if warmup > 0:
            await warm_up(players, warmup, paced, scale)
        if remote is not None:
            first_call = await remote.ask("ncalls")
            rejected0 = await remote.ask("rejected")
            fake_cpu0 = await remote.ask("cpu")
        else:
            first_call = len(fake.calls)
            rejected0 = fake.rejected_429
        prof: Any = None
        if profile:
            import cProfile

            prof = cProfile.Profile()
            prof.enable()
        start = time.monotonic()
        cpu0 = time.process_time()
        while time.monotonic() - start < seconds:
            if players.step(time.monotonic()) == 0:
                break
            await asyncio.sleep(0.005 if paced is None else 0.02 * scale)
        result.seconds = time.monotonic() - start
        result.cpu_seconds = time.process_time() - cpu0
        if prof is not None:
            prof.disable()
            prof.dump_stats(profile)
        if remote is not None:
            result.fake_cpu = await remote.ask("cpu") - fake_cpu0
            log = [c[:4] for c in await remote.ask("calls", first_call)]
            result.rejected_429 = await remote.ask("rejected") - rejected0
        else:
            log = call_log(fake.calls[first_call:])
            result.rejected_429 = fake.rejected_429 - rejected0
        gc.collect()
        result.memory_per_table = (rss_bytes() - rss0) / tables
        result.actions = players.actions
        result.plays = players.plays
        calls = [c for c in log if c[2] - start <= result.seconds]
        result.calls = len(calls)
        result.message_calls = sum(1 for c in calls if c[0] in MESSAGE_METHODS)
        for method, chat, _, _ in calls:
            result.by_method[method] = result.by_method.get(method, 0) + 1
            if method in MESSAGE_METHODS:
                kind = f"{method} {'group' if chat < 0 else 'private'}"
                result.by_chat_kind[kind] = result.by_chat_kind.get(kind, 0) + 1
        by_update = latency_by_update(log, ts, players.updates)
        result.latencies = list(by_update.values())
        for uid, lat in by_update.items():
            result.latency_by_kind.setdefault(players.kinds.get(uid, "?"), []).append(lat)
        for method, chat, _, status in log:
            if status == 429:
                where = f"{method} {'group' if chat < 0 else 'private'}"
                result.rejected_where[where] = result.rejected_where.get(where, 0) + 1
        result.errors = len(rig.errors)
    finally:
        with contextlib.suppress(Exception):
            await rig.stop()
        if remote is not None:
            await remote.stop()
        else:
            await fake.stop()
    result.loadavg += " / " + loadavg()
    return result
