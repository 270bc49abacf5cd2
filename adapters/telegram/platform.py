"""The host's view of Telegram: send, edit, delete, files and deep links (bot.platform.Platform).

A forum group's topic is a place of its own: its `Where.chat_id` is "<chat>:<thread>" (`topic_where`),
so a table opened in a topic lives there, each topic may hold a table, and everything the bot posts
for it goes into that topic (`message_thread_id`). Edits and deletions name the chat and the message
only, and the group's flood budget is the chat's, whatever the topic.
"""

from __future__ import annotations

import contextlib
import re

from telegram import Bot, InlineKeyboardMarkup

from adapters.telegram.flood import FloodGate
from adapters.telegram.menu import set_chat_menu
from adapters.telegram.outbox import Outboxes, Outgoing, SendFailed
from adapters.telegram.render import CallbackAliases, fit_text, to_markup
from adapters.telegram.repliers import CallbackReplier, ChatReplier
from bot.commands import Registry
from bot.platform import Button, PlatformError, Replier, Unreachable, View, Where
from bot.scene.diff import Shown, Signature, signature

PLATFORM = "telegram"
_PAYLOAD = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


class TelegramPlatform:
    """Implements `bot.platform.Platform` over one python-telegram-bot `Bot`.

    Messages go through per-chat outboxes that keep to Telegram's flood
    limits; `edit` returns as soon as the edit is queued (see outbox.py).
    """

    name = PLATFORM
    # Telegram takes up to 100 buttons: a whole hand and its kitty fit on one page.
    hand_page_size = 40
    one_screen = False
    sends_files = True
    turn_notices = True
    play_menu = False
    live_countdown = False

    def __init__(self, bot: Bot, gate: FloodGate) -> None:
        self.bot = bot
        self.aliases = CallbackAliases()
        self.shown: Shown = ChatShown()  # what each message shows, once Telegram has it (the outboxes write it)
        self.outboxes = Outboxes(bot, gate, self.shown)
        #: The host's commands, once the menus are set (`TelegramRunner.set_menus`).
        self.menus: Registry | None = None

    async def language_chosen(self, where: Where, lang: str) -> None:
        """A chat chose its language (`lang`): its "/" menu speaks it from now on (adapters/telegram/menu.py)."""
        if self.menus is not None and where.chat_id.lstrip("-").partition(":")[0].isdigit():
            await set_chat_menu(self.bot, self.menus, _chat_id(where), lang, where.private)

    @property
    def username(self) -> str:
        return self.bot.username

    async def send(self, where: Where, view: View) -> str:
        """Post a message; a private chat the bot cannot reach raises Unreachable."""
        out = self._outgoing(view, mergeable=not where.private and not view.buttons)
        return str(await self._send(where, out))

    async def edit(self, where: Where, message_id: str, view: View) -> None:
        """Queue an edit in place; identical content and superseded edits never reach Telegram."""
        self.outboxes.edit(_chat_id(where), int(message_id), self._outgoing(view))

    async def delete(self, where: Where, message_id: str) -> None:
        chat_id = _chat_id(where)
        self.outboxes.forget(chat_id, int(message_id))
        try:
            await self.bot.delete_message(chat_id, int(message_id))
        except Exception as exc:  # a message already gone is not the host's problem
            raise PlatformError(f"delete {message_id} in {chat_id}: {exc}") from exc

    async def send_file(self, where: Where, filename: str, data: bytes, caption: str = "") -> str:
        """A PNG goes as a photo, anything else (CSV) as a document."""
        out = Outgoing(caption[:1024], file_name=filename, file_data=data)
        return str(await self._send(where, out))

    def join_link(self, payload: str) -> str | None:
        """t.me/<bot>?start=<payload>: opens the private chat, so the bot may write there."""
        if not _PAYLOAD.match(payload):
            raise ValueError(f"deep-link payload must be 1-64 of A-Z a-z 0-9 _ -: {payload!r}")
        return f"https://t.me/{self.username}?start={payload}"

    def how_to_fix(self) -> str:
        """Where an unreachable player must press Start."""
        return f"https://t.me/{self.username}"

    def let_go(self, chat_id: str, user_ids: list[str]) -> None:
        """Another worker draws this table's messages from now on (bot.cluster): the edits still
        queued here for its group and its players' private chats are dropped, so that none lands
        after the next owner's newer ones."""
        for chat in [chat_id, *user_ids]:
            with contextlib.suppress(ValueError):
                self.outboxes.drop_edits(int(chat.partition(":")[0]))

    def replier_from(self, handoff: dict[str, str]) -> Replier | None:
        """The answer to an update another worker received (its `handoff`): this worker answers the
        press or writes in the chat itself (bot.cluster)."""
        if handoff.get("telegram_query"):
            return CallbackReplier(None, self.bot, str(handoff["telegram_query"]))
        if handoff.get("telegram_chat"):
            where = Where(PLATFORM, str(handoff["telegram_chat"]), private=bool(handoff.get("private")))
            return ChatReplier(self, where, quiet_acks=bool(handoff.get("quiet")))
        return None

    async def drain(self) -> None:
        """Wait until every queued message and edit has gone out (tests, shutdown)."""
        await self.outboxes.drain()

    async def close(self) -> None:
        await self.outboxes.close()

    def _outgoing(self, view: View, *, mergeable: bool = False) -> Outgoing:
        return Outgoing(fit_text(view.text), view.buttons, mergeable=mergeable, keyboard=self._keyboard,
                        shows=signature(view), urgent=view.urgent, lazy=view.lazy)

    def _keyboard(self, buttons: tuple[tuple[Button, ...], ...]) -> InlineKeyboardMarkup | None:
        return to_markup(View("", buttons), self.aliases)

    async def _send(self, where: Where, out: Outgoing) -> int:
        chat_id = _chat_id(where)
        out.thread = _thread(where)
        try:
            return await self.outboxes.send(chat_id, out)
        except SendFailed as exc:
            if exc.forbidden and where.private:
                raise Unreachable(where.chat_id, self.how_to_fix()) from exc
            raise PlatformError(f"send to {chat_id}: {exc.reason}") from exc


def topic_where(chat_id: int, private: bool, thread: int | None = None) -> Where:
    """The place a message is in: a chat, or one topic of a forum group."""
    return Where(PLATFORM, str(chat_id) if thread is None else f"{chat_id}:{thread}", private=private)


def _chat_id(where: Where) -> int:
    if where.platform != PLATFORM:
        raise PlatformError(f"not a Telegram chat: {where}")
    try:
        return int(where.chat_id.partition(":")[0])
    except ValueError as exc:
        raise PlatformError(f"bad Telegram chat id {where.chat_id!r}") from exc


def _thread(where: Where) -> int | None:
    """The forum topic of a place (None: the whole chat, or a forum's General)."""
    _, sep, thread = where.chat_id.partition(":")
    if not sep:
        return None
    if not thread.isdigit():
        raise PlatformError(f"bad Telegram topic in {where.chat_id!r}")
    return int(thread)


class ChatShown(Shown):
    """The door's record of what each message shows, by chat and message: a message id is the
    chat's, whichever topic it is in, so "<chat>:<thread>" and "<chat>" name the same messages."""

    def get(self, chat_id: str, message_id: str) -> Signature | None:
        return super().get(chat_id.partition(":")[0], message_id)

    def exact(self, chat_id: str, message_id: str) -> object:
        return super().exact(chat_id.partition(":")[0], message_id)

    def put(self, chat_id: str, message_id: str, sig: Signature, exact: object = None) -> None:
        super().put(chat_id.partition(":")[0], message_id, sig, exact)

    def forget(self, chat_id: str, message_id: str) -> None:
        super().forget(chat_id.partition(":")[0], message_id)

    def drop(self, chat_id: str, message_id: str) -> None:
        super().drop(chat_id.partition(":")[0], message_id)
