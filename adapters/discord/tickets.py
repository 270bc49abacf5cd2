"""Interaction tokens that outlive the process: a restart must not cost anyone a click.

An ephemeral hand message can only be edited through an interaction token of its owner, and a
token lives 15 minutes whichever process received it. A new process that forgot the tokens could
not redraw anyone's hand and would have to ask everyone to press *My hand*. So, per channel, the
host's journal keeps each person's latest interaction there and the one that edits their hand
message (the payloads as Discord sent them, and when they came); a new process reads a channel's
entry the first time it needs a token there, and redraws the hands in place by itself.

Writes are few: a person's entry is written when their hand message changes, else at most once a
`REFRESH_S` (a token `REFRESH_S` older than the newest is as good for 14 minutes less a minute).
Dead tokens are dropped on each write. The tokens are kept in the store only, never logged.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any, cast

import discord

from adapters.discord.dm import Journal
from adapters.discord.private import PrivateRoutes, Ticket

log = logging.getLogger(__name__)

REFRESH_S = 60.0
FORGET_S = 7 * 86400.0  # a person's entry (their hand message, without a live token) kept this long
PREFIX = "tokens:"  # the host's journal entry of a channel: "tokens:<channel id>"
# What of a payload the adapter needs again (the message a press came from is left out: large, and
# its id is kept beside it)
KEEP_FIELDS = ("id", "application_id", "type", "token", "version", "guild_id", "channel_id", "channel",
               "member", "user", "locale", "guild_locale", "app_permissions", "entitlements",
               "authorizing_integration_owners", "context", "attachment_size_limit", "data")

Raw = dict[str, Any]


def slim(raw: Raw) -> Raw:
    """The part of an interaction's payload worth keeping (see KEEP_FIELDS)."""
    out = {k: raw[k] for k in KEEP_FIELDS if k in raw}
    data = out.get("data")
    if isinstance(data, dict):  # a press's resolved values and the like: not needed to answer it
        out["data"] = {k: v for k, v in data.items() if k in ("custom_id", "component_type", "name", "type", "id")}
    return out


class TicketJournal:
    """This process's writes to, and reads from, the per-channel token journal."""

    def __init__(self, routes: PrivateRoutes, journal: Journal | None = None, platform: str = "discord") -> None:
        self.routes = routes
        self.journal = journal
        self.platform = platform
        self.client: discord.Client | None = None  # set by the platform: it rebuilds interactions
        self._read: dict[int, asyncio.Future[None]] = {}  # channels whose entry was read (or is being read)
        self._written: dict[tuple[int, int], tuple[str | None, float, float]] = {}

    def _raw(self, ticket: Ticket) -> Raw | None:
        raw = getattr(ticket.interaction.client, "raw_interactions", {}).get(ticket.interaction.id)
        return slim(raw) if isinstance(raw, dict) else None

    async def keep(self, user_id: int, channel: int) -> None:
        """Writes this person's tokens in this channel when their hand message changed, or a token
        of theirs is `REFRESH_S` newer than the one written."""
        if self.journal is None or not channel:
            return
        place = (user_id, channel)
        latest = self.routes.latest.get(place)
        hand = self.routes.current.get(place)
        hand_key = self.routes.resolve(hand) if hand else None
        editor = self.routes.editors.get(int(hand_key[1:])) if hand_key and hand_key.startswith("e") else None
        latest_at = latest.received if latest is not None else 0.0
        editor_at = editor.received if editor is not None else 0.0
        before = self._written.get(place)
        if before is not None and before[0] == hand_key and latest_at - before[1] < REFRESH_S \
                and editor_at - before[2] < REFRESH_S:
            return
        entry: Raw = {"written": self.routes.clock()}
        if latest is not None and (raw := self._raw(latest)) is not None:
            entry["latest"] = {"raw": raw, "at": latest.received}
        if hand_key is not None:
            entry["hand"] = {"message": hand_key}
            if editor is not None and (raw := self._raw(editor)) is not None:
                entry["hand"].update(raw=raw, at=editor.received, original=editor.original)
        self._written[place] = (hand_key, latest_at, editor_at)
        try:
            await self.journal.update_journal(self.platform, f"{PREFIX}{channel}", self._with(user_id, entry))
        except Exception:  # the store is failing or closing: a restart will cost this person a click
            log.warning("discord: tokens of %s not written", user_id, exc_info=True)
            self._written.pop(place, None)

    def _with(self, user_id: int, entry: Raw) -> Callable[[Raw], Raw]:
        now = self.routes.clock()

        def change(journal: Raw) -> Raw:
            people = {u: e for u, e in (journal.get("people") or {}).items() if _alive(e, now)}
            people[str(user_id)] = entry
            return {"people": people}
        return change

    async def restore(self, channel: int | None) -> None:
        """Reads this channel's tokens once (after a restart): hands drawn by the process before can
        be edited, and new ones shown, without anyone pressing anything."""
        if self.journal is None or self.client is None or not channel:
            return
        reading = self._read.get(channel)
        if reading is None:  # the first to ask reads; anyone asking meanwhile waits for that read
            reading = self._read[channel] = asyncio.ensure_future(self._restore(channel))
        await asyncio.shield(reading)

    async def _restore(self, channel: int) -> None:
        assert self.journal is not None
        try:
            found = await self.journal.load_journal(self.platform, f"{PREFIX}{channel}")
        except Exception:
            log.warning("discord: tokens of channel %s not read", channel, exc_info=True)
            return
        people = found.get("people") if isinstance(found, dict) else None
        for user, entry in (people or {}).items():
            if str(user).isdigit() and isinstance(entry, dict):
                self._adopt(int(user), channel, entry)

    def _adopt(self, user_id: int, channel: int, entry: Raw) -> None:
        place = (user_id, channel)
        latest = entry.get("latest")
        if isinstance(latest, dict) and place not in self.routes.latest:
            ticket = self._ticket(latest)
            if ticket is not None and self.routes.live(ticket):
                self.routes.latest[place] = ticket
        hand = entry.get("hand")
        if not isinstance(hand, dict) or not str(hand.get("message", "")).startswith("e"):
            return
        key = str(hand["message"])
        mid = int(key[1:]) if key[1:].isdigit() else None
        if mid is None:
            return
        self.routes.current.setdefault(place, key)
        self.routes.owner.setdefault(mid, user_id)
        if mid not in self.routes.editors:
            ticket = self._ticket(hand, original=bool(hand.get("original", True)))
            if ticket is not None and self.routes.live(ticket):
                self.routes.editors[mid] = ticket

    def _ticket(self, saved: Raw, *, original: bool = True) -> Ticket | None:
        raw, at = saved.get("raw"), saved.get("at")
        if not isinstance(raw, dict) or not isinstance(at, int | float) or self.client is None:
            return None
        try:
            interaction: discord.Interaction[Any] = discord.Interaction(
                data=cast(Any, raw), state=self.client._connection)
        except (KeyError, TypeError, ValueError):
            return None
        # answered by the process before: from here only edits and follow-ups (no public way to say so)
        interaction.response._response_type = discord.InteractionResponseType.deferred_message_update
        return Ticket(interaction, float(at), original=original)


def _alive(entry: object, now: float) -> bool:
    """A journal entry still worth keeping: its hand message id is, for `FORGET_S` (a press on it
    after its tokens died is answered with the hand, and nobody is told to press My hand)."""
    if not isinstance(entry, dict):
        return False
    written = entry.get("written")
    return isinstance(written, int | float) and now - written < FORGET_S
