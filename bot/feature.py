"""How a feature plugs into the host: what it declares (`Feature`) and what it gets (`Context`).

Why. The host used to import every feature (league, tournaments, duplicate, `new`, settings, inline)
and they in turn reached into its dicts (`host.by_chat`, `host.store`, `host.tables`). Now `app/`
builds each feature with its own store port and the narrow `Context` below, and installs it
(`Host.install`): the host routes commands through the registry (`bot.commands`) and calls the
hooks of `Feature`, and never names a feature.

A feature reads tables through `TableView` (read-only; what changes a table is a message to its
actor, `TableView.submit`) and opens one through `Context.open_table`.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from bot.clock import Clock
from bot.commands import Command, Registry
from bot.platform import Incoming, User, Where
from bot.scene.types import LeagueLine
from bot.settings import TableSettings

if TYPE_CHECKING:
    from bot.table.messages import Message
    from bot.table.seats import Seats
    from bot.table.state import TableMeta
    from bot.views import InlineChoice
    from engine import Match, Rules
    from engine.views import PublicView, SeatView

JSON = str | int | float | bool | None | list["JSON"] | dict[str, "JSON"]
"""A value as the store keeps it in a chat's row or a match's meta."""


class TableView(Protocol):
    """An open table as a feature may see it: read it, and send its actor messages."""

    @property
    def id(self) -> int: ...

    @property
    def platform_name(self) -> str: ...

    @property
    def chat_id(self) -> str: ...

    @property
    def where(self) -> Where: ...

    @property
    def status(self) -> str: ...

    @property
    def closed(self) -> bool: ...

    @property
    def lang(self) -> str: ...

    @property
    def meta(self) -> TableMeta:
        """The table's meta, typed (read it; its actor is its only writer)."""
        ...

    @property
    def rules(self) -> Mapping[str, object]: ...

    @property
    def seats(self) -> Seats: ...

    @property
    def match(self) -> Match | None: ...

    def seat_of(self, user_id: str) -> int | None: ...

    def seat_lang(self, s: int) -> str: ...

    def seat_view(self, s: int) -> SeatView: ...

    def public(self) -> PublicView: ...

    def submit(self, message: Message) -> None: ...

    async def say(self, text: str) -> None: ...


class Tables(Protocol):
    """The open tables, read-only."""

    def get(self, match_id: int) -> TableView | None: ...

    def in_chat(self, platform: str, chat_id: str) -> TableView | None: ...

    def seated(self, platform: str, user_id: str) -> list[TableView]:
        """The open tables of this platform where the person holds a seat."""
        ...

    def all(self) -> list[TableView]: ...


@dataclass(frozen=True, slots=True)
class NewTable:
    """A table to open in a chat, in its lobby: rules, seats and meta as the store keeps them.

    `lobby`: seconds until an unstarted lobby closes (0: never); `exclusive`: refuse (ChatHasTable)
    when the chat has an open match, even one another worker opened at the same instant."""

    where: Where
    rules: dict[str, object]
    seats: list[dict[str, object]]
    seed: int
    meta: dict[str, object]
    lobby: float = 0.0
    exclusive: bool = False
    extra: dict[str, str] = field(default_factory=dict)


class Chats(Protocol):
    """The chats' settings rows and the people's languages."""

    async def load(self, platform: str, chat_id: str) -> dict[str, JSON]:
        """The chat's settings (the host's copy: change it, then `save`)."""
        ...

    async def save(self, platform: str, chat_id: str, data: dict[str, JSON]) -> None: ...

    def lang(self, platform: str, chat_id: str) -> str: ...

    def user_lang(self, user: User) -> str | None: ...

    async def set_user_lang(self, user: User, lang: str | None) -> None:
        """Remembers a person (and their own language, when given) in the store."""
        ...

    def lock(self, platform: str, chat_id: str) -> asyncio.Lock:
        """Held while a table is being opened in this chat."""
        ...


class Context(Protocol):
    """What a feature gets of the host: tables to read and open, answers, chats, clock and rng."""

    @property
    def tables(self) -> Tables: ...

    @property
    def chats(self) -> Chats: ...

    @property
    def clock(self) -> Clock: ...

    @property
    def rng(self) -> random.Random: ...

    @property
    def defaults(self) -> TableSettings:
        """The timers whoever runs the bot set (`Host.defaults`)."""
        ...

    @property
    def commands(self) -> Registry:
        """Every command (help is written from it)."""
        ...

    async def open_table(self, new: NewTable) -> TableView:
        """Stores a new match and starts its actor.

        :raises persistence.errors.ChatHasTable: `new.exclusive` and the chat has an open match.
        """
        ...

    async def answer(self, event: Incoming, text: str) -> None:
        """A short answer to this event only (a notice, else a message where it came from)."""
        ...

    async def post(self, event: Incoming, text: str, files: Sequence[tuple[str, bytes]] = ()) -> None:
        """A longer reply where the event came from (its own public answer where the platform ties
        one to it, `bot.platform.Poster`), then its files where the platform sends files."""
        ...

    async def say(self, where: Where, text: str, files: Sequence[tuple[str, bytes]] = ()) -> bool:
        """A message (and files, where the platform sends them) in a chat; False if it did not go out."""
        ...

    def one_screen(self, where: Where) -> bool:
        """A terminal: the group's screen is also the one person's own."""
        ...

    async def language_chosen(self, where: Where, lang: str) -> None:
        """A chat chose its language: its platform may follow (Telegram's "/" menu in that language)."""
        ...

    def in_group(self, where: Where) -> bool:
        """A group chat, or a terminal (which is one)."""
        ...

    def platforms(self) -> frozenset[str]:
        """The platforms served here."""
        ...

    def presets(self) -> tuple[str, ...]: ...

    def preset(self, name: str, **overrides: str) -> Rules:
        """The rules of a preset with these options (raises ValueError for a bad one)."""
        ...


class Feature:
    """A plug-in: its commands, and what it does when the host starts, a table ends or deals.

    Every hook has a default that does nothing; a feature overrides what it needs."""

    name = "feature"

    def commands(self) -> Sequence[Command]:
        return ()

    async def resuming(self, tables: Sequence[TableView]) -> None:
        """The host starts (all of its tables, not some taken over from another worker): the
        unfinished tables are loaded and do not move yet."""

    async def resumed(self) -> None:
        """The host started: the resumed tables run."""

    async def stopping(self) -> None:
        """The host stops: end what this feature runs in the background."""

    async def match_ended(self, table: TableView, result: Mapping[str, object]) -> bool:
        """A table finished or was abandoned. True: this feature took it (the others are not told)."""
        return False

    async def match_counted(self, table: TableView, result: Mapping[str, object]) -> LeagueLine | None:
        """A table's match was played to its end and its result is about to be shown: the league
        records it now (its `match_ended` then finds it recorded) and gives its line, else None."""
        return None

    async def heard(self, user: User, where: Where) -> None:
        """Someone is in this group chat: the host heard from them there (a command, a press, a move)
        or they looked on at its web table. Called for every such update: keep it cheap."""

    async def before_deal(self, table: TableView) -> str | None:
        """A lobby is about to deal: why it may not (in the table's language), else None."""
        return None

    async def waiting_chats(self) -> set[tuple[str, str]]:
        """The chats where this feature would open a table next (several workers: see bot.move_on)."""
        return set()

    async def move_on(self, idle: set[tuple[str, str]]) -> list[str]:
        """Open the next table in these chats, which nobody is moving on; what moved ("tournament 3")."""
        return []

    async def inline_choices(self, user: User, where: Where, query: str) -> list[InlineChoice] | None:
        """Inline mode: the choices this feature offers `user` (None: not this feature's to answer)."""
        return None

    def inline_reason(self, user: User, where: Where) -> str | None:
        """Why `user` has nothing to choose in inline mode (None: not this feature's to say)."""
        return None
