"""What a table needs from its host, and nothing more: the narrow interface between them.

`bot.host.Host` implements it; a table never reaches into the host's other members, and
the host never writes a table's state (it sends messages, see `bot.table.messages`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from bot.clock import Clock
from bot.live import LiveHub
from bot.platform import Incoming, Platform, User

if TYPE_CHECKING:
    from bot.table.actor import Table
    from bot.table.messages import Message


@dataclass(frozen=True, slots=True)
class AiPolicy:
    """How the host lets AI seats think.

    `threads` False: every AI seat plays the engine's `auto_action` (tests, simulations).
    `inline_levels`: levels quick enough to be asked on the event loop instead of a worker thread.
    """

    threads: bool
    inline_levels: frozenset[str]


class TableHost(Protocol):
    """The host as a table sees it."""

    store: Any  # persistence.store.Store (or the in-memory store)
    clock: Clock
    live: LiveHub

    @property
    def ai_policy(self) -> AiPolicy: ...

    def platform(self, name: str) -> Platform: ...

    def chat_lang(self, platform: str, chat_id: str) -> str: ...

    def user_lang(self, user: User) -> str | None: ...

    def page_size(self, platform: str) -> int: ...

    def refresh_interval(self) -> float: ...

    def move_slot(self) -> AbstractAsyncContextManager[Any]: ...

    def run_ai(self, job: Callable[[], Any]) -> asyncio.Future[Any]: ...

    async def answer(self, event: Incoming, text: str) -> None: ...

    def forget(self, table: Table) -> None: ...

    def lost(self, table: Table, message: Message | None) -> None: ...

    def forget_key(self, key: str) -> None: ...

    async def match_ended(self, table: Table, result: dict[str, Any]) -> None: ...

    async def board_start(self, table: Table) -> str | None: ...
