"""Failover under load, longer than the test: `python -m benchmarks.failover --postgres URL`.

Three (`--workers`) worker processes on a fresh database beside the one named, `--tables` tables
of four people typing at a pace, one worker SIGKILLed at random moments `--kills` times
(`fakes/failover.py`). Prints what was lost, doubled or stuck and the failover times; the
figures are in docs/deployment.md.
"""

from __future__ import annotations

import argparse
import asyncio
import os
from urllib.parse import urlsplit, urlunsplit

import asyncpg

from fakes.failover import run_failover


async def main_async(args: argparse.Namespace) -> int:
    name = f"tractor_failover_{os.getpid()}"
    admin_url = urlunsplit(urlsplit(args.postgres)._replace(path="/postgres"))
    admin = await asyncpg.connect(admin_url)
    await admin.execute(f'CREATE DATABASE "{name}"')
    try:
        report = await run_failover(urlunsplit(urlsplit(args.postgres)._replace(path="/" + name)),
                                    workers=args.workers, tables=args.tables, kills=args.kills, seed=args.seed,
                                    up=(args.up_min, args.up_max), log=print)
    finally:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()
    print(report.text())
    print("failover times:", " ".join(f"{s:.2f}" for s in report.failover))
    print(f"load average: {os.getloadavg()[0]:.1f}")
    return 0 if report.ok else 1


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--postgres", required=True, help="a database URL on the server to use")
    p.add_argument("--workers", type=int, default=3)
    p.add_argument("--tables", type=int, default=8)
    p.add_argument("--kills", type=int, default=20)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--up-min", type=float, default=1.0)
    p.add_argument("--up-max", type=float, default=3.0)
    raise SystemExit(asyncio.run(main_async(p.parse_args())))


if __name__ == "__main__":
    main()
