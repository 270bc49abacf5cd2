"""`python -m benchmarks.web_latency --tables N --seconds S`: play-to-screen latency on the web table.

The bot's process (this one) runs the host on SQLite (synchronous NORMAL) with the web table on a
loopback port; N tables of four people each are open, every seat on the web. A second process
opens the 4N sockets as the pages would (signed seat links) and plays: when a page shows its seat
must act, it waits a person's think time, asks the bench's oracle route (added to the same aiohttp
application, beside the table's routes) which move the engine's quick player would make, and sends
it over its socket. The latency of a play is the time from sending it to each of the table's four
sockets receiving the state that shows it (JSON parsed); every receipt counts, so the p99 is over
4 receipts per play. Both ends run on one machine; the clients in their own process and core.

Chat traffic is counted at the platform: messages sent and edited per play while people play on
the web (figures and how to read them: docs/web.md).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import random
import resource
import socket
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import aiohttp
from aiohttp import web

from adapters.web.config import WebConfig
from adapters.web.server import WebTable
from app.features import build_host
from app.simulate import CountingPlatform
from bot.host import Host
from bot.platform import Incoming, User, View, Where
from bot.settings import TableSettings
from persistence.store import SqliteStore

SETTINGS = TableSettings(deal=0, declare=0, next=0, turn=600, bury=600, lobby=0)


class ChatCount(CountingPlatform):
    """Counts what goes to the chat: private messages (hands) apart from the group's."""

    def __init__(self) -> None:
        super().__init__()
        self.private = 0
        self.group = 0

    async def send(self, where: Where, view: View) -> str:
        self.private += where.private
        self.group += not where.private
        return await super().send(where, view)

    async def edit(self, where: Where, message_id: str, view: View) -> None:
        self.private += where.private
        self.group += not where.private
        await super().edit(where, message_id, view)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def open_tables(host: Host, n: int) -> list[tuple[int, list[str]]]:
    """N tables of four people (`new`, three `join`s, `start`); their ids and the seats' user ids."""
    keys = iter(range(1, 10**9))

    async def command(chat: str, uid: str, name: str) -> None:
        await host.handle(Incoming("command", User("sim", uid, f"P{uid}", "en"), Where("sim", chat),
                                   key=f"b{next(keys)}", name=name))

    out = []
    for i in range(n):
        chat = f"g{i}"
        people = [f"{i}-{k}" for k in range(4)]
        await command(chat, people[0], "new")
        for uid in people[1:]:
            await command(chat, uid, "join")
        await command(chat, people[0], "start")
        await host.settle()
        table = host.by_chat[("sim", chat)]
        out.append((table.id, [str(table.seats[s]["user_id"]) for s in range(4)]))
    return out


# ----- the pages (a process of their own) -----

async def pages(port: int, links: list[tuple[int, list[str]]], seconds: float, think: float,
                out: str) -> None:
    base = f"http://127.0.0.1:{port}"
    rng = random.Random(1)
    latencies: list[float] = []
    plays = 0
    sent_at: dict[int, tuple[int, float, set[int]]] = {}  # match -> (version before the play, sent, seats shown)
    stop_at = time.monotonic() + seconds
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as session:

        async def seat(match_id: int, s: int, token: str) -> None:
            nonlocal plays
            ws = await session.ws_connect(f"{base}/ws", max_msg_size=0)
            await ws.send_json({"t": "hello", "auth": {"link": token}, "match": match_id})
            acted = -1
            pending: asyncio.Task[None] | None = None

            async def act(version: int) -> None:
                nonlocal plays
                await asyncio.sleep(think * (0.5 + rng.random()))
                if time.monotonic() > stop_at:
                    return
                async with session.get(f"{base}/bench/auto", params={"m": match_id, "s": s}) as r:
                    a = await r.json()
                if a is None or a.get("version") != version:
                    return
                if a["t"] == "play":
                    sent_at[match_id] = (version, time.monotonic(), set())
                    plays += 1
                await ws.send_json({"t": "act", "a": a["t"], "cards": a.get("cards", []), "key": f"{version}"})

            async for msg in ws:
                if msg.type != aiohttp.WSMsgType.TEXT:
                    break
                now = time.monotonic()
                data = json.loads(msg.data)
                if data.get("type") != "state" or data["scene"]["table"]["phase"] is None:
                    continue
                v = int(data["version"])
                waiting = sent_at.get(match_id)
                if waiting is not None and waiting[0] < v and s not in waiting[2]:
                    latencies.append(now - waiting[1])
                    waiting[2].add(s)
                    if len(waiting[2]) == 4:
                        del sent_at[match_id]
                mine = s in data["scene"]["table"]["turn"]["seats"]
                if mine and acted < v and now < stop_at and (pending is None or pending.done()):
                    acted = v
                    pending = asyncio.create_task(act(v))
                if now > stop_at + 2:
                    break
            await ws.close()

        tasks = []
        for match_id, tokens in links:
            for s, token in enumerate(tokens):
                tasks.append(asyncio.create_task(seat(match_id, s, token)))
        await asyncio.sleep(seconds + 3)
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    used = resource.getrusage(resource.RUSAGE_SELF)
    Path(out).write_text(json.dumps({"latencies": latencies, "plays": plays,
                                     "cpu": used.ru_utime + used.ru_stime}))


def run_pages(port: int, links: list[tuple[int, list[str]]], seconds: float, think: float, out: str) -> None:
    if hasattr(os, "sched_setaffinity") and os.cpu_count() and os.cpu_count() > 1:  # type: ignore[operator]
        os.sched_setaffinity(0, {1})
    asyncio.run(pages(port, links, seconds, think, out))


# ----- the bot (this process) -----

async def bench(tables: int, seconds: float, think: float) -> dict[str, Any]:
    if hasattr(os, "sched_setaffinity") and (os.cpu_count() or 1) > 1:
        os.sched_setaffinity(0, {0})
    directory = Path(tempfile.mkdtemp(prefix="web-bench-"))
    store = await SqliteStore.open(directory / "bench.sqlite3", synchronous="NORMAL")
    platform = ChatCount()
    host = build_host(store, defaults=SETTINGS, use_ai_threads=False, rng=random.Random(3))
    host.register(platform)
    await host.start()
    port = free_port()
    webtable = WebTable(host, WebConfig(port=port, public_url=f"http://127.0.0.1:{port}", secret=b"b" * 32))
    host.live.links = webtable
    app = webtable.application()

    async def auto(request: web.Request) -> web.Response:  # the bench's oracle: the engine's quick move
        table = host.tables.get(int(request.query["m"]))
        s = int(request.query["s"])
        if table is None or table.match is None:
            return web.json_response(None)
        m = table.match
        a = m.auto_action(s, rng_seed=m.version)
        return web.json_response(None if a is None else {**a.to_json(), "version": m.version})

    app.router.add_get("/bench/auto", auto)
    await webtable.start(app)
    opened = await open_tables(host, tables)
    links = [(mid, [webtable.signer.sign("sim", mid, uid) for uid in uids]) for mid, uids in opened]
    out = str(directory / "pages.json")
    cpu0 = resource.getrusage(resource.RUSAGE_SELF)
    ctx = multiprocessing.get_context("spawn")
    proc = ctx.Process(target=run_pages, args=(port, links, seconds, think, out))
    proc.start()
    # the chat is counted once every page is open and each hand in the chat was folded away
    while proc.is_alive() and len(webtable.connections) < 4 * tables:
        await asyncio.sleep(0.05)
    await asyncio.sleep(0.5)
    before = (platform.private, platform.group)
    while proc.is_alive():
        await asyncio.sleep(0.2)
    cpu1 = resource.getrusage(resource.RUSAGE_SELF)
    private, group = platform.private - before[0], platform.group - before[1]
    await webtable.stop()
    await host.stop()
    await store.close()
    data = json.loads(Path(out).read_text())
    lat = sorted(data["latencies"])
    plays = max(1, data["plays"])
    q = statistics.quantiles(lat, n=100) if len(lat) > 1 else [0.0] * 99
    return {"tables": tables, "sockets": 4 * tables, "plays": data["plays"], "receipts": len(lat),
            "median_ms": round(statistics.median(lat) * 1000, 1) if lat else None,
            "p99_ms": round(q[98] * 1000, 1), "max_ms": round(lat[-1] * 1000, 1) if lat else None,
            "private_msgs_per_play": round(private / plays, 3), "group_msgs_per_play": round(group / plays, 3),
            "bot_cpu_s": round(cpu1.ru_utime + cpu1.ru_stime - cpu0.ru_utime - cpu0.ru_stime, 1),
            "pages_cpu_s": round(data.get("cpu", 0.0), 1), "wall_s": round(seconds + 3, 1),
            "load": os.getloadavg()[0]}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("--tables", type=int, default=100)
    p.add_argument("--seconds", type=float, default=30.0)
    p.add_argument("--think", type=float, default=2.0, help="a person's mean seconds before each move")
    args = p.parse_args(argv)
    print(json.dumps(asyncio.run(bench(args.tables, args.seconds, args.think))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
