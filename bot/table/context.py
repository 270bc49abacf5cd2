"""What a table needs from its host, and what the table's own modules see of it: the narrow
interfaces between them.

`bot.host.Host` implements `TableHost`; a table never reaches into the host's other members, and
the host never writes a table's state (it sends messages, see `bot.table.messages`).

`TableCore` is the table as the modules that draw it and think for its AI seats see it (`render`,
`notices`, `ai_moves`) and as its host sees it: its plain state and plumbing, without the screen,
the AI seats or the moves. `bot.table.ops.TableOps` adds those for the modules that act on a table.
Both are protocols that `bot.table.actor.Table` meets, so no module of the table imports the actor
(the import-cycle test in tests/app counts imports under TYPE_CHECKING too).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from bot.clock import Clock
from bot.live import LiveHub
from bot.platform import Incoming, Platform, User, Where
from bot.scene.types import LeagueLine

if TYPE_CHECKING:
    from bot.settings import TableSettings
    from bot.table.messages import Message
    from bot.table.seats import Seats
    from bot.table.state import TableMeta
    from bot.table.timers import Timers
    from engine import Match
    from engine.views import PublicView, SeatView


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

    def forget(self, table: TableCore) -> None: ...

    def lost(self, table: TableCore, message: Message | None) -> None: ...

    def not_taken(self, event: Incoming) -> None: ...

    async def match_ended(self, table: TableCore, result: dict[str, Any]) -> None: ...

    async def match_counted(self, table: TableCore, result: dict[str, Any]) -> LeagueLine | None: ...

    async def board_start(self, table: TableCore) -> str | None: ...


class TableCore(Protocol):
    """A table's state and plumbing, as its drawing side, its AI seats and its host see it."""

    host: TableHost
    id: int
    platform_name: str
    chat_id: str
    rules: dict[str, Any]
    seed: int
    meta: TableMeta
    status: str
    settings: TableSettings
    match: Match | None
    closed: bool
    seats: Seats
    league_line: LeagueLine | None  # the league's line once its match counted there
    timers: Timers

    @property
    def game(self) -> Match: ...

    @property
    def where(self) -> Where: ...

    @property
    def platform(self) -> Platform: ...

    @property
    def lang(self) -> str: ...

    @property
    def preset_name(self) -> str: ...

    def submit(self, message: Message) -> None: ...

    def abandon(self) -> None: ...

    def seat_of(self, user_id: str) -> int | None: ...

    def seat_lang(self, s: int) -> str: ...

    def lang_for(self, ev: Incoming) -> str: ...

    def private_where(self, s: int) -> Where: ...

    async def save_seats(self) -> None: ...

    async def save_meta(self) -> None: ...

    def public(self) -> PublicView: ...

    def seat_view(self, s: int) -> SeatView: ...

    def running(self) -> bool: ...

    async def answer(self, ev: Incoming, text: str) -> None: ...

    async def say(self, text: str, answering: Incoming | None = None) -> None: ...
