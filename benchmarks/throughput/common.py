"""What the throughput benchmarks share: their table settings, the people's ids, the fake's call log."""

from __future__ import annotations

import bisect
import os
import sys
import time
from dataclasses import dataclass
from typing import Any

from bot.settings import TableSettings
from fakes.telegram_api import FakeTelegram

# Calls Telegram counts against the bot's message limits; answers to callback and inline queries do not.
MESSAGE_METHODS = ("sendMessage", "editMessageText", "editMessageReplyMarkup", "sendPhoto", "sendDocument",
                   "deleteMessage")
SETTINGS = TableSettings(deal=0, declare=0, bury=0, turn=0, next=0, lobby=0, away_after=0)


def rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


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


def people_of(n: int) -> list[tuple[int, list[int]]]:
    """(group, its four people) of every table."""
    return [(-(900_000 + i), [1_000_000 + 4 * i + k for k in range(4)]) for i in range(n)]


def add_people(fake: FakeTelegram, people: list[tuple[int, list[int]]]) -> None:
    for i, (group, users) in enumerate(people):
        fake.add_group(group)
        for k, uid in enumerate(users):
            fake.add_user(uid, f"P{i}.{k}", opened=True)


def call_log(calls: list[Any]) -> list[tuple[str, int, float, int]]:
    """(method, chat id, at, status) of each of the fake's calls."""
    return [(c.method, int(c.params.get("chat_id", 0) or 0), c.at, c.status) for c in calls]

def latency_by_update(calls: list[tuple[Any, ...]], tables: list[BenchTable],
                      updates: list[tuple[int, float, int]]) -> dict[int, float]:
    """update id -> time from it to the last API call to its table's chats before that table's next update
    (`calls`: (method, chat id, at, ...) as `call_log` gives them)."""
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



def choose_result(fake: FakeTelegram, uid: int, qid: str, want: str, group: int) -> int:
    """The person picks the result titled `want` (else the first) from the bot's answer."""
    results = fake.inline_answers[qid]["results"]
    chosen = next((r for r in results if r.get("title") == want), results[0])
    return fake.choose_inline(uid, qid, chosen["id"], group)


def progress(what: str) -> None:
    if os.environ.get("BENCH_VERBOSE"):
        print(f"{time.monotonic():.2f} {what}", file=sys.stderr, flush=True)


def loadavg() -> str:
    try:
        with open("/proc/loadavg") as f:
            return " ".join(f.read().split()[:3])
    except OSError:
        return "?"
