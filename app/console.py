"""The terminal table's wiring: a store, a host with the console platform, and the session on top."""

from __future__ import annotations

import os
import random
from typing import TextIO

from adapters.console.app import YOU, console_screen, console_settings, run_console
from adapters.console.platform import ConsolePlatform
from app.features import build_host
from bot.settings import TableSettings
from persistence.store import Store


async def play_console(store: Store, *, inp: TextIO, out: TextIO, resume: bool = True, fresh: bool = False,
                       lang: str | None = None, preset: str = "classic", options: list[str] | None = None,
                       settings: TableSettings | None = None, seed: int | None = None, again: str = "make run",
                       full_screen: bool | None = None, daily: bool = False) -> int:
    """Builds the console host on `store` (which the caller opened and closes) and plays until the end.

    A terminal on both ends gets the full screen and a paced deal, anything else plain lines at
    full speed (`full_screen` decides instead when given). TRACTOR_AI_THREADS=0 keeps the AIs and
    the hints on the event loop at their quick level (a hint then costs no 0.3 s search)."""
    screen = console_screen(inp, out, full_screen)
    platform = ConsolePlatform(screen, YOU)
    host = build_host(store, defaults=settings or console_settings(screen),
                      rng=random.Random(seed) if seed is not None else None,
                      use_ai_threads=os.environ.get("TRACTOR_AI_THREADS", "") != "0")
    host.register(platform)
    return await run_console(host, platform, inp=inp, lang=lang, resume=resume, fresh=fresh, preset=preset,
                             options=options, again=again, daily=daily)
