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

The parts live in `benchmarks.throughput`: `ai_tables` (the AI-only run),
`people` (simulated people), `fake_process` (the fake server in its own
process) and `common`.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os

from benchmarks.throughput.ai_tables import run_ai
from benchmarks.throughput.people import MODES, run

__all__ = ["main", "run", "run_ai"]


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
