"""Crash and resume under load: the bot as a child process, SIGKILLed at random moments.

The fake Bot API server lives in this (parent) process, so it outlives every
bot process, keeps the chats and messages, and re-delivers the updates a dead
bot never confirmed, as Telegram does. Simulated people sit at every table
(four per table, each in their own private chat) and play at a pace: they read
the state from the SQLite file, as a person reads the screen, and type their
legal action ("play ♠A ♠A", "pass", "bury ...") into their private chat. An
action is *acknowledged* when the bot answered "✓" to that update. People do
not stop while the bot is down; they retry when no answer comes, so the
restarted bot finds stale and repeated actions in its queue.

After every kill the file is checked (every acknowledged action is in the log,
under the key of its update); at the end every table must have moved on since
the last kill, and no action may appear twice: every key once, and the log
replays through the engine.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import signal
import sqlite3
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import engine
from fakes.child import ChildProcess
from fakes.telegram_api import FakeTelegram
from fakes.typed import typed_text


@dataclass
class CrashReport:
    """What a crash run did and found."""

    tables: int
    kills: int = 0
    restarts: int = 0
    sent: int = 0
    acknowledged: int = 0
    lost: list[str] = field(default_factory=list)
    doubled: list[str] = field(default_factory=list)
    stuck: list[int] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    actions: int = 0
    finished: int = 0
    redelivered_refused: int = 0
    seconds: float = 0.0
    kill_points: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not (self.lost or self.doubled or self.stuck or self.errors)

    def text(self) -> str:
        return "\n".join([
            f"{self.tables} tables, {self.kills} SIGKILLs, {self.restarts} restarts in {self.seconds:.1f}s",
            f"player actions sent: {self.sent}, acknowledged: {self.acknowledged}, "
            f"actions in the logs: {self.actions}, matches finished: {self.finished}",
            f"acknowledged actions lost: {len(self.lost)}, actions applied twice: {len(self.doubled)}, "
            f"tables stuck: {len(self.stuck)}, handler errors: {len(self.errors)}",
            f"stale or repeated player actions refused after restarts: {self.redelivered_refused}",
            "kills landed at: " + ", ".join(self.kill_points),
        ])


class Table:
    """A table as its four people see it: the match replayed from the file."""

    def __init__(self, index: int) -> None:
        self.index = index
        self.group = -(700_000 + index)
        self.users = [800_000 + 4 * index + i for i in range(4)]
        self.match_id: int | None = None
        self.match: Any = None
        self.seats: list[str] = []


class Crowd:
    """The people at every table, typing into their private chats."""

    def __init__(self, fake: FakeTelegram, db: Path, tables: list[Table], rng: random.Random,
                 pace: tuple[float, float]) -> None:
        self.fake, self.db, self.tables, self.rng, self.pace = fake, db, tables, rng, pace
        self.acks = 0  # "✓" answers seen
        self.sent: dict[int, tuple[int, int]] = {}  # update id -> (user, call index when sent)
        self.waiting: dict[int, tuple[int, int]] = {}  # user -> (update id, call index when sent)
        self.refused = 0

    def read(self) -> None:
        """Everyone looks at the screen: bring every table's match up to the file."""
        conn = sqlite3.connect(f"file:{self.db}?mode=ro", uri=True, timeout=5)
        try:
            for t in self.tables:
                if t.match_id is None:
                    continue
                row = conn.execute("SELECT rules, seed, seats, version, status FROM matches WHERE id = ?",
                                   (t.match_id,)).fetchone()
                if row is None or row[4] == "lobby":
                    continue
                if t.match is None:
                    t.match = engine.Match.new(engine.Rules.from_dict(json.loads(row[0])), seed=int(row[1]))
                    t.seats = [str(s.get("user_id", "")) for s in json.loads(row[2])]
                rows = conn.execute("SELECT action FROM actions WHERE match_id = ? AND seq >= ? ORDER BY seq",
                                    (t.match_id, t.match.version)).fetchall()
                for (text,) in rows:
                    t.match.apply(json.loads(text))
        finally:
            conn.close()

    def answers(self) -> None:
        """Which typed actions got an answer: "✓" acknowledges, anything else refuses."""
        for uid, (_update_id, since) in list(self.waiting.items()):
            for call in self.fake.calls[since:]:
                if call.method == "sendMessage" and call.ok and call.params.get("chat_id") == uid \
                        and not call.params.get("reply_markup"):
                    if str(call.params.get("text")) == "✓":
                        self.acks += 1
                    else:
                        self.refused += 1
                    del self.waiting[uid]
                    break

    async def act(self, deadline: float, *, wait_answer: float = 2.0) -> None:
        """Play at a pace until the deadline (monotonic)."""
        sent_at: dict[int, float] = {}
        while time.monotonic() < deadline:
            self.answers()
            with contextlib.suppress(sqlite3.OperationalError):
                self.read()
            for t in self.tables:
                m = t.match
                if m is None or m.result is not None:
                    continue
                for seat in m.to_act():
                    auto = m.auto_action(seat)
                    if auto is None:
                        continue
                    action = auto.to_json()
                    uid = int(t.seats[seat])
                    if uid in self.waiting and time.monotonic() - sent_at.get(uid, 0.0) < wait_answer:
                        continue  # still waiting for the bot's answer to the last thing typed
                    self.waiting.pop(uid, None)  # no answer: the bot may be down; type it again
                    text = typed_text(action)
                    update_id = self.fake.send_text(uid, uid, text)
                    self.sent[update_id] = (uid, len(self.fake.calls))
                    self.waiting[uid] = (update_id, len(self.fake.calls))
                    sent_at[uid] = time.monotonic()
                    break
            await asyncio.sleep(self.rng.uniform(*self.pace))
        self.answers()


class BotProcess(ChildProcess):
    """The bot (`fakes.bot_child`) on the SQLite file, polling the fake Bot API server."""

    def __init__(self, db: Path, fake: FakeTelegram) -> None:
        super().__init__()
        self.db, self.fake = db, fake

    def argv(self) -> list[str]:
        return ["fakes.bot_child", str(self.db), self.fake.api_root, self.fake.token]

    @property
    def errors(self) -> list[str]:
        return [line for line in self.output if line.startswith("error")]


def acknowledgements(fake: FakeTelegram) -> dict[int, list[int]]:
    """Per person, the call indices of every "✓" the bot sent them (one per applied action)."""
    out: dict[int, list[int]] = {}
    for i, call in enumerate(fake.calls):
        if call.method == "sendMessage" and call.ok and str(call.params.get("text")) == "✓" \
                and not call.params.get("reply_markup"):
            out.setdefault(int(call.params.get("chat_id", 0)), []).append(i)
    return out


def check_file(db: Path, fake: FakeTelegram, sent: dict[int, tuple[int, int]], report: CrashReport) -> dict[int, int]:
    """Every acknowledged action is in a log, no key twice, every log replays. Returns the versions.

    A "✓" does not name its update, so each one is matched, in order, to the earliest action of
    that person in the logs that was typed before the "✓" went out and is not matched yet; a "✓"
    with nothing to match is an acknowledged action that was lost. An update the bot stored but
    died before confirming is delivered again, and the restarted bot answers that delivery as the
    first was ("✓", bot.host): an action may so match as many "✓" as its update had deliveries.
    """
    conn = sqlite3.connect(db)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        keys = [k for (k,) in conn.execute("SELECT key FROM actions WHERE key IS NOT NULL")]
        report.doubled = sorted(k for k, n in Counter(keys).items() if n > 1)
        applied: dict[int, list[tuple[int, int]]] = {}  # person -> (calls before it was typed, update id)
        for k in keys:
            update_id = int(k.split(":", 1)[1])
            if update_id in sent:
                uid, at = sent[update_id]
                applied.setdefault(uid, []).append((at, update_id))
        report.lost = []
        for uid, acks in acknowledgements(fake).items():
            pool = sorted(applied.get(uid, []))
            matched: dict[int, int] = {}  # update id -> the "✓" matched to its action so far
            for ack in acks:
                # `at` is the number of calls before the action was typed, so the very next call
                # (index `at`) may already be its "✓": getUpdates is not in the log
                match = next((u for at, u in pool if at <= ack and u not in matched), None)
                if match is None:  # else the answer to a delivery again of an update already answered
                    match = next((u for at, u in pool if at <= ack and u in matched
                                  and matched[u] < fake.deliveries.get(u, 1)), None)
                if match is None:
                    report.lost.append(f"user {uid}: the answer at call {ack}")
                else:
                    matched[match] = matched.get(match, 0) + 1
        versions = {}
        for mid, rules, seed, version in conn.execute("SELECT id, rules, seed, version FROM matches"):
            actions = [json.loads(a) for (a,) in conn.execute(
                "SELECT action FROM actions WHERE match_id = ? ORDER BY seq", (mid,))]
            assert len(actions) == version
            if actions:
                engine.Match.replay(engine.Rules.from_dict(json.loads(rules)), int(seed), actions)  # raises if not
            versions[int(mid)] = int(version)
        return versions
    finally:
        conn.close()


async def run_crash(workdir: Path, *, tables: int = 8, kills: int = 10, seed: int = 1,
                    up: tuple[float, float] = (0.5, 2.5), pace: tuple[float, float] = (0.005, 0.03),
                    final: float = 4.0, acks_between: int = 0, log: Any = None) -> CrashReport:
    """Open `tables` tables of four people, kill the bot `kills` times, restart it each time, check.

    Each kill comes `up` seconds into the bot's run, and not before its answers acknowledged
    `acks_between` more actions: on a loaded machine the time alone may see few."""
    rng = random.Random(seed)
    report = CrashReport(tables)
    db = workdir / "crash.sqlite3"
    fake = FakeTelegram(limits=None)  # the child bot runs with its limits off (fakes.bot_child); this is about crashes
    await fake.start()
    bot = BotProcess(db, fake)
    started = time.monotonic()
    try:
        await bot.start()
        ts = [Table(i) for i in range(tables)]
        for t in ts:
            fake.add_group(t.group)
            for i, uid in enumerate(t.users):
                fake.add_user(uid, f"P{t.index}-{i}", opened=True)
            fake.command(t.users[0], t.group, "/new classic target=A")
            for uid in t.users[1:]:
                fake.command(uid, t.group, "/join")
        crowd = Crowd(fake, db, ts, rng, pace)
        asked: dict[int, float] = {}
        for _ in range(1200):  # up to two minutes on a busy machine
            with contextlib.suppress(sqlite3.OperationalError):
                conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
                rows = conn.execute("SELECT c.chat_id, m.id, m.status, m.seats FROM matches m"
                                    " JOIN chats c ON c.id = m.chat").fetchall()
                conn.close()
                by_chat = {int(c): (mid, st, json.loads(seats)) for c, mid, st, seats in rows}
                for t in ts:
                    if t.group not in by_chat:
                        continue
                    mid, st, seats = by_chat[t.group]
                    t.match_id = mid
                    full = sum(1 for seat in seats if seat.get("kind") == "human") == 4
                    if st == "lobby" and full and time.monotonic() - asked.get(t.index, 0.0) > 3.0:
                        fake.command(t.users[0], t.group, "/start")  # everyone is seated: start
                        asked[t.index] = time.monotonic()
                if all(by_chat.get(t.group, (0, "", []))[1] == "active" for t in ts):
                    break
            await asyncio.sleep(0.1)
        else:
            raise AssertionError("tables did not start")
        k = 0
        while report.kills < kills:
            k += 1
            target = crowd.acks + acks_between
            await crowd.act(time.monotonic() + rng.uniform(*up))
            for _ in range(600):  # a guard: two minutes of people playing at most
                if crowd.acks >= target:
                    break
                await crowd.act(time.monotonic() + 0.2)
            await bot.kill()
            report.kills += 1
            report.errors += bot.errors
            versions = check_file(db, fake, crowd.sent, report)
            report.kill_points.append(str(sum(versions.values())))
            if log is not None:
                log(f"kill {report.kills}: {sum(versions.values())} actions in the file, {crowd.acks} acknowledged, "
                    f"lost {len(report.lost)}, doubled {len(report.doubled)}")
            # People keep typing while the bot is down; then it comes back on the same file.
            await crowd.act(time.monotonic() + rng.uniform(0.0, 0.3))
            if k % 3 == 1 and report.kills < kills:
                # Sometimes it dies again while starting: resuming matches, re-rendering tables.
                bot = BotProcess(db, fake)
                await bot.start(wait_ready=False)
                await asyncio.sleep(rng.uniform(0.3, 1.2))
                await bot.kill()
                report.kills += 1
                report.restarts += 1
                check_file(db, fake, crowd.sent, report)
                report.kill_points.append("start-up")
            bot = BotProcess(db, fake)
            await bot.start()
            report.restarts += 1
        # The last run: every table must move on from where it was at the last kill.
        at_last_kill = check_file(db, fake, crowd.sent, report)
        end = time.monotonic() + final
        while time.monotonic() < end:  # until every table moved on (or the time is up)
            await crowd.act(time.monotonic() + 0.5)
            if all(t.match is not None and (t.match.result is not None
                                            or t.match.version > at_last_kill.get(t.match_id or 0, 0))
                   for t in ts):
                break
        await bot.kill(signal.SIGTERM)
        report.errors += bot.errors
        versions = check_file(db, fake, crowd.sent, report)
        crowd.read()
        for t in ts:
            assert t.match_id is not None
            done = t.match is not None and t.match.result is not None
            report.finished += done
            if not done and versions.get(t.match_id, 0) <= at_last_kill.get(t.match_id, 0):
                report.stuck.append(t.match_id)
        report.actions = sum(versions.values())
        report.sent = len(crowd.sent)
        report.acknowledged = sum(len(v) for v in acknowledgements(fake).values())
        report.redelivered_refused = crowd.refused
    finally:
        if bot.proc is not None and bot.proc.returncode is None:
            await bot.kill()
        await fake.stop()
    report.seconds = time.monotonic() - started
    return report
