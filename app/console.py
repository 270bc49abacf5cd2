"""The terminal table's wiring: a store, a host with the console platform, and the session on top."""

from __future__ import annotations

import random
from typing import TextIO

from adapters.console.app import CONSOLE_SETTINGS, YOU, run_console
from adapters.console.platform import ConsolePlatform
from bot.host import Host
from bot.settings import TableSettings
from persistence.store import Store


async def play_console(store: Store, *, resume: bool, inp: TextIO, out: TextIO, lang: str | None = None,
                       preset: str = "classic", options: list[str] | None = None,
                       settings: TableSettings = CONSOLE_SETTINGS, seed: int | None = None) -> int:
    """Builds the console host on `store` (which the caller opened and closes) and plays until the end."""
    platform = ConsolePlatform(out, YOU)
    host = Host(store, defaults=settings, rng=random.Random(seed) if seed is not None else None)
    host.register(platform)
    return await run_console(host, platform, resume=resume, inp=inp, out=out, lang=lang, preset=preset,
                             options=options)
