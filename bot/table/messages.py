"""What a table's actor is sent: one frozen value type per kind of message.

Everything that changes a table reaches it as one of these through `Table.submit`,
so the actor (`bot.table.actor`) is the only code that writes a table's state.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.intents.types import Intent
from bot.live import Watch, Watcher
from bot.platform import Incoming
from engine.actions import Action


@dataclass(frozen=True, slots=True)
class Event:
    """A person's update for this table: a command, or the intent it stands for, bound to the version
    it was drawn for (a typed move: the version when it reached the host)."""

    event: Incoming
    intent: Intent | None = None


@dataclass(frozen=True, slots=True)
class Tick:
    """A timer of the table came due (see `bot.table.timers`)."""

    kind: str


@dataclass(frozen=True, slots=True)
class AiAnswer:
    """An AI's move from a worker thread; seat -1 is the declarations asked while dealing."""

    seat: int
    version: int
    action: Action | None


@dataclass(frozen=True, slots=True)
class Redraw:
    """Draw the table again (a message could not go out, or lagged too long)."""


@dataclass(frozen=True, slots=True)
class ChatLanguage:
    """The group chose another language: everything is drawn anew in it."""


@dataclass(frozen=True, slots=True)
class SeatLanguage:
    """A seated person chose their own language (`lang` in private): their hand is drawn in it."""

    user_id: str
    lang: str


@dataclass(frozen=True, slots=True)
class Resume:
    """The host loaded this table after a restart: every message is drawn again."""


@dataclass(frozen=True, slots=True)
class WatchLive:
    """A front end of its own (the web table) watches this table from now on (`bot.live`)."""

    watch: Watch


@dataclass(frozen=True, slots=True)
class UnwatchLive:
    """That watcher went away (its connection closed)."""

    fn: Watcher


@dataclass(frozen=True, slots=True)
class SeenLive:
    """That watcher's page was hidden (another tab, the phone asleep) or shown again."""

    fn: Watcher
    hidden: bool


@dataclass(frozen=True, slots=True)
class WebSeats:
    """The seats another worker serves web pages of, now (bot.cluster; None: it serves none any more)."""

    worker: str
    seats: frozenset[int] | None


@dataclass(frozen=True, slots=True)
class Ruling:
    """A referee's ruling from outside the table (a tournament admin): `team` forfeits the match now."""

    team: int
    why: str = "ruled"


@dataclass(frozen=True, slots=True)
class Stop:
    """The actor ends once this is taken from its queue."""


Message = (Event | Tick | AiAnswer | Redraw | ChatLanguage | SeatLanguage | Resume | WatchLive | UnwatchLive
           | SeenLive | WebSeats | Ruling | Stop)
