"""Crash and resume under load: `python -m benchmarks.crash_resume --tables 16 --kills 12`.

Runs the bot as a child process on one SQLite file against the fake Bot API
server, with four simulated people at every table playing at a pace; SIGKILLs
it at random moments (some while it is still resuming), restarts it on the
same file each time, and checks that every acknowledged action is kept, none
is applied twice and no table is stuck. See tests/reliability/crash.py.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import tempfile
from pathlib import Path

from fakes.crash import run_crash


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tables", type=int, default=16)
    p.add_argument("--kills", type=int, default=12)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--final", type=float, default=60.0,
                   help="at most this long the last bot process runs, until every table moved on")
    args = p.parse_args()
    logging.basicConfig(level=logging.CRITICAL)  # a killed client leaves the fake server's requests half-read
    with tempfile.TemporaryDirectory() as tmp:
        report = asyncio.run(run_crash(Path(tmp), tables=args.tables, kills=args.kills, seed=args.seed,
                                       final=args.final, log=print))
    print(report.text())
    for line in report.lost[:10] + report.doubled[:10] + report.errors[:10]:
        print("  ", line)
    return 0 if report.ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
