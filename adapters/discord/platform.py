"""The host's `Platform` on Discord: table messages in the channel, hands as ephemeral messages.

Message ids handed to the host encode where a message lives:
"123" a channel message (the channel is `Where.chat_id`), "e123" an ephemeral
message (reachable only through an interaction token), "d45:123" a DM,
"p7" a private view that could not be shown yet (the user has no live
interaction: they see their hand when they press "My hand").
"""

from __future__ import annotations

import asyncio
import io
import logging
from typing import Any

import discord

from adapters.discord.components import render, signature
from adapters.discord.outbox import Coalescer
from adapters.discord.private import PrivateRoutes, Recent, Ticket
from adapters.discord.texts import text
from bot.i18n import normalize_lang
from bot.platform import PlatformError, View, Where

log = logging.getLogger(__name__)

NAME = "discord"


class DiscordPlatform:
    """Implements `bot.platform.Platform` with discord.py; `hand_page_size` tells the host to page less."""

    name = NAME
    hand_page_size = 50  # 2 select menus of 25: a 33-card bury fits without paging
    one_screen = False
    sends_files = True

    def __init__(self, client: discord.Client, *, edit_interval: float = 0.5,
                 routes: PrivateRoutes | None = None) -> None:
        self.client = client
        self.routes = routes or PrivateRoutes()
        self.outbox = Coalescer(interval=edit_interval)
        self._shown: Recent[str, tuple[str, str]] = Recent()
        self._views: Recent[str, View] = Recent()
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
            return await self._send_private(int(where.chat_id), view)
        content, ui = render(view)
        try:
            message = await self.client.get_partial_messageable(int(where.chat_id)).send(content, view=ui)
        except discord.HTTPException as exc:
            raise PlatformError(f"discord send to {where.chat_id}: {exc}") from exc
        key = str(message.id)
        self._shown[key] = signature(content, ui)
        return key

    async def edit(self, where: Where, message_id: str, view: View) -> None:
        """Queues an edit; edits of one message in quick succession are coalesced into the latest."""
        key = self.routes.resolve(message_id)
        if key.startswith("p"):
            return
        self._views[key] = view
        self.outbox.submit(key, lambda: self._deliver(where, key, view, ""))

    async def delete(self, where: Where, message_id: str) -> None:
        key = self.routes.resolve(message_id) if where.private else message_id
        await self._until_ready()
        try:
            if key.startswith("e"):
                ticket = self.routes.editor(int(key[1:]))
                if ticket is not None:
                    await self._ticket_delete(ticket, int(key[1:]))
            elif key.startswith("d"):
                channel, mid = key[1:].split(":")
                await self.client.get_partial_messageable(int(channel)).get_partial_message(int(mid)).delete()
            elif not key.startswith("p"):
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
            ticket = self.routes.fresh(int(where.chat_id))
            if ticket is None:
                self.unshown += 1
                return f"p{where.chat_id}"
            sent = await ticket.interaction.followup.send(caption[:2000], file=file, ephemeral=True, wait=True)
            return f"e{sent.id}"
        except discord.HTTPException as exc:
            raise PlatformError(f"discord file to {where.chat_id}: {exc}") from exc

    # ----- private messages -----

    async def _send_private(self, user_id: int, view: View) -> str:
        content, ui = render(view)
        if user_id in self.routes.dm_users:
            try:
                channel = await self.client.create_dm(discord.Object(user_id))
                message = await channel.send(content, view=ui)
                key = f"d{channel.id}:{message.id}"
                self._remember(key, view, content, ui)
                await self._point_to_dm(user_id)
                return key
            except discord.HTTPException as exc:
                log.info("discord: DM to %s failed (%s); using an ephemeral message", user_id, exc)
        request = self.routes.take_hand_request(user_id)
        if request is not None:
            try:
                message = await request.interaction.edit_original_response(content=content, view=ui)
            except discord.HTTPException as exc:
                log.info("discord: filling the hand request of %s failed: %s", user_id, exc)
            else:
                self.routes.editors[message.id] = Ticket(request.interaction, request.received, original=True)
                key = f"e{message.id}"
                self._remember(key, view, content, ui)
                return key
        ticket = self.routes.fresh(user_id)
        if ticket is None:
            self.unshown += 1
            return f"p{user_id}"
        try:
            sent = await ticket.interaction.followup.send(content, view=ui, ephemeral=True, wait=True)
        except discord.HTTPException as exc:
            log.info("discord: ephemeral follow-up to %s failed: %s", user_id, exc)
            self.unshown += 1
            return f"p{user_id}"
        self.routes.editors[sent.id] = Ticket(ticket.interaction, ticket.received, original=False)
        key = f"e{sent.id}"
        self._remember(key, view, content, ui)
        return key

    async def _point_to_dm(self, user_id: int) -> None:
        """A "My hand" press waiting for an answer is told where the hand went."""
        request = self.routes.take_hand_request(user_id)
        if request is None:
            return
        lang = normalize_lang(str(request.interaction.locale.value)) or "en"
        try:
            await request.interaction.edit_original_response(content=text(lang, "dm_sent"))
        except discord.HTTPException as exc:
            log.info("discord: pointing %s to the DM failed: %s", user_id, exc)

    def _remember(self, key: str, view: View, content: str, ui: discord.ui.View) -> None:
        self._views[key] = view
        self._shown[key] = signature(content, ui)

    def note(self, where: Where, message_id: str, text: str) -> bool:
        """Shows `text` under the last view of a message (a refusal in the hand it concerns).

        False when that view is unknown here (drawn by an earlier process).
        """
        key = self.routes.resolve(message_id)
        view = self._views.get(key)
        if view is None:
            return False
        self.outbox.submit(key, lambda: self._deliver(where, key, view, text))
        return True

    async def _deliver(self, where: Where, key: str, view: View, note: str) -> None:
        await self._until_ready()
        content, ui = render(view, note=note)
        sig = signature(content, ui)
        if self._shown.get(key) == sig:
            return
        if key.startswith("e"):
            mid = int(key[1:])
            ticket = self.routes.editor(mid)
            if ticket is None:
                await self._resend(where, key, view)
                return
            try:
                await self._ticket_edit(ticket, mid, content, ui)
            except discord.NotFound:
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
                self._shown[str(message.id)] = sig
                return
        self._shown[key] = sig

    async def _resend(self, where: Where, key: str, view: View) -> None:
        """The token that could edit this ephemeral message is gone: show the view anew, if we can."""
        new_key = await self._send_private(int(where.chat_id), view)
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

    def stats(self) -> dict[str, Any]:
        return {"edits_sent": self.outbox.sent, "edits_coalesced": self.outbox.coalesced, "unshown": self.unshown}
