"""Telegram's flood budgets across workers: messages a second and 429s, with the budgets shared in
PostgreSQL and without, and what sharing costs a message.

    python -m benchmarks.telegram_workers --postgres postgresql://user@host/db [--workers 1 3]

For each worker count, twice (shared, then not): a fresh database beside the one named, then the
workers of `fakes/flood_workers.py` (whole Telegram sides with the real client, in this process)
say `--per-group` things in each of their `--groups` groups and `--per-person` things to each of
`--people` private chats they all write to, against the strict fake Bot API server on real time.
Counted at the fake: messages taken a second (mean, and the most in any one second) and 429s;
from the workers: ledger rounds per message and their mean time, and the process's CPU per
message. Figures and the machine's load go to docs/deployment.md.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import time
from urllib.parse import urlsplit, urlunsplit

import asyncpg

from fakes.flood_workers import run


def _with_db(url: str, name: str) -> str:
    return urlunsplit(urlsplit(url)._replace(path="/" + name))


async def _fresh(url: str, name: str) -> str:
    admin = await asyncpg.connect(_with_db(url, "postgres"))
    try:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}"')
        await admin.execute(f'CREATE DATABASE "{name}"')
    finally:
        await admin.close()
    return _with_db(url, name)


async def main_async(args: argparse.Namespace) -> None:
    for n in args.workers:
        for shared in (True, False):
            url = await _fresh(args.postgres, f"tractor_flood_{n}_{int(shared)}_{os.getpid()}")
            cpu = time.process_time()
            r = await run(url, workers=n, groups=args.groups, per_group=args.per_group, people=args.people,
                          per_person=args.per_person, shared=shared)
            cpu = time.process_time() - cpu
            line = (f"{n} workers, shared={shared}: {r.sent} messages in {r.seconds:.1f} s = {r.per_second:.1f}/s"
                    f" (most in one second {r.peak}), 429s {r.rejected_429} {r.rejected_by},"
                    f" CPU {1000 * cpu / max(1, r.sent):.2f} ms/message (whole process)")
            if shared:
                line += (f", {r.rounds / max(1, r.sent):.2f} rounds/message,"
                         f" round {1000 * r.round_seconds / max(1, r.rounds):.1f} ms")
            print(line + f", load {os.getloadavg()[0]:.1f}", flush=True)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--postgres", required=True, help="a database URL on the server to use")
    p.add_argument("--workers", type=int, nargs="+", default=[1, 3])
    p.add_argument("--groups", type=int, default=30)
    p.add_argument("--per-group", type=int, default=1)
    p.add_argument("--people", type=int, default=10)
    p.add_argument("--per-person", type=int, default=3)
    asyncio.run(main_async(p.parse_args()))


if __name__ == "__main__":
    main()
