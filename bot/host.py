"""The host: lobby, one actor per table, timers, and what each person sees."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from bot.platform import Incoming, Platform, User, Where
from bot.views import InlineChoice


class Host:
    """Routes platform events to tables; owns no platform and no SQL."""

    def __init__(self, store: Any, *, ai_threads: int = 2, clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self.ai_threads = ai_threads
        self.clock = clock
        self.platforms: dict[str, Platform] = {}

    def register(self, platform: Platform) -> None:
        """Adds an adapter; events from it name it by `platform.name`."""
        self.platforms[platform.name] = platform

    async def start(self) -> None:
        """Loads and resumes unfinished matches."""

    async def stop(self) -> None:
        """Stops every table actor and timer."""

    async def handle(self, event: Incoming) -> None:
        """Every adapter feeds every parsed update here."""

    async def inline_choices(self, user: User, where: Where, query: str) -> list[InlineChoice]:
        """The legal plays of `user` at the table of `where`, for inline mode."""
        return []
