"""Interactions in, `Incoming` events out: every interaction answered or deferred within 3 seconds.

Presses are deferred before the host sees them (a silent "deferred update",
or for "My hand" an ephemeral "thinking" message that the hand then fills).
Slash commands give the host a moment to answer in words: privately (an
ephemeral reply), or for the channel as the command's own public response
(`Reply.post`); if it says nothing the placeholder is removed, and if it is
slow the command is deferred so Discord does not call it failed.

It runs past 400 lines because every kind of interaction (command, press, select, autocomplete)
meets Discord's 3 s here, each with its fallbacks; what the answers say is the host's.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Iterator
from typing import Any, Literal, Protocol

import aiohttp
import discord

from adapters.discord.components import render
from adapters.discord.platform import NAME, DiscordPlatform
from adapters.discord.private import Ticket, place_of
from adapters.discord.texts import text
from bot.i18n import normalize_lang
from bot.intents import codec
from bot.intents.types import Intent, ShowHand
from bot.platform import Incoming, User, View, Where
from bot.suggestions import Ask, Suggestion

log = logging.getLogger(__name__)

ANSWER_BUDGET_S = 2.0  # Discord allows 3 s; keep a margin for the round trip
LATE_LIMIT_S = 600.0  # a deferred reply's token lives 15 minutes
TRIVIAL = frozenset({"", "✓", "–", "-"})
Mode = Literal["command", "hand", "private", "public"]


class HostLike(Protocol):
    async def handle(self, event: Incoming) -> None: ...

    async def suggest(self, ask: Ask) -> list[Suggestion]: ...


def user_of(interaction: discord.Interaction[Any]) -> User:
    u = interaction.user
    return User(NAME, str(u.id), u.display_name[:64], language=str(interaction.locale.value))


def lang_of(interaction: discord.Interaction[Any]) -> str:
    return normalize_lang(str(interaction.locale.value)) or "en"


def is_private_message(interaction: discord.Interaction[Any]) -> bool:
    """A press on an ephemeral message or in a DM concerns that user alone."""
    message = interaction.message
    return interaction.guild_id is None or (message is not None and message.flags.ephemeral)


def message_key(interaction: discord.Interaction[Any]) -> str:
    """The id the platform gave the message a press came from."""
    message = interaction.message
    assert message is not None
    if interaction.guild_id is None:
        return f"d{message.channel.id}:{message.id}"
    return f"e{message.id}" if message.flags.ephemeral else str(message.id)


class Reply:
    """The host's `Replier` for one interaction; where a notice goes depends on what was pressed."""

    def __init__(self, inbound: Inbound, interaction: discord.Interaction[Any], mode: Mode, where: Where,
                 ticket: Ticket) -> None:
        self.inbound = inbound
        self.interaction = interaction
        self.mode = mode
        self.where = where
        self.ticket = ticket
        self.answered = asyncio.Event()
        self.notices: list[str] = []
        # the first response is sent once, by a notice, by a hand shown in answer, or by the closing
        self.lock = ticket.lock

    @property
    def thinking(self) -> bool:
        """A deferred command whose placeholder still waits for words (or for a hand)."""
        return self.ticket.thinking

    @thinking.setter
    def thinking(self, value: bool) -> None:
        self.ticket.thinking = value

    def handoff(self) -> dict[str, Any]:
        """What another worker needs to answer this interaction itself (bot.cluster forwards it to the
        worker that drives the table): its payload as Discord sent it (its token reaches Discord from
        any process) and how it was answered here. See `DiscordPlatform.take_handoff`.

        A "My hand" press's reply is the owner's to fill from now on (with the hand, or a word that
        it went by DM): the owner's answer ("✓") coming back here must not overwrite it."""
        place = place_of(self.interaction)
        if self.mode == "hand" and self.inbound.platform.routes.hand_requests.get(place) is self.ticket:
            self.inbound.platform.routes.hand_requests.pop(place, None)
        raw = getattr(self.interaction.client, "raw_interactions", {}).get(self.interaction.id)
        return {"raw": raw, "mode": self.mode}

    async def post(self, view: View) -> bool:
        """A command's words for everyone in the channel (help, standings, a vote), as its own public
        response: Discord shows them under the command, and they are not held by the channel's rate
        limit. False once the command was answered or deferred (a slow host's private placeholder
        cannot turn public): the host then posts them as a channel message."""
        i = self.interaction
        if self.mode != "command":
            return False
        content, _ = render(view)
        async with self.lock:
            if i.response.is_done():
                return False
            try:
                await i.response.send_message(content)
            except discord.HTTPException as exc:
                log.info("discord: public answer to %s not delivered: %s", i.id, exc)
                return False
        self.answered.set()
        return True

    async def notice(self, text: str, alert: bool = False) -> None:
        self.notices.append(text)
        self.answered.set()
        try:
            await self._notice(text[:2000])
        except discord.HTTPException as exc:
            log.info("discord: notice to %s not delivered: %s", self.interaction.user.id, exc)

    async def _notice(self, text: str) -> None:
        i = self.interaction
        trivial = text.strip() in TRIVIAL
        routes = self.inbound.platform.routes
        if self.mode == "command":
            async with self.lock:
                if not i.response.is_done():
                    await i.response.send_message(text, ephemeral=True)
                    return
                if self.thinking:
                    self.thinking = False
                    await i.edit_original_response(content=text)
                    return
            if not trivial:
                await i.followup.send(text, ephemeral=True)
            return
        if self.mode == "hand" and routes.hand_requests.get(place_of(i)) is self.ticket:
            routes.hand_requests.pop(place_of(i), None)
            await i.edit_original_response(content=text)
            return
        if trivial:
            return
        if self.mode == "private" and self.inbound.platform.note(self.where, message_key(i), text):
            return
        await i.followup.send(text, ephemeral=True)


class Inbound:
    """Feeds the host; one instance per running client."""

    def __init__(self, host: HostLike, platform: DiscordPlatform, *, budget: float = ANSWER_BUDGET_S) -> None:
        self.host = host
        self.platform = platform
        self.budget = budget
        self.errors: list[BaseException] = []
        self._tasks: set[asyncio.Task[None]] = set()
        self._active = 0
        self._quiet = asyncio.Event()
        self._quiet.set()

    @contextlib.contextmanager
    def _busy(self) -> Iterator[None]:
        """Counts interactions being handled, so tests (and shutdown) can wait for them."""
        self._active += 1
        self._quiet.clear()
        try:
            yield
        finally:
            self._active -= 1
            if self._active == 0:
                self._quiet.set()

    async def idle(self) -> None:
        """Waits until no interaction is being handled."""
        await self._quiet.wait()

    # ----- entry points (slash commands, buttons, selects) -----

    async def on_command(self, interaction: discord.Interaction[Any], name: str, args: tuple[str, ...]) -> None:
        with self._busy():
            await self._on_command(interaction, name, args)

    async def _on_command(self, interaction: discord.Interaction[Any], name: str, args: tuple[str, ...]) -> None:
        ticket = self.platform.routes.saw(interaction)
        if name == "dm":
            await self._dm_setting(interaction, args)
            return
        if interaction.guild_id is None:  # /tractor is a server's: Discord offers it nowhere else
            with contextlib.suppress(discord.HTTPException):
                await interaction.response.send_message(text(lang_of(interaction), "guild_only"), ephemeral=True)
            return
        where = Where(NAME, str(interaction.channel_id))
        mode: Mode = "command"
        if name == "hand":
            if not await _deferred(interaction, ephemeral=True, thinking=True):
                return
            self.platform.routes.hand_requests[place_of(interaction)] = ticket
            mode = "hand"
        reply = Reply(self, interaction, mode, where, ticket)
        await self.platform.tickets.keep(interaction.user.id, int(interaction.channel_id or 0))
        event = Incoming("command", user_of(interaction), where, key=str(interaction.id), name=name, args=args,
                         reply=reply, extra=self._extra(interaction), alone=True)
        await self._feed(event, reply)

    async def suggest(self, interaction: discord.Interaction[Any], command: str, arg: str, typed: str,
                      given: dict[str, str]) -> list[Suggestion]:
        """Autocomplete: what the host finds for this option where the person types it, within Discord's
        3 s (nothing when it takes longer). `near`: the server's channels and threads (a duplicate
        event in another channel of it may be joined from here)."""
        guild = interaction.guild
        near = frozenset(str(c.id) for c in (*guild.channels, *guild.threads)) if guild is not None else frozenset()
        ask = Ask(user_of(interaction), Where(NAME, str(interaction.channel_id)), command, arg, typed, given,
                  lang_of(interaction), near)
        try:
            return await asyncio.wait_for(self.host.suggest(ask), self.budget)
        except TimeoutError:
            log.info("discord: suggestions for %s %s took too long", command, arg)
            return []

    def _not_theirs(self, interaction: discord.Interaction[Any]) -> bool:
        """A press on a private message shown to someone else: refused before the host sees it."""
        message = interaction.message
        owner = self.platform.routes.owner.get(message.id) if message is not None else None
        return owner is not None and owner != interaction.user.id

    async def on_press(self, interaction: discord.Interaction[Any], token: str) -> None:
        if self._not_theirs(interaction):
            await self.refuse_unknown(interaction)
            return
        with self._busy():
            intent = codec.read(token)
            reply = await self._defer_press(interaction, intent)
            if reply is None:
                return
            event = Incoming("press", user_of(interaction), reply.where, key=str(interaction.id), intent=intent,
                             reply=reply, extra=self._extra(interaction), alone=True)
            await self._feed(event, reply)

    async def on_select(self, interaction: discord.Interaction[Any], toggles: list[str]) -> None:
        """A select choice: each changed option is one toggle press, in order."""
        if self._not_theirs(interaction):
            await self.refuse_unknown(interaction)
            return
        with self._busy():
            intents = [codec.read(token) for token in toggles]
            reply = await self._defer_press(interaction, intents[0] if intents else codec.read(""))
            if reply is None:
                return
            for n, intent in enumerate(intents):
                event = Incoming("press", user_of(interaction), reply.where, key=f"{interaction.id}.{n}",
                                 intent=intent, reply=reply, extra=self._extra(interaction), alone=True)
                await self._feed(event, reply)

    async def refuse_unknown(self, interaction: discord.Interaction[Any]) -> None:
        """A component we never drew (forged, or from an old release): a polite no."""
        self.platform.routes.saw(interaction)
        with contextlib.suppress(discord.HTTPException):
            await interaction.response.send_message(text(lang_of(interaction), "bad_button"), ephemeral=True)

    # ----- helpers -----

    async def _defer_press(self, interaction: discord.Interaction[Any], intent: Intent) -> Reply | None:
        """The press answered at once (deferred); None when Discord no longer takes an answer (it came
        too late, or again): then nothing is done, as the person was shown that it failed."""
        ticket = self.platform.routes.saw(interaction)
        private = is_private_message(interaction)
        user = interaction.user
        where = Where(NAME, str(user.id), private=True) if private else Where(NAME, str(interaction.channel_id))
        mode: Mode
        if isinstance(intent.act, ShowHand) and not private:
            if not await _deferred(interaction, ephemeral=True, thinking=True):
                return None
            self.platform.routes.hand_requests[place_of(interaction)] = ticket
            mode = "hand"
        else:
            if not await _deferred(interaction):
                return None
            mode = "private" if private else "public"
            if private and interaction.message is not None and interaction.message.flags.ephemeral:
                self.platform.routes.editors[interaction.message.id] = ticket
                self.platform.adopt(interaction)
        # kept for a restart (after the answer: Discord's 3 s are not spent on the store)
        await self.platform.tickets.keep(user.id, int(interaction.channel_id or 0))
        return Reply(self, interaction, mode, where, ticket)

    async def _feed(self, event: Incoming, reply: Reply) -> None:
        """Hands the event over; makes sure a command gets its answer, a word or a silent close."""
        loop = asyncio.get_running_loop()
        # the budget runs from when the client read the interaction: a backlog on this loop spends it
        start = getattr(reply.interaction.client, "received_at", {}).get(reply.interaction.id, loop.time())
        handling = asyncio.ensure_future(self._handle(event, reply))
        if reply.mode != "command" or reply.interaction.response.is_done():
            await handling  # a press: answered (deferred) already
            return
        # The host may be held up (a channel message waiting out its rate limit): Discord will not wait.
        await asyncio.wait({handling}, timeout=max(0.0, self.budget - (loop.time() - start)))
        if not handling.done():
            async with reply.lock:
                if not reply.interaction.response.is_done():
                    with contextlib.suppress(discord.HTTPException):
                        await reply.interaction.response.defer(ephemeral=True, thinking=True)
                        reply.thinking = True
            await handling
        if reply.interaction.response.is_done() and not reply.thinking:
            return
        left = max(0.0, self.budget - (loop.time() - start))
        waiters: list[asyncio.Future[Any]] = [asyncio.ensure_future(reply.answered.wait())]
        settle = getattr(self.host, "settle", None)
        if callable(settle):
            waiters.append(asyncio.ensure_future(settle()))
        _, pending = await asyncio.wait(waiters, timeout=left, return_when=asyncio.FIRST_COMPLETED)
        for waiter in pending:
            waiter.cancel()
        i = reply.interaction
        async with reply.lock:
            if reply.thinking and not pending:
                reply.thinking = False  # it was slow but is done now, and said nothing to this user
                with contextlib.suppress(discord.HTTPException):
                    await i.delete_original_response()
                return
            if i.response.is_done():
                if reply.thinking and callable(settle):
                    self._spawn(self._close_when_done(reply, settle))
                return
            try:
                await i.response.defer(ephemeral=True, thinking=True)
                if pending and len(pending) == len(waiters):
                    reply.thinking = True  # the host is slow: its words will fill the placeholder
                    if callable(settle):
                        self._spawn(self._close_when_done(reply, settle))
                    return
            except discord.HTTPException as exc:
                log.info("discord: deferring command %s failed: %s", i.id, exc)
                return
        await _delete_placeholder(i)  # done, with nothing to say to this user alone

    async def _handle(self, event: Incoming, reply: Reply) -> None:
        try:
            await self.host.handle(event)
        except Exception as exc:
            log.exception("discord: host failed on %s", event.key)
            self.errors.append(exc)
            await reply.notice(text(lang_of(reply.interaction), "internal"))

    async def _close_when_done(self, reply: Reply, settle: Any) -> None:
        """A slow command whose host never spoke: remove the "thinking" placeholder once it is done."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(settle(), LATE_LIMIT_S)
        async with reply.lock:
            if not reply.thinking:
                return
            reply.thinking = False
        await _delete_placeholder(reply.interaction)

    def _spawn(self, coro: Any) -> None:
        task = asyncio.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _dm_setting(self, interaction: discord.Interaction[Any], args: tuple[str, ...]) -> None:
        on = bool(args) and args[0] == "on"
        try:
            await interaction.response.send_message(text(lang_of(interaction), "dm_on" if on else "dm_off"),
                                                    ephemeral=True)
        finally:  # written even if the answer failed: the person asked for it
            await self.platform.dm.choose(interaction.user.id, on)

    @staticmethod
    def _extra(interaction: discord.Interaction[Any]) -> dict[str, str]:
        perms = interaction.permissions
        admin = interaction.guild_id is not None and (perms.manage_guild or perms.administrator)
        return {"admin": "1"} if admin else {}


async def _deferred(interaction: discord.Interaction[Any], **kwargs: Any) -> bool:
    """Defers; False when Discord refuses (the interaction expired, or was delivered again)."""
    try:
        await interaction.response.defer(**kwargs)
    except discord.HTTPException as exc:
        log.info("discord: interaction %s not deferred: %s", interaction.id, exc)
        return False
    return True


async def _delete_placeholder(interaction: discord.Interaction[Any]) -> None:
    """Removes a command's "thinking" placeholder; a bot stopping meanwhile has closed its HTTP
    session (aiohttp raises RuntimeError for that), which is no error of the command's."""
    try:
        await interaction.delete_original_response()
    except (discord.HTTPException, aiohttp.ClientError):
        pass
    except RuntimeError:
        log.debug("discord: the session closed before a placeholder was removed")
