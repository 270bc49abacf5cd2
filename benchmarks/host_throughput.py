"""Host throughput and capacity: many tables through the whole bot against the fake Bot API server.

    python -m benchmarks.host_throughput --tables 500                 # AI-only tables, full speed (the headline)
    python -m benchmarks.host_throughput --tables 500 --sync FULL     # the same with fsync at every commit
    python -m benchmarks.host_throughput --people --tables 50         # four simulated people type at each table
    python -m benchmarks.host_throughput --people --tables 150 --paced --scale 0.2 --limits   # people's pace, limits
    python -m benchmarks.host_throughput --tables 100 --paced --limits --mode inline  # people play from the group
    python -m benchmarks.host_throughput --tables 200 --paced --limits --mode inline --fake-cores 1 --warmup 90

AI-only (default): N tables whose four seats are the host's own `basic` AIs, all
delays zero, driven by the host itself exactly as `tractor-host run` drives them
(engine, SQLite store, views, the Telegram adapter and the real
python-telegram-bot client). The fake Bot API server runs in a child process
pinned to its own core (`--fake-cores`, default 1) with its rate limits off;
the bot runs in this process, pinned to `--cores` (default 0), so the figures
are the bot's own cost. Measured over `--seconds` after `--warmup` (5 s) of play:

- actions per second: actions committed to the store;
- action -> API call (median, p99): for each table-message call the fake
  received, the time since the newest action it shows was committed (the
  "last API call it causes": what a render triggered costs until Telegram has it);
- action -> shown (median, p99): for every committed action, the time until a
  table-message call showing that version or a later one reached the fake.
  This one includes the host's refresh interval for AI bursts
  (`Host.refresh_interval()`: 3 s, longer with very many tables), so it is
  bounded by design, not by speed;
- API calls per action; CPU seconds of the bot and of the fake per second;
  memory per table (RSS growth of the bot process / N).
Times are CLOCK_MONOTONIC, which both processes share.

People (`--people`, `--mode typed|inline`, or any of `--paced --limits --lobby`): everything in this one process, pinned to one core: the fake
server, the players, and the bot. With `--fake-cores` (e.g. `--fake-cores 1 --cores 0`) the fake
server runs in a child process on those cores instead, with the same limits and clock; the players
stay here (they read the host's state) and push their updates over the control pipe, the fake
reports inline answers back, and its call log is fetched at the end (not with `--lobby`). Four simulated people sit at each table;
each types their legal action into their private chat ("play ♠A ♠A") as a
Telegram update. At full speed every table has one update in flight at all
times; paced, each seat acts 3-8 (Telegram) seconds after its turn started.
Measured: actions per second; the time from an update to the last API call
it caused (median, p99); API calls per action; 429s; memory per table.
`--scale` runs Telegram's clock fast (0.2: a Telegram second lasts 0.2 s) for
the fake's limits, the adapter's flood gate and the pacing alike; latencies
are then reported in Telegram seconds too.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import gc
import itertools
import logging
import multiprocessing
import os
import random
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from adapters.telegram.config import FloodLimits
from bot import collector, tokens
from bot.cardtext import cards_text
from bot.settings import TableSettings
from tests.fakes.telegram_api import FakeTelegram, Limits
from tests.reliability.harness import NO_LIMITS, Rig, boot

# Calls Telegram counts against the bot's message limits; answers to callback and inline queries do not.
MESSAGE_METHODS = ("sendMessage", "editMessageText", "editMessageReplyMarkup", "sendPhoto", "sendDocument",
                   "deleteMessage")
WORDS = {"play": "play", "bury": "bury", "declare": "declare", "pass": "pass", "chao": "chao", "revolt": "revolt"}
SETTINGS = TableSettings(deal=0, declare=0, bury=0, turn=0, next=0, lobby=0, away_after=0)


def rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


@dataclass
class Seat:
    uid: int
    turn_since: float = 0.0


@dataclass
class BenchTable:
    index: int
    group: int
    users: list[int]
    match_id: int = 0
    pending: int | None = None  # update id in flight
    pushed_at: float = 0.0
    version_at_push: int = -1
    acts_at: float = 0.0  # paced: when the person to act will type
    actor: int | None = None


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
            uid = int(table.seats[seat]["user_id"])
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
        text = WORDS[str(action["t"])] + (" " + cards_text(action["cards"]) if "cards" in action else "")
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
        return _choose(self.fake, uid, qid, want, group)

    def flush(self) -> None:
        pass


def _choose(fake: FakeTelegram, uid: int, qid: str, want: str, group: int) -> int:
    """The person picks the result titled `want` (else the first) from the bot's answer."""
    results = fake.inline_answers[qid]["results"]
    chosen = next((r for r in results if r.get("title") == want), results[0])
    return fake.choose_inline(uid, qid, chosen["id"], group)


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


def _people(n: int) -> list[tuple[int, list[int]]]:
    """(group, its four people) of every table."""
    return [(-(900_000 + i), [1_000_000 + 4 * i + k for k in range(4)]) for i in range(n)]


def _add_people(fake: FakeTelegram, people: list[tuple[int, list[int]]]) -> None:
    for i, (group, users) in enumerate(people):
        fake.add_group(group)
        for k, uid in enumerate(users):
            fake.add_user(uid, f"P{i}.{k}", opened=True)


async def open_tables_direct(rig: Rig, n: int, registered: bool = False) -> list[BenchTable]:
    """The same tables, written straight into the store and resumed by the host (fast set-up:
    each table then costs its five opening messages, not a lobby's worth of updates).
    `registered`: the fake already knows the groups and people (`_people`)."""
    import engine

    store = rig.store
    rules = engine.preset("classic").to_dict()
    if not registered:
        _add_people(rig.fake, _people(n))
    tables = []
    for i, (group, users) in enumerate(_people(n)):
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


def _call_log(calls: list[Any]) -> list[tuple[str, int, float, int]]:
    """(method, chat id, at, status) of each of the fake's calls."""
    return [(c.method, int(c.params.get("chat_id", 0) or 0), c.at, c.status) for c in calls]


def latencies(fake: FakeTelegram, tables: list[BenchTable], updates: list[tuple[int, float, int]],
              first_call: int) -> list[float]:
    """For each update: the last API call to its table's chats before that table's next update."""
    return list(latency_by_update(_call_log(fake.calls[first_call:]), tables, updates).values())


def latency_by_update(calls: list[tuple[Any, ...]], tables: list[BenchTable],
                      updates: list[tuple[int, float, int]]) -> dict[int, float]:
    """update id -> time from it to the last API call to its table's chats before that table's next update
    (`calls`: (method, chat id, at, ...) as `_call_log` gives them)."""
    chat_table = {}
    for t in tables:
        chat_table[t.group] = t.index
        for uid in t.users:
            chat_table[uid] = t.index
    by_table: dict[int, list[float]] = {}
    ids: dict[int, list[int]] = {}
    for uid, at, ti in updates:
        by_table.setdefault(ti, []).append(at)
        ids.setdefault(ti, []).append(uid)
    last: dict[tuple[int, int], float] = {}
    import bisect

    for call in calls:
        chat, at = call[1], call[2]
        index = chat_table.get(chat)
        if index is None:
            continue
        pushes = by_table.get(index, [])
        i = bisect.bisect_right(pushes, at) - 1
        if i >= 0:
            last[(index, i)] = max(last.get((index, i), 0.0), at - pushes[i])
    return {ids[ti][i]: lat for (ti, i), lat in last.items()}


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
    result = Result(tables, fake_process=fake_process, loadavg=_loadavg())
    if fake_process:
        if lobby:
            raise SystemExit("--lobby needs the fake server in this process")
        remote = await _FakeProcess.start(fake_cores, scale if limits else None)
        await remote.ask("people", _people(tables))
        fake = _RemoteFake(remote.token, remote.api_root)
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
            log = _call_log(fake.calls[first_call:])
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
    result.loadavg += " / " + _loadavg()
    return result


# ----------------------------------------------------------------------------- AI-only tables


def _fake_child(conn: Any, cores: set[int] | None, limits_scale: float | None = None, events: Any = None) -> None:
    """The fake Bot API server in its own process, answering the parent over a pipe. Limits are
    off unless `limits_scale` (Telegram's limits on that clock); `events` carries
    (update key, number of results) to the parent when the bot answers an inline query a person
    asked through a "push" command."""
    if cores and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, cores)
    logging.basicConfig(level=logging.ERROR)
    asyncio.run(_fake_serve(conn, limits_scale, events))


def _shown_version(call: Any) -> int:
    """The version in the tokens of a table message's buttons (-1 when it has none)."""
    markup = call.params.get("reply_markup")
    if not isinstance(markup, dict):
        return -1
    for row in markup.get("inline_keyboard", []):
        for b in row:
            data = b.get("callback_data")
            if isinstance(data, str):
                try:
                    return tokens.parse(data).version
                except tokens.BadToken:
                    continue
    return -1


async def _fake_serve(conn: Any, limits_scale: float | None = None, events: Any = None) -> None:
    fake = FakeTelegram(limits=Limits(scale=limits_scale) if limits_scale is not None else None)
    await fake.start()
    loop = asyncio.get_running_loop()
    conn.send((fake.token, fake.api_root))
    cpu0 = time.process_time()
    query_of: dict[int, str] = {}  # the parent's key of an inline query -> its query id here
    key_of: dict[str, int] = {}
    answer = fake._api_answerInlineQuery

    async def answer_and_tell(params: dict[str, Any]) -> Any:
        res = await answer(params)
        key = key_of.pop(str(params.get("inline_query_id", "")), None)
        if key is not None and events is not None:
            events.send((key, len(params.get("results") or [])))
        return res

    fake._api_answerInlineQuery = answer_and_tell  # type: ignore[method-assign]
    while True:
        cmd, arg = await loop.run_in_executor(None, conn.recv)
        if cmd == "push":  # the people's updates; no answer
            for op in arg:
                if op[0] == "text":
                    fake.send_text(*op[2:])
                elif op[0] == "iq":
                    qid = fake.inline_query(op[2], "")
                    query_of[op[1]], key_of[qid] = qid, op[1]
                elif op[0] == "choose":
                    _, _, uid, key, want, group = op
                    _choose(fake, uid, query_of.pop(key), want, group)
        elif cmd == "groups":
            for g in arg:
                fake.add_group(g)
            conn.send(None)
        elif cmd == "people":
            _add_people(fake, arg)
            conn.send(None)
        elif cmd == "ncalls":
            conn.send(len(fake.calls))
        elif cmd == "rejected":
            conn.send(fake.rejected_429)
        elif cmd == "cpu":
            conn.send(time.process_time() - cpu0)
        elif cmd == "calls":  # (method, chat id, at, status, version shown) of every call since arg
            conn.send([(c.method, int(c.params.get("chat_id", 0) or 0), c.at, c.status, _shown_version(c))
                       for c in fake.calls[arg:]])
        elif cmd == "stop":
            await fake.stop()
            conn.send(None)
            return


@dataclass
class AiResult:
    tables: int
    synchronous: str
    seconds: float = 0.0
    actions: int = 0
    calls: int = 0
    by_method: dict[str, int] = field(default_factory=dict)
    failed_calls: int = 0
    to_call: list[float] = field(default_factory=list)  # action -> the table call it caused
    to_shown: list[float] = field(default_factory=list)  # action -> first table call showing it (or later)
    unshown: int = 0
    bot_cpu: float = 0.0
    fake_cpu: float = 0.0
    memory_per_table: float = 0.0
    errors: int = 0
    loadavg: str = ""
    startup: float = 0.0
    loop_lag: list[float] = field(default_factory=list)
    to_call_by: dict[str, list[float]] = field(default_factory=dict)
    warmup: float = 0.0
    outbox: str = ""
    gc_pauses: dict[int, list[float]] = field(default_factory=dict)  # generation -> pause lengths

    def text(self) -> str:
        def q(xs: list[float]) -> str:
            xs = sorted(xs)
            if not xs:
                return "-"
            return f"median {statistics.median(xs) * 1000:.1f} ms, p99 {xs[int(len(xs) * 0.99)] * 1000:.1f} ms"

        rate = self.actions / max(self.seconds, 1e-9)
        return "\n".join([
            f"AI-only tables: {self.tables} (synchronous={self.synchronous}), loaded in {self.startup:.2f}s, "
            f"measured after {self.warmup:.0f}s of play",
            f"actions: {self.actions} in {self.seconds:.1f}s = {rate:.0f} actions/s",
            f"action -> API call it caused: {q(self.to_call)} ({len(self.to_call)} table calls; "
            + "; ".join(f"{k}: {q(v)}" for k, v in sorted(self.to_call_by.items())) + ")",
            f"action -> shown on the table: {q(self.to_shown)} ({len(self.to_shown)} actions; "
            f"{self.unshown} from the last seconds not yet shown, left out)",
            f"API calls: {self.calls} = {self.calls / max(1, self.actions):.3f} per action; "
            f"{dict(sorted(self.by_method.items()))}; failed {self.failed_calls}; outbox: {self.outbox}",
            f"CPU: bot {self.bot_cpu / max(self.seconds, 1e-9):.2f} s/s, fake {self.fake_cpu / max(self.seconds, 1e-9):.2f} s/s"
            f" ({self.bot_cpu * 1000 / max(1, self.actions):.2f} ms of bot CPU per action); handler errors {self.errors}",
            f"memory: {self.memory_per_table / 1024:.0f} KiB per table (bot RSS growth / tables)",
            f"event loop lag (a 5 ms sleep wakes this late): {q(self.loop_lag)}, "
            f"max {max(self.loop_lag, default=0.0) * 1000:.1f} ms",
            "garbage collector pauses: " + ("; ".join(
                f"generation {g}: {len(v)}, max {max(v) * 1000:.1f} ms, total {sum(v) * 1000:.0f} ms"
                for g, v in sorted(self.gc_pauses.items())) or "none"),
            f"load average before/after: {self.loadavg}",
        ])


class _RemoteFake:
    """What `boot` needs of the fake: its token and address."""

    def __init__(self, token: str, api_root: str) -> None:
        self.token, self.api_root = token, api_root


class _FakeProcess:
    """The fake server in a child process (`_fake_child`), with its control pipe (`ask`) and,
    for people, the pipe on which it reports inline answers (`events`)."""

    def __init__(self, proc: Any, conn: Any, events: Any) -> None:
        self.proc, self.conn, self.events = proc, conn, events
        self.token = self.api_root = ""

    @classmethod
    async def start(cls, cores: set[int] | None, limits_scale: float | None) -> _FakeProcess:
        ctx = multiprocessing.get_context("spawn")
        parent, child = ctx.Pipe()
        ev_recv, ev_send = ctx.Pipe(duplex=False)
        proc = ctx.Process(target=_fake_child, args=(child, cores, limits_scale, ev_send), daemon=True)
        proc.start()
        self = cls(proc, parent, ev_recv)
        self.token, self.api_root = await asyncio.get_running_loop().run_in_executor(None, parent.recv)
        return self

    async def ask(self, cmd: str, arg: Any = None) -> Any:
        self.conn.send((cmd, arg))
        return await asyncio.get_running_loop().run_in_executor(None, self.conn.recv)

    async def stop(self) -> None:
        with contextlib.suppress(Exception):
            await self.ask("stop")
        self.proc.join(5)
        if self.proc.is_alive():
            self.proc.kill()


async def run_ai(tables: int, *, seconds: float, synchronous: str, fake_cores: set[int] | None,
                 target: str = "A", profile: str | None = None, warmup: float = 5.0) -> AiResult:
    """N tables of four `basic` AIs at full speed; see the module's docstring for what is measured."""
    import engine

    result = AiResult(tables, synchronous, loadavg=_loadavg(), warmup=warmup)
    remote = await _FakeProcess.start(fake_cores, None)  # limits off
    ask = remote.ask
    groups = {-(900_000 + i): i for i in range(tables)}
    await ask("groups", list(groups))
    workdir = tempfile.mkdtemp(prefix="tractor-bench-")
    rig = await boot(_RemoteFake(remote.token, remote.api_root), str(Path(workdir) / "bench.sqlite3"),
                     settings=SETTINGS, synchronous=synchronous, ai_threads=True)
    store = rig.store
    commits: dict[int, list[tuple[int, float]]] = {}  # match id -> (version after, committed at)
    append = store.append_action

    async def timed_append(match_id: int, seq: int, action: dict[str, Any], key: str | None) -> str:
        res: str = await append(match_id, seq, action, key)
        if res == "applied":
            commits.setdefault(match_id, []).append((seq + 1, time.monotonic()))
        return res

    store.append_action = timed_append
    try:
        rules = {**engine.preset("classic").to_dict(), "target": target}
        meta = {"preset": "classic", "creator": "0", "creator_name": "-", "options": "", "settings": SETTINGS.to_dict()}
        seats = [{"kind": "ai", "name": f"Bot{k}", "level": "basic"} for k in range(4)]
        chat_of: dict[int, int] = {}
        for g in groups:
            mid = await store.create_match("telegram", str(g), rules, seats, 1000 + groups[g], meta, status="active")
            chat_of[mid] = g
        gc.collect()
        rss0 = rss_bytes()
        fake_cpu0 = await ask("cpu")
        prof: Any = None
        if profile:
            import cProfile

            prof = cProfile.Profile()
            prof.enable()
        t0 = time.monotonic()
        await rig.host.start()  # loads every table, then starts them all
        _progress('await rig.host.start()  # load')
        result.startup = time.monotonic() - t0
        collector.tune()  # as `tractor-host run` does once its host has started
        await asyncio.sleep(warmup)  # every table's first messages go out meanwhile
        first_call = len(await ask("calls", 0))
        stats0 = dataclasses.replace(rig.runner.platform.outboxes.stats)
        cpu0 = time.process_time()
        start = time.monotonic()
        lags: list[float] = []

        async def probe() -> None:  # how late a 5 ms sleep wakes: the length of the loop's turns
            while True:
                t = time.monotonic()
                await asyncio.sleep(0.005)
                lags.append(time.monotonic() - t - 0.005)

        prober = asyncio.create_task(probe())
        gc_started = [0.0]

        def on_gc(phase: str, info: dict[str, int]) -> None:
            if phase == "start":
                gc_started[0] = time.perf_counter()
            else:
                result.gc_pauses.setdefault(info["generation"], []).append(time.perf_counter() - gc_started[0])

        gc.callbacks.append(on_gc)
        try:
            await asyncio.sleep(seconds)
        finally:
            gc.callbacks.remove(on_gc)
        _progress('await asyncio.sleep(seconds)')
        prober.cancel()
        result.loop_lag = lags
        end = time.monotonic()
        result.bot_cpu = time.process_time() - cpu0
        if prof is not None:
            prof.disable()
            prof.dump_stats(profile)
        result.fake_cpu = await ask("cpu") - fake_cpu0
        _progress('result.fake_cpu = await ask("c')
        result.seconds = end - start
        await rig.host.stop()  # the tables first: AIs at full speed would keep the adapter's queues busy
        _progress('await rig.host.stop()  # the t')
        result.memory_per_table = (rss_bytes() - rss0) / tables
        calls = [c for c in await ask("calls", first_call) if start <= c[2] <= end]
        _progress('calls = [c for c in await ask(')
        result.errors = len(rig.errors)
        st = rig.runner.platform.outboxes.stats
        result.outbox = (f"retries after network errors/429 {st.failures - stats0.failures} failed, "
                         f"{st.retry_after - stats0.retry_after} 429; "
                         f"edits coalesced {st.edits_coalesced - stats0.edits_coalesced}")
    finally:
        with contextlib.suppress(Exception):
            await rig.stop()
        await remote.stop()
    result.loadavg += " / " + _loadavg()
    _ai_figures(result, commits, calls, {g: m for m, g in chat_of.items()}, start, end)
    return result


def _ai_figures(result: AiResult, commits: dict[int, list[tuple[int, float]]], calls: list[tuple[Any, ...]],
                match_of: dict[int, int], start: float, end: float) -> None:
    import bisect

    result.actions = sum(1 for log in commits.values() for _, at in log if start <= at <= end)
    result.calls = len(calls)
    shown: dict[int, list[tuple[float, int]]] = {}  # match -> (at, version) of its table-message calls
    kinds: dict[tuple[int, float, int], str] = {}
    for method, chat, at, status, version in calls:
        result.by_method[method] = result.by_method.get(method, 0) + 1
        result.failed_calls += status != 200
        if chat in match_of and version >= 0 and status == 200:
            shown.setdefault(match_of[chat], []).append((at, version))
            kinds[(match_of[chat], at, version)] = method
    for mid, table_calls in shown.items():
        log = commits.get(mid, [])
        committed = dict(log)
        for at, version in table_calls:
            if version in committed and committed[version] <= at:
                result.to_call.append(at - committed[version])
                result.to_call_by.setdefault(kinds[(mid, at, version)], []).append(at - committed[version])
    horizon = end - 5.0  # later actions may legitimately wait for the next refresh after the window
    for mid, log in commits.items():
        table_calls = sorted(shown.get(mid, []))
        times = [at for at, _ in table_calls]
        for version, at in log:
            if at > horizon:
                continue
            i = bisect.bisect_left(times, at)
            seen = next((t for t, v in table_calls[i:] if v >= version), None)
            if seen is None:
                result.unshown += 1
            else:
                result.to_shown.append(seen - at)


def _progress(what: str) -> None:
    if os.environ.get("BENCH_VERBOSE"):
        print(f"{time.monotonic():.2f} {what}", file=sys.stderr, flush=True)


def _loadavg() -> str:
    try:
        with open("/proc/loadavg") as f:
            return " ".join(f.read().split()[:3])
    except OSError:
        return "?"


def main() -> int:
    p = argparse.ArgumentParser(description="Host throughput / capacity against the fake Bot API server")
    p.add_argument("--tables", type=int, default=50)
    p.add_argument("--seconds", type=float, default=20.0, help="measuring time (real seconds)")
    p.add_argument("--people", action="store_true", help="four simulated people type at each table (one process)")
    p.add_argument("--sync", default="NORMAL", choices=("OFF", "NORMAL", "FULL"), help="SQLite synchronous (AI-only)")
    p.add_argument("--fake-cores", default=None,
                   help="cores for the fake server's own process ('' = any); AI-only default 1; with people the "
                        "fake runs in this process unless this is given")
    p.add_argument("--warmup", type=float, default=None,
                   help="real seconds of play before measuring (default: 5 AI-only, 0 with people)")
    p.add_argument("--paced", action="store_true", help="each seat acts 3-8 Telegram seconds after its turn starts")
    p.add_argument("--limits", action="store_true", help="the fake enforces Telegram's flood limits")
    p.add_argument("--scale", type=float, default=1.0, help="real seconds per Telegram second")
    p.add_argument("--cores", default="0", help="CPU cores to pin this process (the bot) to (default: one core, 0)")
    p.add_argument("--profile", default=None, help="write a cProfile of the measuring window here")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--lobby", action="store_true", help="open every table through /new, /join, /start updates")
    p.add_argument("--mode", choices=["ai", *sorted(MODES)], default=None,
                   help="ai: AI-only tables (the default); typed: people type plays in their private chat; "
                        "inline: they play from the group (--people, --paced, --limits or --lobby: typed)")
    args = p.parse_args()
    logging.basicConfig(level=logging.ERROR)
    if args.cores and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {int(c) for c in args.cores.split(",")})
    people = args.people or args.paced or args.limits or args.lobby or args.mode in MODES
    if args.mode == "ai" or not people:
        cores = "1" if args.fake_cores is None else args.fake_cores
        fake_cores = {int(c) for c in cores.split(",")} if cores else None
        ai = asyncio.run(run_ai(args.tables, seconds=args.seconds, synchronous=args.sync, fake_cores=fake_cores,
                                profile=args.profile, warmup=5.0 if args.warmup is None else args.warmup))
        print(ai.text())
        return 0
    result = asyncio.run(run(args.tables, seconds=args.seconds, paced=(3.0, 8.0) if args.paced else None,
                             scale=args.scale, limits=args.limits, seed=args.seed, profile=args.profile,
                             lobby=args.lobby, mode=args.mode if args.mode in MODES else "typed",
                             warmup=args.warmup or 0.0, fake_process=args.fake_cores is not None,
                             fake_cores={int(c) for c in args.fake_cores.split(",")} if args.fake_cores else None))
    print(result.text(args.scale if args.paced or args.limits else 1.0))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
