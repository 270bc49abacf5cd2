"""`python -m benchmarks.store_bench`: durable appends per second, and the resume time of many open matches.

Appends go through `SqliteStore.append_action` (one transaction each, the
way the host writes), once per synchronous mode. Resume opens the file
afresh, loads every unfinished match and replays each through the real
engine (`--engine standin` swaps in a trivial fold, to time the store alone). Figures vary with the disk; run on the machine you deploy to.
With `--postgres URL` the same appends and resume run on `PostgresStore` too
(a throwaway server: `python -m tests.persistence.pg_server` prints a URL; fsync on).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import asyncpg

import engine
from app.db import engine_rebuild
from persistence.postgres import PostgresStore, redact
from persistence.replay import Rebuild, replay_all
from persistence.store import SqliteStore, Synchronous


async def append_rate(directory: Path, synchronous: Synchronous, n: int, tables: int,
                      postgres: str | None = None) -> float:
    """Appends per second through the store API; `tables` matches append concurrently."""
    store: SqliteStore | PostgresStore
    if postgres:
        store = await PostgresStore.open(postgres, synchronous=synchronous)
    else:
        store = await SqliteStore.open(directory / f"append-{synchronous}-{tables}.sqlite3", synchronous=synchronous)
    try:
        run = time.perf_counter_ns()
        ids = [await store.create_match("bench", f"c{run}-{t}", {}, [], t, {}) for t in range(tables)]
        per_table = n // tables

        async def table(match_id: int) -> None:
            for seq in range(per_table):
                action = {"t": "play", "seat": seq % 4, "cards": ["AS", "AS"]}
                await store.append_action(match_id, seq, action, f"{run}:{match_id}:{seq}")

        start = time.perf_counter()
        await asyncio.gather(*(table(m) for m in ids))
        elapsed = time.perf_counter() - start
        return per_table * tables / elapsed
    finally:
        await store.close()


def engine_log(seed: int, length: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A real match log of `length` actions, driven the way the host drives it (auto actions, system clock)."""
    rules = engine.preset("classic")
    match = engine.Match.new(rules, seed=seed)
    while len(match.actions) < length:
        seats = match.to_act()
        if seats:
            action = match.auto_action(seats[0], rng_seed=seed + len(match.actions))
        else:
            action = match.system_action()
            if action is None:
                break
        match.apply(action)
    return rules.to_dict(), match.actions_json()


def _standin_log(seed: int, n: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    return {"preset": "standin"}, [{"t": "play", "seat": i % 4, "n": seed + i} for i in range(n)]


def _standin_rebuild(rules: dict[str, Any], seed: int, actions: list[dict[str, Any]]) -> int:
    total = 0
    for action in actions:
        total += int(action["n"])
    return total


async def build_open_matches(
    path: Path,
    matches: int,
    length: int,
    make_log: Callable[[int, int], tuple[dict[str, Any], list[dict[str, Any]]]],
) -> None:
    """Fill a file with `matches` unfinished matches of `length` actions (bulk: this is set-up, not measured)."""
    store = await SqliteStore.open(path, synchronous="OFF")
    try:
        logs = [make_log(seed, length) for seed in range(matches)]
        now = time.time()
        async with store.transaction() as conn:
            for seed, (rules, actions) in enumerate(logs):
                chat = f"chat{seed}"
                await conn.execute(
                    "INSERT INTO chats (platform, chat_id, created_at, updated_at) VALUES ('bench', ?, ?, ?)",
                    (chat, now, now),
                )
                cur = await conn.execute(
                    "INSERT INTO matches (chat, rules, seats, seed, status, meta, version, created_at, updated_at)"
                    " VALUES (last_insert_rowid(), ?, '[]', ?, 'active', '{}', ?, ?, ?)",
                    (json.dumps(rules), seed, len(actions), now, now),
                )
                match_id = cur.lastrowid
                await conn.executemany(
                    "INSERT INTO actions (match_id, seq, action, key, at) VALUES (?, ?, ?, ?, ?)",
                    [
                        (match_id, seq, json.dumps(a, separators=(",", ":")), f"{match_id}:{seq}", now)
                        for seq, a in enumerate(actions)
                    ],
                )
                await conn.execute(
                    "INSERT INTO messages (match_id, slot, message_id) VALUES (?, 'table', ?)",
                    (match_id, str(seed)),
                )
                await conn.execute(
                    "INSERT INTO deadlines (match_id, kind, at) VALUES (?, 'turn', ?)", (match_id, now)
                )
    finally:
        await store.close()


async def build_open_matches_pg(
    url: str, matches: int, length: int,
    make_log: Callable[[int, int], tuple[dict[str, Any], list[dict[str, Any]]]],
) -> None:
    """The same set-up on PostgreSQL, into an empty database (COPY; not measured)."""
    store = await PostgresStore.open(url, synchronous="OFF")
    await store.close()  # the schema
    conn = await asyncpg.connect(url)
    try:
        logs = [make_log(seed, length) for seed in range(matches)]
        now = time.time()
        await conn.copy_records_to_table(
            "chats", records=[(i + 1, "bench", f"chat{i}", "{}", now, now) for i in range(matches)],
            columns=["id", "platform", "chat_id", "settings", "created_at", "updated_at"],
        )
        await conn.copy_records_to_table(
            "matches",
            records=[(i + 1, i + 1, json.dumps(r), "[]", i, "active", "{}", len(a), now, now)
                     for i, (r, a) in enumerate(logs)],
            columns=["id", "chat", "rules", "seats", "seed", "status", "meta", "version", "created_at", "updated_at"],
        )
        await conn.execute("ALTER TABLE actions DISABLE TRIGGER actions_raise_version")
        await conn.copy_records_to_table(
            "actions",
            records=[(i + 1, seq, json.dumps(a, separators=(",", ":")), f"{i + 1}:{seq}", now)
                     for i, (_, actions) in enumerate(logs) for seq, a in enumerate(actions)],
            columns=["match_id", "seq", "action", "key", "at"],
        )
        await conn.execute("ALTER TABLE actions ENABLE TRIGGER actions_raise_version")
        await conn.copy_records_to_table(
            "messages", records=[(i + 1, "table", str(i)) for i in range(matches)],
            columns=["match_id", "slot", "message_id"],
        )
        await conn.copy_records_to_table(
            "deadlines", records=[(i + 1, "turn", now) for i in range(matches)], columns=["match_id", "kind", "at"]
        )
        await conn.execute("SELECT setval(pg_get_serial_sequence('matches', 'id'), $1)", matches)
        await conn.execute("SELECT setval(pg_get_serial_sequence('chats', 'id'), $1)", matches)
        await conn.execute("ANALYZE")
    finally:
        await conn.close()


def _cpu() -> float:
    """CPU seconds of this process, all threads (the aiosqlite worker included)."""
    return time.process_time()


async def resume_time(path: Path | str, rebuild: Rebuild[Any]) -> dict[str, float]:
    """Seconds to open the file (or PostgreSQL URL), load every unfinished match, and replay them all."""
    c0 = _cpu()
    t0 = time.perf_counter()
    store = await PostgresStore.open(path) if isinstance(path, str) else await SqliteStore.open(path)
    t1 = time.perf_counter()
    try:
        loaded = await store.load_unfinished()
        t2 = time.perf_counter()
        report = replay_all(loaded, rebuild)
        t3 = time.perf_counter()
    finally:
        await store.close()
    if report.broken:
        raise RuntimeError(f"benchmark logs failed to replay: {report.broken[:3]}")
    return {
        "matches": float(len(loaded)),
        "actions": float(sum(len(m.actions) for m in loaded)),
        "open": t1 - t0,
        "load": t2 - t1,
        "replay": t3 - t2,
        "total": t3 - t0,
        "cpu": _cpu() - c0,
    }


async def run(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        directory = Path(tmp)
        print(f"SQLite file in {directory} (journal_mode=WAL)")
        print(
            f"durable appends through SqliteStore.append_action, {args.appends} each, one transaction per append:"
        )
        modes: tuple[Synchronous, ...] = ("FULL", "NORMAL")
        for mode in modes:
            for tables in (1, 20):
                rates = [await append_rate(directory, mode, args.appends, tables) for _ in range(args.repeat)]
                print(
                    f"  synchronous={mode:<6} {tables:>2} table(s): {statistics.median(rates):>8.0f} appends/s"
                    f" (median of {args.repeat})"
                )
        if args.postgres:
            print(f"durable appends through PostgresStore.append_action on {redact(args.postgres)}:")
            for mode in modes:
                commit = "on" if mode == "FULL" else "off"
                for tables in (1, 20):
                    rates = [await append_rate(directory, mode, args.appends, tables, args.postgres)
                             for _ in range(args.repeat)]
                    print(
                        f"  synchronous_commit={commit:<3} {tables:>2} table(s): {statistics.median(rates):>8.0f}"
                        f" appends/s (median of {args.repeat})"
                    )
        if args.appends_only:
            return

        make_log: Callable[[int, int], tuple[dict[str, Any], list[dict[str, Any]]]]
        rebuild: Rebuild[Any]
        if args.engine == "real":
            label = "real engine (Match.replay of classic matches driven by auto_action)"
            make_log, rebuild = engine_log, engine_rebuild
        else:
            label = "stand-in fold (the store alone)"
            make_log, rebuild = _standin_log, _standin_rebuild
        path = directory / "resume.sqlite3"
        print(f"resume: {args.matches} open matches x {args.actions} actions, replay through the {label}")
        t = time.perf_counter()
        await build_open_matches(path, args.matches, args.actions, make_log)
        print(f"  (set-up: generated and stored the logs in {time.perf_counter() - t:.1f} s)")
        targets: list[tuple[str, Path | str]] = [("SQLite", path)]
        if args.postgres:
            fresh = await _fresh_database(args.postgres, "tractor_resume_bench")
            t = time.perf_counter()
            await build_open_matches_pg(fresh, args.matches, args.actions, make_log)
            print(f"  (set-up on PostgreSQL: {time.perf_counter() - t:.1f} s)")
            targets.append(("PostgreSQL", fresh))
        for name, target in targets:
            runs = [await resume_time(target, rebuild) for _ in range(args.repeat)]
            _print_resume(name, runs, args.repeat)


async def _fresh_database(url: str, name: str) -> str:
    """An empty database `name` on the server of `url` (dropped first if a previous run left it)."""
    conn = await asyncpg.connect(url)
    try:
        await conn.execute(f"DROP DATABASE IF EXISTS {name}")
        await conn.execute(f"CREATE DATABASE {name}")
    finally:
        await conn.close()
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path=f"/{name}"))


def _print_resume(name: str, runs: list[dict[str, float]], repeat: int) -> None:
    best = min(runs, key=lambda r: r["total"])
    print(
            f"  {name}: {int(best['matches'])} matches, {int(best['actions'])} actions: open {best['open']:.3f} s,"
            f" load {best['load']:.3f} s, replay {best['replay']:.3f} s, total {best['total']:.2f} s"
            f" (CPU {best['cpu']:.2f} s; best of {repeat}, median total"
            f" {statistics.median(r['total'] for r in runs):.2f} s)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.store_bench", description=__doc__)
    parser.add_argument("--appends", type=int, default=2000, help="appends per measurement (default 2000)")
    parser.add_argument("--matches", type=int, default=1000, help="open matches to resume (default 1000)")
    parser.add_argument("--actions", type=int, default=100, help="actions per open match (default 100)")
    parser.add_argument("--repeat", type=int, default=3, help="repetitions; the median/best is shown")
    parser.add_argument("--engine", choices=("real", "standin"), default="real")
    parser.add_argument("--dir", help="where to put the temporary files (default: the system temp dir)")
    parser.add_argument("--postgres", metavar="URL", help="also measure PostgresStore on this server")
    parser.add_argument("--appends-only", action="store_true", help="skip the resume measurement")
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
