"""`python -m benchmarks.web_workers --postgres URL`: play-to-screen latency of the web table with two
workers, the pages on the table's owner or on the other worker.

Two worker processes (`fakes.web_worker_child`: store, host, cluster and the web table, as
`tractor-host run` with `TRACTOR_WEB_PORT`) share one PostgreSQL database; N tables of four people
are opened and the shares settle (each worker drives about half). Then, for each placement in
turn, every table's four pages open on its owner ("owner") or on the worker that does not drive it
("other"), and each table plays `--plays` plays, one after another, each person waiting `--think`
seconds first: the seat to act sends the engine's quick move over its socket. *Latency* is from the
play leaving its page's socket to each of the other three pages holding a state that shows it
(JSON parsed), so three receipts a play. On "other" the play goes to the owner through the inbox
and the other pages see it through the owner's NOTIFY and a read of the store. Figures: docs/web.md.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import time
from typing import Any

import aiohttp
import asyncpg

from fakes.web_cluster import Page, Room, Seated, WebWorker


def summary(latencies: list[float]) -> dict[str, Any]:
    lat = sorted(latencies)
    if not lat:
        return {"receipts": 0}
    q = statistics.quantiles(lat, n=100) if len(lat) > 1 else [lat[0]] * 99
    return {"receipts": len(lat), "median_ms": round(statistics.median(lat) * 1000, 1),
            "p99_ms": round(q[98] * 1000, 1), "max_ms": round(lat[-1] * 1000, 1)}


async def play_table(room: Room, t: Seated, pages: dict[int | None, Page], plays: int, think: float,
                     out: list[float]) -> None:
    made = 0
    while made < plays:
        await asyncio.sleep(think)
        done = await room.act(t, pages)
        if done is None:
            return
        what, seat, version, sent = done
        arrivals = await asyncio.gather(*(p.until(version + 1) for s, p in pages.items()
                                          if s is not None and s != seat))
        if what == "play":
            made += 1
            out.extend(max(0.0, at - sent) for at in arrivals)


async def bench(url: str, tables: int, plays: int, think: float) -> dict[str, Any]:
    conn = await asyncpg.connect(url)
    try:  # a fresh schema for each run
        await conn.execute("DROP SCHEMA public CASCADE; CREATE SCHEMA public")
    finally:
        await conn.close()
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as session:
        room = Room(url, session)
        try:
            w1 = await room.add_worker("w1")
            seated = [await room.open_table(w1, f"g{i}") for i in range(tables)]
            w2 = await room.add_worker("w2")
            for _ in range(100):  # the shares settle: each worker drives about half
                owners = [await room.owner(t.match_id) for t in seated]
                if owners.count("w2") == tables // 2 and owners.count("w1") == tables - tables // 2:
                    break
                await asyncio.sleep(0.2)
            by_name: dict[str, WebWorker] = {"w1": w1, "w2": w2}
            out: dict[str, Any] = {"tables": tables, "plays_per_table": plays, "think_s": think}
            for placement in ("owner", "other"):
                latencies: list[float] = []
                all_pages: list[Page] = []
                jobs = []
                for t in seated:
                    owner = await room.owner(t.match_id)
                    assert owner is not None
                    at = by_name[owner] if placement == "owner" else by_name["w2" if owner == "w1" else "w1"]
                    pages: dict[int | None, Page] = {s: await room.page(at, t, s) for s in range(4)}
                    all_pages += pages.values()
                    jobs.append(play_table(room, t, pages, plays, think, latencies))
                load = os.getloadavg()[0]
                started = time.monotonic()
                await asyncio.gather(*jobs)
                out[placement] = {**summary(latencies), "seconds": round(time.monotonic() - started, 1),
                                  "load": round(load, 1)}
                for p in all_pages:
                    await p.close()
            return out
        finally:
            await room.close()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("--postgres", required=True, help="a database this benchmark may empty (public schema)")
    p.add_argument("--tables", type=int, default=4)
    p.add_argument("--plays", type=int, default=50, help="plays per table and placement")
    p.add_argument("--think", type=float, default=0.2, help="seconds a person waits before each move")
    args = p.parse_args(argv)
    print(json.dumps(asyncio.run(bench(args.postgres, args.tables, args.plays, args.think))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
