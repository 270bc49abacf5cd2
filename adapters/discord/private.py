"""Where a player's private messages can go on Discord, and through which interaction token.

A bot cannot post an ephemeral message on its own: it needs an interaction
of that user (a press, a slash command), whose token lives 15 minutes. So
the adapter remembers each user's latest interaction in each channel (a hand
goes only where its table is: an interaction in another channel is no way
to it), the interaction waiting for a hand ("My hand" deferred with a
thinking message), every ephemeral message's freshest token that can edit
it, and each user's current hand message in each channel. Players who opted
for DMs get ordinary DM messages instead; that choice is written down in the
host's journal (adapters/discord/dm.py).
"""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

import discord

TOKEN_LIFE_S = 14 * 60  # Discord's 15 minutes, less a margin
KEEP = 20_000  # remembered messages and tokens; older ones are forgotten (their tokens are dead anyway)

K = TypeVar("K")
V = TypeVar("V")


class Recent(OrderedDict[K, V], Generic[K, V]):
    """A dict that forgets its oldest entries beyond `limit`, so a long-running bot stays small."""

    def __init__(self, limit: int = KEEP) -> None:
        super().__init__()
        self.limit = limit

    def __setitem__(self, key: K, value: V) -> None:
        super().__setitem__(key, value)
        self.move_to_end(key)
        while len(self) > self.limit:
            self.popitem(last=False)


@dataclass
class Ticket:
    """An interaction token we may still use, and how it reaches a given message."""

    interaction: discord.Interaction[Any]
    received: float
    original: bool = True  # edit through @original; else through the message id (a follow-up)
    # One first response per interaction: the host's words and a hand may race for it.
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    # A deferred "thinking" reply still empty: Discord fills it with the next follow-up.
    thinking: bool = False


Place = tuple[int, int]  # (user id, channel id)


def place_of(interaction: discord.Interaction[Any]) -> Place:
    return interaction.user.id, int(interaction.channel_id or 0)


class PrivateRoutes:
    """Per-user tokens and per-message editors for ephemeral messages (in memory: tokens die anyway)."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        """`clock`: the wall clock, as tokens are kept across processes (adapters/discord/tickets.py)."""
        self.clock = clock
        self.latest: Recent[Place, Ticket] = Recent()
        self.latest_any: Recent[int, Ticket] = Recent()
        self.hand_requests: Recent[Place, Ticket] = Recent()
        self.editors: Recent[int, Ticket] = Recent()
        self.alias: Recent[str, str] = Recent()
        self.current: Recent[Place, str] = Recent()  # each user's hand message in each channel
        self.owner: Recent[int, int] = Recent()  # private message id -> the one user it was shown to

    def live(self, ticket: Ticket | None) -> bool:
        return ticket is not None and self.clock() - ticket.received < TOKEN_LIFE_S

    def saw(self, interaction: discord.Interaction[Any]) -> Ticket:
        """Records a user's newest interaction (any kind but autocomplete)."""
        ticket = Ticket(interaction, self.clock())
        self.latest[place_of(interaction)] = ticket
        self.latest_any[interaction.user.id] = ticket
        return ticket

    def fresh(self, user_id: int, channel_id: int | None) -> Ticket | None:
        """A live token of this user's in that channel (None: in any channel, for what concerns no table)."""
        ticket = self.latest_any.get(user_id) if channel_id is None else self.latest.get((user_id, channel_id))
        return ticket if self.live(ticket) else None

    def take_hand_request(self, user_id: int, channel_id: int | None) -> Ticket | None:
        if channel_id is None:
            found = [place for place in self.hand_requests if place[0] == user_id]
            if not found:
                return None
            ticket = self.hand_requests.pop(found[-1], None)
        else:
            ticket = self.hand_requests.pop((user_id, channel_id), None)
        return ticket if self.live(ticket) else None

    def editor(self, message_id: int) -> Ticket | None:
        ticket = self.editors.get(message_id)
        return ticket if self.live(ticket) else None

    def asks_hand(self, user_id: int, channel_id: int | None) -> bool:
        """A "My hand" press of this user's waits for its answer (in that channel, or anywhere)."""
        if channel_id is None:
            return any(place[0] == user_id for place in self.hand_requests)
        return (user_id, channel_id) in self.hand_requests

    def resolve(self, message_id: str) -> str:
        """The id a private message has now (it may have been re-sent under a new one)."""
        seen = set()
        while message_id in self.alias and message_id not in seen:
            seen.add(message_id)
            message_id = self.alias[message_id]
        return message_id
