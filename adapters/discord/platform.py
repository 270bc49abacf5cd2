"""The host's `Platform` on Discord: table messages in the channel, hands as ephemeral messages.

Message ids handed to the host encode where a message lives:
"123" a channel message (the channel is `Where.chat_id`), "e123" an ephemeral
message (reachable only through an interaction token), "d45:123" a DM,
"p7" a private view that could not be shown yet (the user has no live
interaction in the table's channel: they see their hand when they press
"My hand", or any button of an older hand message).

A user has one hand message per channel: a new one (My hand) removes the
older one when a live token can, and a press on an older hand message makes
that one the hand again, drawn fresh in place. A refusal shown under a hand
stays there until the hand's text changes, whatever redraws follow.

It runs past 400 lines because it is the one class that implements the host's `Platform` port on
Discord (every send, edit and removal, each with Discord's refusals); the parts with their own
state live beside it: DMs (dm), mentions (pings), edit coalescing (outbox), ephemeral routes (private).
"""

from __future__ import annotations

import asyncio
import io
import itertools
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any, cast

import discord

from adapters.discord.components import render
from adapters.discord.dm import DmChoices
from adapters.discord.outbox import Coalescer, InOrder
from adapters.discord.pings import PING_GAP, Pinger
from adapters.discord.private import PrivateRoutes, Recent, Ticket, place_of
from adapters.discord.texts import text
from adapters.discord.tickets import TicketJournal
from bot.i18n import normalize_lang
from bot.platform import PlatformError, View, Where
from bot.scene.diff import Shown, Signature, signature

log = logging.getLogger(__name__)

NAME = "discord"


class DiscordPlatform:
    """Implements `bot.platform.Platform` with discord.py; `hand_page_size` tells the host to page less."""

    name = NAME
    turn_notices = False
    hand_page_size = 50  # 2 select menus of 25: a 33-card bury fits without paging
    one_screen = False
    sends_files = True
    play_menu = True  # a select of the legal plays: choosing one plays it
    live_countdown = True  # <t:…:R> on the table, and a mention for whose turn it is

    def __init__(self, client: discord.Client, *, edit_interval: float = 0.5, ping_gap: float = PING_GAP,
                 routes: PrivateRoutes | None = None, dm: DmChoices | None = None) -> None:
        self.client = client
        self.routes = routes or PrivateRoutes()
        self.dm = dm or DmChoices()
        self.tickets = TicketJournal(self.routes)  # tokens kept across a restart (the runner gives it the journal)
        self.tickets.client = client
        self.outbox = Coalescer(interval=edit_interval)
        # a channel's announcements (no button): said in order, the table not waiting for the channel
        self.said = InOrder()
        self._said = itertools.count(1)
        self.pings = Pinger(client, gap=ping_gap)
        self.shown = Shown()  # what each message shows (the host's view, and the refusal noted under it)
        self._views: Recent[str, View] = Recent()
        self._sigs: Recent[str, Signature] = Recent()  # what the host asked each message to show
        self._notes: Recent[str, tuple[str, str]] = Recent()  # key -> (note, the view text it was about)
        self.unshown = 0  # private views kept back for want of a live interaction
        self.ready = asyncio.Event()  # set once logged in: the host may speak before (resuming tables)
        self.ready_timeout = 120.0

    # ----- the Platform protocol -----

    async def _until_ready(self) -> None:
        if self.ready.is_set():
            return
        try:
            await asyncio.wait_for(self.ready.wait(), self.ready_timeout)
        except TimeoutError as exc:
            raise PlatformError("discord is not connected") from exc

    async def send(self, where: Where, view: View) -> str:
        """Posts a channel message, or shows a private view to one user (see the module doc)."""
        await self._until_ready()
        if where.private:
            return await self._send_private(int(where.chat_id), view, _channel(where))
        sig = signature(view)
        view = self._turn(where, view)
        content, ui = render(view)
        if view.said and not ui.children:
            # an announcement: it may wait for the channel's rate limit, the table need not (a turn's
            # hands are drawn meanwhile); its id is "a<n>" until it is out
            key = f"a{next(self._said)}"
            self.said.submit(where.chat_id, lambda: self._announce(where, key, content, sig))
            return key
        try:
            message = await self.client.get_partial_messageable(int(where.chat_id)).send(content, view=ui)
        except discord.HTTPException as exc:
            raise PlatformError(f"discord send to {where.chat_id}: {exc}") from exc
        key = str(message.id)
        self.shown.put(where.chat_id, key, sig)
        return key

    def _once_said(self, where: Where, key: str, then: Callable[[str], Awaitable[None]]) -> None:
        """`then` with the id of announcement `key` once it is out (never, if it could not go out)."""
        async def later() -> None:
            sent = self.routes.resolve(key)
            if not sent.startswith("a"):
                await then(sent)
        self.said.submit(where.chat_id, later)

    async def _announce(self, where: Where, key: str, content: str, sig: Signature) -> None:
        try:
            message = await self.client.get_partial_messageable(int(where.chat_id)).send(content)
        except discord.HTTPException as exc:
            log.warning("discord: announcement in %s not delivered: %s", where.chat_id, exc)
            return
        self.routes.alias[key] = str(message.id)
        self.shown.put(where.chat_id, str(message.id), sig)

    async def edit(self, where: Where, message_id: str, view: View) -> None:
        """Queues an edit; edits of one message in quick succession are coalesced into the latest."""
        key = self.routes.resolve(message_id)
        if key.startswith("p"):
            return
        if key.startswith("a"):  # an announcement not out yet: edited once it is
            self._once_said(where, key, lambda sent: self.edit(where, sent, view))
            return
        sig = signature(view)  # what the host asked for (the countdown Discord adds is no change)
        if not where.private:
            view = self._turn(where, view)
        self._views[key] = view
        self._sigs[key] = sig
        self.outbox.submit(key, lambda: self._deliver(where, key, view, ""))

    def _turn(self, where: Where, view: View) -> View:
        """A table message: a live countdown for the person to act, and a mention for them."""
        cue = view.cue
        if cue is None:
            return view
        self.pings.turn(int(where.chat_id), cue.user_ids, cue.version, cue.seconds, cue.lang)
        if cue.seconds is None:
            return view
        return replace(view, text=f"{view.text}\n⏰ <t:{int(time.time() + cue.seconds)}:R>")

    async def delete(self, where: Where, message_id: str) -> None:
        key = self.routes.resolve(message_id) if where.private or message_id.startswith("a") else message_id
        if key.startswith("a"):  # an announcement not out yet: removed once it is
            self._once_said(where, key, lambda sent: self.delete(where, sent))
            return
        await self._until_ready()
        try:
            if key.startswith("e"):
                ticket = self.routes.editor(int(key[1:]))
                if ticket is not None:
                    await self._ticket_delete(ticket, int(key[1:]))
            elif key.startswith("d"):
                channel, mid = key[1:].split(":")
                await self.client.get_partial_messageable(int(channel)).get_partial_message(int(mid)).delete()
            elif not key.startswith(("p", "a")):
                await self.client.get_partial_messageable(int(where.chat_id)).get_partial_message(int(key)).delete()
        except discord.HTTPException as exc:
            log.info("discord: delete %s failed: %s", key, exc)

    def join_link(self, payload: str) -> str | None:
        """Discord needs no link to reach a player: hands are ephemeral replies."""
        return None

    def how_to_fix(self) -> str:
        """Nothing to fix: a hand is an ephemeral reply to the player's own button press."""
        return ""

    async def send_file(self, where: Where, filename: str, data: bytes, caption: str = "") -> str:
        """Posts a file (a standings image, a CSV export) with a caption."""
        file = discord.File(io.BytesIO(data), filename=filename)
        await self._until_ready()
        try:
            if not where.private:
                message = await self.client.get_partial_messageable(int(where.chat_id)).send(caption[:2000], file=file)
                return str(message.id)
            ticket = self.routes.fresh(int(where.chat_id), _channel(where))
            if ticket is None:
                self.unshown += 1
                return f"p{where.chat_id}"
            async with ticket.lock:
                if not ticket.interaction.response.is_done():
                    await ticket.interaction.response.defer(ephemeral=True, thinking=True)
                    ticket.thinking = True
                ticket.thinking = False  # the follow-up fills the placeholder, if there is one
                sent = await ticket.interaction.followup.send(caption[:2000], file=file, ephemeral=True,
                                                              wait=True)
            return f"e{sent.id}"
        except discord.HTTPException as exc:
            raise PlatformError(f"discord file to {where.chat_id}: {exc}") from exc

    # ----- private messages -----

    async def _send_private(self, user_id: int, view: View, channel: int | None) -> str:
        content, ui = render(view)
        if await self.dm.wants_dm(user_id, now=self.routes.asks_hand(user_id, channel)):
            try:
                dm = await self.client.create_dm(discord.Object(user_id))
                message = await dm.send(content, view=ui)
                key = f"d{dm.id}:{message.id}"
                self._remember(str(user_id), key, view)
                await self._point_to_dm(user_id, channel)
                return key
            except discord.HTTPException as exc:
                log.info("discord: DM to %s failed (%s); using an ephemeral message", user_id, exc)
        shown = await self._show_ephemeral(user_id, channel, content, ui)
        if shown is None:
            self.unshown += 1
            if channel is not None and (user_id, channel) not in self.routes.current:
                # no hand message of theirs to press on: told in the channel, by name, to press My hand
                self.pings.unreached(channel, user_id, self._lang_of(user_id))
            return f"p{user_id}"
        self._remember(str(user_id), shown, view)
        self.routes.owner[int(shown[1:])] = user_id
        if channel is not None:  # a table's private view is that person's hand there
            self.pings.reached(channel, user_id)
            await self._becomes_the_hand(user_id, channel, shown)
            await self.tickets.keep(user_id, channel)
        return shown

    async def _show_ephemeral(self, user_id: int, channel: int | None, content: str,
                              ui: discord.ui.View) -> str | None:
        """Shows a private view through the user's interaction in that channel: the "My hand" reply
        waiting for it, else the first response of their latest interaction if it has none yet (a
        command's), else a follow-up of it. None when no live token of theirs is there."""
        request = self.routes.take_hand_request(user_id, channel)
        if request is not None:
            try:
                message = await request.interaction.edit_original_response(content=content, view=ui)
            except discord.HTTPException as exc:
                log.info("discord: filling the hand request of %s failed: %s", user_id, exc)
            else:
                self.routes.editors[message.id] = Ticket(request.interaction, request.received, original=True)
                return f"e{message.id}"
        await self.tickets.restore(channel)  # after a restart: the tokens the process before kept
        ticket = self.routes.fresh(user_id, channel)
        if ticket is None:
            return None
        i = ticket.interaction
        try:
            async with ticket.lock:
                if not i.response.is_done():
                    # a command not answered yet: the view is its answer (a follow-up would be refused)
                    answer = await i.response.send_message(content, view=ui, ephemeral=True)
                    resource = answer.resource
                    mid = resource.id if isinstance(resource, discord.Message) else (await i.original_response()).id
                    self.routes.editors[mid] = Ticket(i, ticket.received, original=True)
                    return f"e{mid}"
                filling = ticket.thinking  # Discord fills the empty "thinking" reply with this follow-up
                ticket.thinking = False
                sent = await i.followup.send(content, view=ui, ephemeral=True, wait=True)
        except discord.HTTPException as exc:
            log.info("discord: ephemeral message to %s failed: %s", user_id, exc)
            return None
        self.routes.editors[sent.id] = Ticket(i, ticket.received, original=filling)
        return f"e{sent.id}"

    async def _becomes_the_hand(self, user_id: int, channel: int, key: str) -> None:
        """`key` is now this user's hand in this channel: the one before goes, when a live token can."""
        old = self.routes.current.get((user_id, channel))
        self.routes.current[(user_id, channel)] = key
        if old is None or self.routes.resolve(old) == key:
            return
        await self._retire(self.routes.resolve(old))

    async def _retire(self, key: str) -> None:
        if not key.startswith("e"):
            return
        ticket = self.routes.editor(int(key[1:]))
        if ticket is None:
            return  # its token died: it stays, and a press on it is answered with the current hand
        self.routes.editors.pop(int(key[1:]), None)
        try:
            await self._ticket_delete(ticket, int(key[1:]))
        except discord.HTTPException as exc:
            log.info("discord: removing an older hand message failed: %s", exc)

    def _lang_of(self, user_id: int) -> str:
        ticket = self.routes.latest_any.get(user_id)
        if ticket is None:
            return "en"
        return normalize_lang(str(ticket.interaction.locale.value)) or "en"

    def adopt(self, interaction: discord.Interaction[Any]) -> None:
        """A press on an ephemeral hand message: that message is the user's hand from now on, drawn
        fresh there (a hand drawn elsewhere since, or never shown for want of a token, comes to it)."""
        message = interaction.message
        if message is None or not message.components:
            return
        if self.routes.owner.get(message.id, interaction.user.id) != interaction.user.id:
            return  # not theirs (Discord shows an ephemeral message to one person only)
        place = place_of(interaction)
        key = f"e{message.id}"
        old = self.routes.current.get(place)
        self.routes.current[place] = key
        if old is None:
            return
        current = self.routes.resolve(old)
        if current == key:
            return
        self.routes.alias[old] = key
        if current != old:
            self.routes.alias[current] = key
        view = self._views.get(current)
        if view is not None:
            self._views[key] = view
            self._sigs[key] = self._sigs.get(current) or signature(view)
            self.shown.forget(str(interaction.user.id), key)
            where = Where(NAME, str(interaction.user.id), private=True, about=str(place[1]))
            self.outbox.submit(key, lambda: self._deliver(where, key, view, ""))
        if current.startswith("e"):
            self.outbox.submit(f"retire{current}", lambda: self._retire(current))

    def let_go(self, chat_id: str, user_ids: list[str]) -> None:
        """The table of this channel moved to another worker (bot.cluster): the hand messages known
        here are no longer ours to redraw (`adopt` would put an old hand back in a newer message)."""
        for user_id in user_ids:
            if user_id.isdigit() and chat_id.isdigit():
                self.routes.current.pop((int(user_id), int(chat_id)), None)
                self.routes.hand_requests.pop((int(user_id), int(chat_id)), None)

    def take_handoff(self, handoff: dict[str, Any]) -> None:
        """An interaction another worker received and answered at once (deferred), for a table this
        worker drives: known here as if received here, so that the hand it asks for, or the hand
        message it was pressed on, is shown and edited through its token (`Reply.handoff`)."""
        raw, mode = handoff.get("raw"), handoff.get("mode")
        if not isinstance(raw, dict):
            return
        interaction: discord.Interaction[Any] = discord.Interaction(data=cast(Any, raw), state=self.client._connection)
        # answered by the receiving worker already: from here only edits and follow-ups
        interaction.response._response_type = (  # no public way to say so
            discord.InteractionResponseType.deferred_channel_message if mode in ("hand", "command")
            else discord.InteractionResponseType.deferred_message_update)
        ticket = self.routes.saw(interaction)
        if mode == "hand":
            self.routes.hand_requests[place_of(interaction)] = ticket
        elif mode == "private" and interaction.message is not None and interaction.message.flags.ephemeral:
            self.routes.editors[interaction.message.id] = ticket
            self.adopt(interaction)

    async def _point_to_dm(self, user_id: int, channel: int | None) -> None:
        """A "My hand" press waiting for an answer is told where the hand went."""
        request = self.routes.take_hand_request(user_id, channel)
        if request is None:
            return
        lang = normalize_lang(str(request.interaction.locale.value)) or "en"
        try:
            await request.interaction.edit_original_response(content=text(lang, "dm_sent"))
        except discord.HTTPException as exc:
            log.info("discord: pointing %s to the DM failed: %s", user_id, exc)

    def _remember(self, chat_id: str, key: str, view: View) -> None:
        self._views[key] = view
        self._sigs[key] = signature(view)
        self.shown.put(chat_id, key, self._sigs[key])

    def note(self, where: Where, message_id: str, text: str) -> bool:
        """Shows `text` under the last view of a message (a refusal in the hand it concerns).

        False when that view is unknown here (drawn by an earlier process).
        """
        key = self.routes.resolve(message_id)
        view = self._views.get(key)
        if view is None:
            return False
        self._notes[key] = (text, view.text)
        self.outbox.submit(key, lambda: self._deliver(where, key, view, text))
        return True

    def _note_for(self, key: str, view: View) -> str:
        """The refusal shown under this message, while the hand it was about is unchanged."""
        noted = self._notes.get(key)
        if noted is None:
            return ""
        if noted[1] != view.text:
            del self._notes[key]
            return ""
        return noted[0]

    async def _deliver(self, where: Where, key: str, view: View, note: str) -> None:
        await self._until_ready()
        note = note or self._note_for(key, view)
        host_sig = self._sigs.get(key) or signature(view)
        sig = (*host_sig, note) if note else host_sig  # a refusal shown under it is part of what it shows
        if self.shown.get(where.chat_id, key) == sig:
            return
        content, ui = render(view, note=note)
        if key.startswith("e"):
            mid = int(key[1:])
            ticket = self.routes.editor(mid)
            if ticket is None and where.private:
                await self.tickets.restore(_channel(where))  # drawn by the process before a restart
                ticket = self.routes.editor(mid)
            if ticket is None:
                await self._resend(where, key, view)
                return
            try:
                await self._ticket_edit(ticket, mid, content, ui)
            except discord.HTTPException as exc:
                if not _token_gone(exc):
                    raise
                # the token died (15 minutes, 401 50027) or the message is gone: show it anew if we can
                self.routes.editors.pop(mid, None)
                await self._resend(where, key, view)
                return
        elif key.startswith("d"):
            channel, mid_text = key[1:].split(":")
            partial = self.client.get_partial_messageable(int(channel)).get_partial_message(int(mid_text))
            await partial.edit(content=content, view=ui)
        else:
            target = self.client.get_partial_messageable(int(where.chat_id))
            try:
                await target.get_partial_message(int(key)).edit(content=content, view=ui)
            except discord.NotFound:
                # someone deleted the table message: post it again and send later edits there
                message = await target.send(content, view=ui)
                self.routes.alias[key] = str(message.id)
                self.shown.put(where.chat_id, str(message.id), sig)
                return
        self.shown.put(where.chat_id, key, sig)

    async def _resend(self, where: Where, key: str, view: View) -> None:
        """The token that could edit this ephemeral message is gone: show the view anew, if we can."""
        new_key = await self._send_private(int(where.chat_id), view, _channel(where))
        if not new_key.startswith("p"):
            self.routes.alias[key] = new_key

    @staticmethod
    async def _ticket_edit(ticket: Ticket, message_id: int, content: str, ui: discord.ui.View) -> None:
        if ticket.original:
            await ticket.interaction.edit_original_response(content=content, view=ui)
        else:
            await ticket.interaction.followup.edit_message(message_id, content=content, view=ui)

    @staticmethod
    async def _ticket_delete(ticket: Ticket, message_id: int) -> None:
        if ticket.original:
            await ticket.interaction.delete_original_response()
        else:
            await ticket.interaction.followup.delete_message(message_id)

    async def flush(self, *, private_only: bool = False) -> None:
        """Waits for queued edits (tests, and a clean shutdown); `private_only`: hands, not channel messages."""
        await self.outbox.flush((lambda key: key[:1] in ("e", "d", "p")) if private_only else None)
        if not private_only:
            await self.said.flush()
            await self.pings.flush()

    def stats(self) -> dict[str, Any]:
        return {"edits_sent": self.outbox.sent, "edits_coalesced": self.outbox.coalesced, "unshown": self.unshown,
                "mentions": self.pings.sent}


def _channel(where: Where) -> int | None:
    """The channel a private view is about (its table's), None when it concerns no table."""
    try:
        return int(where.about) if where.about else None
    except ValueError:
        return None


def _token_gone(exc: discord.HTTPException) -> bool:
    """Discord's answers for a dead interaction token or a message that is no more."""
    return exc.status in (401, 404) or exc.code in (50027, 10008, 10015, 10062)
