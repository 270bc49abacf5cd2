"""The bot as its own process, for crash tests: `python -m fakes.bot_child DB API_ROOT TOKEN`.

It runs what `tractor-host run` runs (SQLite store, host, Telegram adapter with
the real client) against a Bot API server at API_ROOT, prints "ready" once it
listens, and runs until it is killed.
"""

from __future__ import annotations

import asyncio
import logging
import sys
import warnings

from telegram.warnings import PTBDeprecationWarning

from adapters.telegram.config import FloodLimits, TelegramConfig
from adapters.telegram.run import TelegramRunner
from app.features import build_host
from app.store import open_store
from bot.settings import TableSettings

# People act when they like (no turn timer); the declaration window is short.
CHILD_SETTINGS = TableSettings(deal=0, declare=0.3, bury=0, turn=0, next=0, lobby=0, away_after=0)
CHILD_LIMITS = FloodLimits(scale=1e-6, chat_burst=10**6, group_per_minute=10**9, group_edits_per_minute=10**9,
                           global_per_second=10**9, global_group_edits_per_second=10**9,
                           retry_base=0.05, retry_cap=0.5)


async def run(db: str, api_root: str, token: str) -> None:
    store = await open_store(db, synchronous="NORMAL")
    host = build_host(store, defaults=CHILD_SETTINGS, use_ai_threads=False)
    config = TelegramConfig(token=token, api_base_url=api_root, poll_timeout=1, limits=CHILD_LIMITS)
    runner = TelegramRunner(config, host)
    runner.inbound.typed_acks = True  # the crash harness takes each "✓" as its action's acknowledgement
    host.register(runner.platform)
    await runner.connect()
    await host.start()
    await runner.listen()
    runner.inbound.errors = Printed(runner.inbound.errors)
    print("ready", flush=True)
    await asyncio.Event().wait()  # until killed


class Printed(list[BaseException]):
    """The adapter's errors, each printed the moment it is kept: the harness reads them from this
    process's output, and one kept just before a kill must not be lost with it."""

    def __init__(self, earlier: list[BaseException]) -> None:
        super().__init__()
        for exc in earlier:
            self.append(exc)

    def append(self, exc: BaseException) -> None:
        super().append(exc)
        print(f"error {exc!r}", flush=True)


def main() -> None:
    warnings.filterwarnings("ignore", category=PTBDeprecationWarning)
    logging.basicConfig(level=logging.ERROR)
    db, api_root, token = sys.argv[1:4]
    asyncio.run(run(db, api_root, token))


if __name__ == "__main__":
    main()
