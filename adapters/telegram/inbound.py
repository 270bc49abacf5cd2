"""Telegram updates to host events: commands, button presses, inline queries, chosen results.

Handlers only parse and forward; every decision (who may press what, whether
a button is stale, what is legal) is the host's. Updates of one chat are
handled in arrival order, different chats side by side.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import OrderedDict
from collections.abc import Awaitable, Sequence
from typing import Any, Protocol

from telegram import (
    InlineQueryResultArticle,
    InlineQueryResultsButton,
    InputTextMessageContent,
    MaybeInaccessibleMessage,
    Message,
    MessageEntity,
    Update,
)
from telegram import User as TgUser
from telegram.error import TelegramError
from telegram.ext import (
    BaseHandler,
    BaseUpdateProcessor,
    CallbackQueryHandler,
    ChosenInlineResultHandler,
    ContextTypes,
    InlineQueryHandler,
    MessageHandler,
    filters,
)

from adapters.telegram.platform import PLATFORM, TelegramPlatform, topic_where
from adapters.telegram.render import MAX_CALLBACK_BYTES
from adapters.telegram.repliers import CALLBACK_ANSWER_DEADLINE, CallbackReplier, ChatReplier
from bot.intents import codec
from bot.platform import Incoming, Receipt, User, Where
from bot.views import Mention

log = logging.getLogger(__name__)

MAX_INLINE_RESULTS = 50
EXPIRED = "这个按钮已失效 / This button has expired."
ADMIN_CACHE_SECONDS = 60.0


class InlineChoiceLike(Protocol):
    @property
    def title(self) -> str: ...

    @property
    def description(self) -> str: ...

    @property
    def token(self) -> str: ...

    @property
    def message(self) -> str: ...

    @property
    def mention(self) -> Mention | None: ...


class HostPort(Protocol):
    """What the adapter needs from bot.host.Host."""

    async def handle(self, event: Incoming) -> None: ...

    async def inline_choices(self, user: User, where: Where, query: str) -> Sequence[InlineChoiceLike]: ...

    def inline_reason(self, user: User, where: Where) -> str: ...

    async def load_journal(self, platform: str, name: str) -> dict[str, Any]: ...

    async def save_journal(self, platform: str, name: str, data: dict[str, Any]) -> None: ...


class PerChatOrder(BaseUpdateProcessor):
    """Concurrent across chats, in arrival order within one chat (or one user's inline queries)."""

    def __init__(self, max_concurrent_updates: int = 256) -> None:
        super().__init__(max_concurrent_updates)
        self._locks: dict[int, asyncio.Lock] = {}

    async def do_process_update(self, update: object, coroutine: Awaitable[Any]) -> None:
        key = _order_key(update)
        lock = self._locks.get(key)
        if lock is None:
            lock = self._locks[key] = asyncio.Lock()
        try:
            async with lock:
                await coroutine
        finally:
            if not lock.locked() and self._locks.get(key) is lock:
                del self._locks[key]

    async def initialize(self) -> None:
        return None

    async def shutdown(self) -> None:
        return None


def _order_key(update: object) -> int:
    if isinstance(update, Update):
        if update.effective_chat is not None:
            return update.effective_chat.id
        if update.effective_user is not None:
            return update.effective_user.id
    return 0


class Inbound:
    """Builds the python-telegram-bot handlers that feed the host."""

    def __init__(self, host: HostPort, platform: TelegramPlatform) -> None:
        self.host = host
        self.platform = platform
        self.errors: list[BaseException] = []
        self._last_group: OrderedDict[int, str] = OrderedDict()  # a group, or a forum's topic
        self._inline_chat: OrderedDict[int, str] = OrderedDict()  # the chat type of each user's last inline query
        self._pending: set[asyncio.Task[None]] = set()
        self.answer_deadline = CALLBACK_ANSWER_DEADLINE
        # An accepted action typed in the private chat ("play ♠A") is answered with "✓" only
        # when this is on: each answer is a message counted against Telegram's limits, and the
        # edited hand and table already show it. Refusals are always answered.
        self.typed_acks = False
        self._admins: dict[int, tuple[float, frozenset[int]]] = {}
        #: The receipt of each update in hand, by update id (adapters/telegram/intake.py fills it).
        self.receipts: dict[int, Receipt] = {}

    def _receipt(self, update: Update) -> Receipt | None:
        return self.receipts.get(update.update_id)

    async def settle(self) -> None:
        """Wait for every pending callback answer (tests, shutdown)."""
        while self._pending:
            await asyncio.gather(*list(self._pending), return_exceptions=True)

    def handlers(self) -> list[BaseHandler[Update, ContextTypes.DEFAULT_TYPE, None]]:
        return [
            # New messages only: editing an old "/new" must not open a second table.
            MessageHandler(filters.UpdateType.MESSAGE & filters.COMMAND, self.on_command),
            MessageHandler(filters.UpdateType.MESSAGE & filters.ChatType.PRIVATE & filters.TEXT & ~filters.COMMAND,
                           self.on_private_text),
            CallbackQueryHandler(self.on_press),
            InlineQueryHandler(self.on_inline_query),
            ChosenInlineResultHandler(self.on_chosen),
        ]

    async def on_error(self, update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
        """The one place unexpected errors end up: logged and kept for tests."""
        if context.error is not None:
            self.errors.append(context.error)
            log.error("update %r failed", update, exc_info=context.error)

    async def on_command(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """/new, /join, /start <payload>, ...: the host decides what each means."""
        message, tg_user = update.effective_message, update.effective_user
        if message is None or message.text is None or tg_user is None or message.via_bot is not None:
            return
        head, *args = message.text.split()
        name, _, addressee = head[1:].partition("@")
        if addressee and addressee.lower() != self.platform.username.lower():
            return  # a command for another bot in the same group
        where = self._where(message.chat.id, message.chat.type, _topic(message))
        self._remember(tg_user.id, where)
        admin = not where.private and await self._is_admin(message.chat.id, tg_user.id)
        await self.host.handle(Incoming(
            "command", _user(tg_user), where, _key(update), name=name.lower(), args=tuple(args),
            reply=ChatReplier(self.platform, where),
            extra={} if where.private else {"admin": "1" if admin else "0"}, receipt=self._receipt(update),
        ))

    async def _is_admin(self, chat_id: int, user_id: int) -> bool:
        """Whether the user administers the group (league seasons and rankings ask); cached a minute."""
        now = time.monotonic()
        cached = self._admins.get(chat_id)
        if cached is None or cached[0] < now:
            try:
                members = await self.platform.bot.get_chat_administrators(chat_id)
            except TelegramError as exc:
                log.info("admins of %s unknown: %s", chat_id, exc)
                return False
            cached = (now + ADMIN_CACHE_SECONDS, frozenset(m.user.id for m in members))
            self._admins[chat_id] = cached
        return user_id in cached[1]

    async def on_private_text(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """Free text in the private chat (the host may answer with help)."""
        message, tg_user = update.effective_message, update.effective_user
        if message is None or message.text is None or tg_user is None or message.via_bot is not None:
            return
        where = self._where(message.chat.id, message.chat.type)
        await self.host.handle(Incoming("text", _user(tg_user), where, _key(update), text=message.text,
                                        reply=ChatReplier(self.platform, where, quiet_acks=not self.typed_acks),
                                        receipt=self._receipt(update)))

    async def on_press(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """A button: the token goes to the host; the press is always answered, once."""
        query = update.callback_query
        if query is None:
            return
        replier = CallbackReplier(query)
        token = self.platform.aliases.decode(query.data or "")
        message = query.message
        if token is None or message is None or len((query.data or "").encode()) > MAX_CALLBACK_BYTES:
            await replier.notice(EXPIRED, alert=True)
            return
        where = self._where(message.chat.id, message.chat.type, _topic(message))
        self._remember(query.from_user.id, where)
        receipt = self._receipt(update)
        event = Incoming("press", _user(query.from_user), where, _key(update), intent=codec.read(token), reply=replier,
                         extra={"message_id": str(message.message_id)}, receipt=receipt)
        try:
            await self.host.handle(event)
        finally:
            # Not awaited here: later updates of this chat must not wait for the answer.
            task = asyncio.get_running_loop().create_task(replier.finish(self.answer_deadline, receipt))
            self._pending.add(task)
            task.add_done_callback(self._pending.discard)

    async def on_inline_query(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """The player's own legal plays, personal and never cached, 50 at a time (Telegram asks for
        the next page with `offset` when the person scrolls to the end); none: a line saying why."""
        query = update.inline_query
        if query is None:
            return
        user = _user(query.from_user)
        where = self._inline_where(query.from_user.id, query.chat_type)
        self._inline_chat[query.from_user.id] = query.chat_type or ""
        self._inline_chat.move_to_end(query.from_user.id)
        while len(self._inline_chat) > 100_000:
            self._inline_chat.popitem(last=False)
        every = list(await self.host.inline_choices(user, where, query.query))
        start = int(query.offset) if query.offset.isdigit() else 0
        choices = every[start:start + MAX_INLINE_RESULTS]
        more = start + MAX_INLINE_RESULTS < len(every)
        button = None
        if not every:
            button = InlineQueryResultsButton(text=self.host.inline_reason(user, where)[:64] or "…",
                                              start_parameter="inline")
        results = [
            InlineQueryResultArticle(
                id=self.platform.aliases.encode(c.token),
                title=c.title,
                description=c.description or None,
                # posted in the group as the player's own message (not counted against the bot's limits);
                # it mentions who plays next, whose client then tells them it is their turn
                input_message_content=InputTextMessageContent(c.message or c.title, entities=_mention(c)),
            )
            for c in choices
        ]
        try:
            await query.answer(results, cache_time=0, is_personal=True, button=button,
                               next_offset=str(start + MAX_INLINE_RESULTS) if more else "")
        except TelegramError as exc:
            log.info("inline answer failed: %s", exc)

    async def on_chosen(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """A chosen inline result plays it (needs inline feedback switched on in BotFather)."""
        chosen = update.chosen_inline_result
        if chosen is None:
            return
        token = self.platform.aliases.decode(chosen.result_id)
        tg_user = chosen.from_user
        private = Where(PLATFORM, str(tg_user.id), private=True)
        if token is None:
            await ChatReplier(self.platform, private).notice(EXPIRED)
            return
        where = self._inline_where(tg_user.id, None)
        # the result's message went into the chat the person asked from (a chosen result names none)
        posted = {"posted": "group"} if self._inline_chat.get(tg_user.id) in ("group", "supergroup") else {}
        await self.host.handle(Incoming("chosen", _user(tg_user), where, _key(update), intent=codec.read(token),
                                        text=chosen.query, extra=posted,
                                        reply=ChatReplier(self.platform, private, quiet_acks=True),
                                        receipt=self._receipt(update)))

    def _where(self, chat_id: int, chat_type: str, thread: int | None = None) -> Where:
        return topic_where(chat_id, chat_type == "private", thread)

    def _remember(self, user_id: int, where: Where) -> None:
        """Inline queries carry no chat: remember the last group each user acted in."""
        if where.private:
            return
        self._last_group[user_id] = where.chat_id
        self._last_group.move_to_end(user_id)
        while len(self._last_group) > 100_000:
            self._last_group.popitem(last=False)

    def _inline_where(self, user_id: int, chat_type: str | None) -> Where:
        """Inline queries and chosen results name no chat: the group this user last acted in,
        else their private chat (the host then finds the table they sit at)."""
        group = self._last_group.get(user_id)
        if chat_type in ("sender", "private") or group is None:
            return Where(PLATFORM, str(user_id), private=True)
        return Where(PLATFORM, group, private=False)


def _mention(choice: InlineChoiceLike) -> list[MessageEntity] | None:
    """The next player named in a chosen result's message as a mention (offsets in UTF-16 units)."""
    m = choice.mention
    if m is None or not m.user_id.isdigit():
        return None
    text = choice.message
    offset = len(text[:m.start].encode("utf-16-le")) // 2
    length = len(text[m.start:m.start + m.length].encode("utf-16-le")) // 2
    who = TgUser(id=int(m.user_id), first_name=m.name or "?", is_bot=False)
    return [MessageEntity(MessageEntity.TEXT_MENTION, offset, length, user=who)]


def _topic(message: MaybeInaccessibleMessage) -> int | None:
    """The forum topic a message is in (None: a chat without topics, or a forum's General)."""
    if isinstance(message, Message) and message.is_topic_message and message.message_thread_id is not None:
        return message.message_thread_id
    return None


def _user(tg_user: TgUser) -> User:
    return User(PLATFORM, str(tg_user.id), tg_user.full_name, tg_user.language_code)


def _key(update: Update) -> str:
    return f"{PLATFORM}:{update.update_id}"
