"""Where a player's private messages can go on Discord, and through which interaction token.

A bot cannot post an ephemeral message on its own: it needs an interaction
of that user (a press, a slash command), whose token lives 15 minutes. So
the adapter remembers each user's latest interaction, the interaction
waiting for a hand ("My hand" deferred with a thinking message), and for
every ephemeral message the freshest token that can edit it. Players who
opted for DMs get ordinary DM messages instead.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import discord

TOKEN_LIFE_S = 14 * 60  # Discord's 15 minutes, less a margin


@dataclass
class Ticket:
    """An interaction token we may still use, and how it reaches a given message."""

    interaction: discord.Interaction[Any]
    received: float
    original: bool = True  # edit through @original; else through the message id (a follow-up)


class PrivateRoutes:
    """Per-user tokens and per-message editors for ephemeral messages (in memory: tokens die anyway)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.latest: dict[int, Ticket] = {}
        self.hand_requests: dict[int, Ticket] = {}
        self.editors: dict[int, Ticket] = {}
        self.alias: dict[str, str] = {}
        self.dm_users: set[int] = set()

    def live(self, ticket: Ticket | None) -> bool:
        return ticket is not None and self.clock() - ticket.received < TOKEN_LIFE_S

    def saw(self, interaction: discord.Interaction[Any]) -> Ticket:
        """Records a user's newest interaction (any kind but autocomplete)."""
        ticket = Ticket(interaction, self.clock())
        self.latest[interaction.user.id] = ticket
        return ticket

    def fresh(self, user_id: int) -> Ticket | None:
        ticket = self.latest.get(user_id)
        return ticket if self.live(ticket) else None

    def take_hand_request(self, user_id: int) -> Ticket | None:
        ticket = self.hand_requests.pop(user_id, None)
        return ticket if self.live(ticket) else None

    def editor(self, message_id: int) -> Ticket | None:
        ticket = self.editors.get(message_id)
        return ticket if self.live(ticket) else None

    def resolve(self, message_id: str) -> str:
        """The id a private message has now (it may have been re-sent under a new one)."""
        seen = set()
        while message_id in self.alias and message_id not in seen:
            seen.add(message_id)
            message_id = self.alias[message_id]
        return message_id
