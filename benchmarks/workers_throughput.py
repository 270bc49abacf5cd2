"""Actions per second through whole worker processes sharing one PostgreSQL database.

    python -m benchmarks.workers_throughput --postgres postgresql://user@host/db --workers 1 2 4

For each worker count: a fresh database beside the one named, `--tables` open matches of four
AI seats (the engine's `auto_action`, on the loop), then that many `fakes.worker_child`
processes, which share the tables out by their heartbeats. After a warm-up in which the shares
settle, the actions stored in `--seconds` are counted in the database. Also timed: from starting the
workers until every table has stored an action again (loaded from its log and moving): the
resume of `--tables` open matches. The workers' messages go
to a platform that discards them, so this measures the host, the engine and the store; figures
and the machine's load are in docs/deployment.md.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import time
from urllib.parse import urlsplit, urlunsplit

import asyncpg

import engine
from fakes.failover import WorkerProcess
from fakes.worker_child import SETTINGS
from persistence.postgres import PostgresStore


def _with_db(url: str, name: str) -> str:
    return urlunsplit(urlsplit(url)._replace(path="/" + name))


async def _fill_logs(url: str, tables: int, history: int) -> None:
    """Gives every match a log of `history` actions already played (the engine's own moves)."""
    conn = await asyncpg.connect(url)
    try:
        now = time.time()
        records = []
        for i in range(tables):
            match = engine.Match.new(engine.Rules.from_dict(
                {**engine.preset("classic").to_dict(), "target": "A"}), seed=1000 + i)
            while len(match.actions) < history:
                seats = match.to_act()
                action = match.auto_action(seats[0], rng_seed=len(match.actions)) if seats else match.system_action()
                if action is None:
                    break
                match.apply(action)
            records += [(i + 1, seq, json.dumps(a, separators=(",", ":")), None, now)
                        for seq, a in enumerate(match.actions_json())]
        await conn.copy_records_to_table("actions", records=records, columns=["match_id", "seq", "action", "key", "at"])
    finally:
        await conn.close()


async def one_run(url: str, workers: int, tables: int, seconds: float, warmup: float,
                  history: int = 0) -> dict[str, float]:
    name = f"tractor_bench_{workers}_{os.getpid()}"
    admin = await asyncpg.connect(_with_db(url, "postgres"))
    await admin.execute(f'DROP DATABASE IF EXISTS "{name}"')
    await admin.execute(f'CREATE DATABASE "{name}"')
    target = _with_db(url, name)
    store = await PostgresStore.open(target, synchronous="FULL")
    rules = {**engine.preset("classic").to_dict(), "target": "A"}
    meta = {"preset": "classic", "creator": "0", "creator_name": "-", "options": "", "settings": SETTINGS.to_dict()}
    seats = [{"kind": "ai", "name": f"Bot{k}", "level": "basic"} for k in range(4)]
    for i in range(tables):
        await store.create_match("fake", f"g{i}", rules, seats, 1000 + i, meta, status="active")
    await store.close()
    if history:
        await _fill_logs(target, tables, history)
    procs = [WorkerProcess(target, f"w{k}") for k in range(workers)]
    conn = await asyncpg.connect(target)
    try:
        t_start, wall = time.monotonic(), time.time()
        for p in procs:
            await p.start()
        # resumed: every table loaded from its log and moving again (an action stored since the start)
        while int(await conn.fetchval("SELECT count(*) FROM matches WHERE updated_at > $1", wall)) < tables:
            await asyncio.sleep(0.05)
        taken = time.monotonic() - t_start
        await asyncio.sleep(warmup)  # the shares settle (a beat a second) and every table is running
        spread = [int(r[0]) for r in await conn.fetch("SELECT count(*) FROM leases GROUP BY worker")]
        before = int(await conn.fetchval("SELECT count(*) FROM actions"))
        cpu0 = sum(_cpu(p) for p in procs)
        t0 = time.monotonic()
        await asyncio.sleep(seconds)
        after = int(await conn.fetchval("SELECT count(*) FROM actions"))
        elapsed = time.monotonic() - t0
        cpu = sum(_cpu(p) for p in procs) - cpu0
    finally:
        for p in procs:
            if p.alive:
                await p.kill()
        await conn.close()
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()
    actions = after - before
    return {"workers": workers, "tables": tables, "actions_per_s": actions / elapsed,
            "cpu_ms_per_action": 1000 * cpu / max(1, actions), "spread": float(min(spread or [0])),
            "spread_max": float(max(spread or [0])), "load": os.getloadavg()[0], "taken": taken}


def _cpu(p: WorkerProcess) -> float:
    """User + system CPU seconds of a worker process so far."""
    assert p.proc is not None
    with open(f"/proc/{p.proc.pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def main_async(args: argparse.Namespace) -> None:
    for n in args.workers:
        r = await one_run(args.postgres, n, args.tables, args.seconds, args.warmup, args.history)
        print(f"{n} workers, {args.tables} tables: {r['actions_per_s']:.0f} actions/s,"
              f" {r['cpu_ms_per_action']:.2f} ms CPU/action (workers), tables per worker"
              f" {r['spread']:.0f}-{r['spread_max']:.0f}, every table resumed and moving {r['taken']:.2f} s"
              f" after the first worker started, load {r['load']:.1f}", flush=True)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--postgres", required=True, help="a database URL on the server to use")
    p.add_argument("--workers", type=int, nargs="+", default=[1, 2, 4])
    p.add_argument("--tables", type=int, default=200)
    p.add_argument("--seconds", type=float, default=20.0)
    p.add_argument("--warmup", type=float, default=8.0)
    p.add_argument("--history", type=int, default=0, help="actions already in each match's log")
    asyncio.run(main_async(p.parse_args()))


if __name__ == "__main__":
    main()
