"""One outbox per chat: sends in order, edits coalesced, everything inside the flood limits.

A send is awaited (the host needs the message id). An edit returns at once:
if the same message is edited again before the first edit went out, only the
newest content is sent, which is what keeps a busy table under 20 messages a
minute. An urgent edit (a turn someone learns of only from the group's table)
goes before the chat's queued sends, within the group's whole minute. Plain announcements waiting behind the limit are joined into one
message. An edit to the content a message already shows is skipped: what each
message shows is written, once Telegram has it, to the door's one record
(`bot.scene.diff.Shown`, which the host reads before it asks for an edit).
"""

from __future__ import annotations

import asyncio
import logging
import warnings
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from telegram import Bot, Chat, InlineKeyboardMarkup, Message
from telegram.error import BadRequest, Forbidden, NetworkError, RetryAfter, TelegramError

from adapters.telegram.flood import FloodGate, Stamp
from adapters.telegram.render import MAX_TEXT
from bot.platform import Button
from bot.scene.diff import Shown, Signature

log = logging.getLogger(__name__)

_Call = Callable[[], Awaitable[Message]]
_EPOCH = datetime.fromtimestamp(0, tz=UTC)


class SendFailed(Exception):
    """A send could not be delivered; `forbidden` when Telegram said 403, `transient` when the
    network or flood control gave out (the same call may well go through later)."""

    def __init__(self, chat_id: int, reason: str, *, forbidden: bool = False, transient: bool = False) -> None:
        super().__init__(reason)
        self.chat_id = chat_id
        self.reason = reason
        self.forbidden = forbidden
        self.transient = transient


Buttons = tuple[tuple[Button, ...], ...]


@dataclass
class Outgoing:
    """One message: text and buttons, or a file with a caption.

    The Telegram keyboard is built only when the message really goes out, so
    an edit that a newer one replaces costs nothing.
    """

    text: str
    buttons: Buttons = ()
    file_name: str = ""
    file_data: bytes = b""
    mergeable: bool = False
    keyboard: Callable[[Buttons], InlineKeyboardMarkup | None] | None = None
    shows: Signature | None = None  # what it shows (`bot.scene.diff.signature` of its view), if a view
    thread: int | None = None  # a new message goes into this topic of a forum group
    # someone learns their turn only from this edit (`View.urgent`): it goes before the chat's queued
    # sends, within the group's whole minute rather than the share ordinary edits may use
    urgent: bool = False
    # nothing in it is news to its reader (`View.lazy`): it may wait, within `FloodLimits.lazy_within`
    # of being queued, while the bot's second is busy, so that a newer edit replaces it unsent
    lazy: bool = False
    queued_at: float = 0.0  # (gate clock) when the message's oldest pending edit was queued

    @property
    def content_key(self) -> tuple[str, Buttons]:
        """Exactly what it sends (buttons with their versions): an edit to this very content is skipped."""
        return (self.text, self.buttons)

    def record(self, shown: Shown, chat_id: int, message_id: int) -> None:
        shown.put(str(chat_id), str(message_id), self.shows if self.shows is not None else (self.text,),
                  self.content_key)

    @property
    def markup(self) -> InlineKeyboardMarkup | None:
        if not self.buttons or self.keyboard is None:
            return None
        return self.keyboard(self.buttons)


@dataclass
class _Send:
    out: Outgoing
    done: asyncio.Future[int]


@dataclass
class OutboxStats:
    """What the outboxes did, for tests and benchmarks."""

    sent: int = 0
    edited: int = 0
    edits_coalesced: int = 0
    edits_skipped: int = 0
    merged: int = 0
    retry_after: int = 0
    failures: int = 0
    edits_requeued: int = 0
    by_method: dict[str, int] = field(default_factory=dict)


class _ChatOutbox:
    def __init__(self, chat_id: int) -> None:
        self.chat_id = chat_id
        self.sends: deque[_Send] = deque()
        self.edits: dict[int, Outgoing] = {}
        self.worker: asyncio.Task[None] | None = None
        self.stamp: Stamp | None = None  # how the flood gate counted the call in flight

    @property
    def busy(self) -> bool:
        return bool(self.sends or self.edits)

    def urgent(self) -> int | None:
        """The message whose queued edit is urgent (`Outgoing.urgent`), if one is."""
        return next((mid for mid, out in self.edits.items() if out.urgent), None)

    def next_edit(self) -> int:
        """The edit to send next: one with news first (a lazy one may yet be replaced)."""
        return next((mid for mid, out in self.edits.items() if not out.lazy), next(iter(self.edits)))

    def kind(self, now: float, lazy_for: float) -> tuple[bool, bool]:
        """What would go next, for the flood gate: (an edit, a lazy edit still within its wait)."""
        if self.sends or self.urgent() is not None or not self.edits:
            return False, False
        lazy = all(out.lazy and now - out.queued_at < lazy_for for out in self.edits.values())
        return True, lazy


class Outboxes:
    """Every chat's outbox, sharing one flood gate and one bot."""

    def __init__(self, bot: Bot, gate: FloodGate, shown: Shown | None = None) -> None:
        self.bot = bot
        self.gate = gate
        self.shown = shown if shown is not None else Shown()  # the door's record of what each message shows
        self.stats = OutboxStats()
        self._chats: dict[int, _ChatOutbox] = {}

    def _chat(self, chat_id: int) -> _ChatOutbox:
        box = self._chats.get(chat_id)
        if box is None:
            box = self._chats[chat_id] = _ChatOutbox(chat_id)
        return box

    async def send(self, chat_id: int, out: Outgoing) -> int:
        """Queue a message and wait until it is in the chat; returns its id. Raises SendFailed."""
        box = self._chat(chat_id)
        done: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        box.sends.append(_Send(out, done))
        self._wake(box)
        return await done

    def edit(self, chat_id: int, message_id: int, out: Outgoing) -> None:
        """Queue an edit; a newer edit of the same message replaces it."""
        box = self._chat(chat_id)
        out.queued_at = self.gate.clock()
        if (pending := box.edits.get(message_id)) is not None:
            self.stats.edits_coalesced += 1
            out.queued_at = pending.queued_at
        elif self.shown.exact(str(chat_id), str(message_id)) == out.content_key:
            self.stats.edits_skipped += 1
            return
        box.edits[message_id] = out
        self._wake(box)

    def forget(self, chat_id: int, message_id: int) -> None:
        """The message is being deleted: drop its pending edit."""
        box = self._chat(chat_id)
        box.edits.pop(message_id, None)
        self.shown.drop(str(chat_id), str(message_id))

    def drop_edits(self, chat_id: int) -> None:
        """Drop the chat's queued edits (its table is drawn by another worker now)."""
        box = self._chats.get(chat_id)
        if box is not None:
            box.edits.clear()

    async def drain(self) -> None:
        """Wait until every queued send and edit went out (or failed)."""
        while True:
            workers = [b.worker for b in self._chats.values() if b.worker is not None and not b.worker.done()]
            if not workers:
                return
            await asyncio.gather(*workers, return_exceptions=True)

    async def drain_chat(self, chat_id: int) -> None:
        """Wait until this chat's queue is empty."""
        box = self._chats.get(chat_id)
        while box is not None and box.worker is not None and not box.worker.done():
            await asyncio.gather(box.worker, return_exceptions=True)

    async def close(self) -> None:
        for box in self._chats.values():
            if box.worker is not None:
                box.worker.cancel()
            for item in box.sends:
                if not item.done.done():
                    item.done.set_exception(SendFailed(box.chat_id, "adapter stopped"))
            box.sends.clear()
            box.edits.clear()

    def _wake(self, box: _ChatOutbox) -> None:
        if box.worker is None or box.worker.done():
            box.worker = asyncio.get_running_loop().create_task(self._work(box))

    async def _work(self, box: _ChatOutbox) -> None:
        lazy_for = self.gate.limits.lazy_within * self.gate.limits.scale
        while box.busy:
            box.stamp = await self.gate.acquire(box.chat_id, kind=lambda: box.kind(self.gate.clock(), lazy_for))
            if (mid := box.urgent()) is not None:
                await self._edit_next(box, mid)
            elif box.sends:
                await self._send_next(box)
            elif box.edits:
                await self._edit_next(box)

    def _take_sends(self, box: _ChatOutbox) -> tuple[Outgoing, list[_Send]]:
        first = box.sends.popleft()
        batch = [first]
        if not first.out.mergeable:
            return first.out, batch
        text = first.out.text
        while (box.sends and box.sends[0].out.mergeable and box.sends[0].out.thread == first.out.thread
               and len(text) + 1 + len(box.sends[0].out.text) <= MAX_TEXT):
            nxt = box.sends.popleft()
            text += "\n" + nxt.out.text
            batch.append(nxt)
        self.stats.merged += len(batch) - 1
        return Outgoing(text, mergeable=True, thread=first.out.thread), batch

    async def _send_next(self, box: _ChatOutbox) -> None:
        out, batch = self._take_sends(box)
        try:
            message = await self._retrying(box, lambda: self._deliver(box.chat_id, out))
        except SendFailed as exc:
            self.stats.failures += 1
            for item in batch:
                if not item.done.done():
                    item.done.set_exception(exc)
            return
        except asyncio.CancelledError:
            # The outbox is closing with this send in flight: whoever awaits it (a table's actor)
            # must hear so, or it waits for good and its table never stops.
            for item in batch:
                if not item.done.done():
                    item.done.set_exception(SendFailed(box.chat_id, "adapter stopped"))
            raise
        self.stats.sent += 1
        out.record(self.shown, box.chat_id, message.message_id)
        for item in batch:
            if not item.done.done():
                item.done.set_result(message.message_id)

    async def _edit_next(self, box: _ChatOutbox, message_id: int | None = None) -> None:
        if message_id is None:
            message_id = box.next_edit()
        out = box.edits.pop(message_id)
        if self.shown.exact(str(box.chat_id), str(message_id)) == out.content_key:
            self.stats.edits_skipped += 1
            return
        try:
            await self._retrying(box, lambda: self._deliver_edit(box.chat_id, message_id, out))
        except SendFailed as exc:
            self.stats.failures += 1
            log.warning("edit of %s in chat %s failed: %s", message_id, box.chat_id, exc.reason)
            if exc.transient:
                # Telegram is having trouble: keep the newest content pending (unless a newer edit
                # came in meanwhile) and try again after a pause, so that people see the current
                # table once it recovers, even if nothing else happens at the table.
                box.edits.setdefault(message_id, out)
                self.stats.edits_requeued += 1
                await asyncio.sleep(self.gate.limits.retry_cap)
            return
        self.stats.edited += 1
        out.record(self.shown, box.chat_id, message_id)

    async def _deliver(self, chat_id: int, out: Outgoing) -> Message:
        if out.file_name.lower().endswith((".png", ".jpg", ".jpeg")):
            self._count("sendPhoto")
            return await self.bot.send_photo(chat_id, out.file_data, caption=out.text or None,
                                             filename=out.file_name, reply_markup=out.markup,
                                             message_thread_id=out.thread)
        if out.file_name:
            self._count("sendDocument")
            return await self.bot.send_document(chat_id, out.file_data, caption=out.text or None,
                                                filename=out.file_name, reply_markup=out.markup,
                                                message_thread_id=out.thread)
        self._count("sendMessage")
        return await self.bot.send_message(chat_id, out.text, reply_markup=out.markup, message_thread_id=out.thread)

    async def _deliver_edit(self, chat_id: int, message_id: int, out: Outgoing) -> Message:
        self._count("editMessageText")
        try:
            result = await self.bot.edit_message_text(out.text, chat_id=chat_id, message_id=message_id,
                                                      reply_markup=out.markup)
        except BadRequest as exc:
            if "not modified" in exc.message:
                # Shown already (for example after a restart, when we had forgotten what was shown).
                return Message(message_id, _EPOCH, _chat_stub(chat_id))
            raise
        if isinstance(result, Message):
            return result
        return Message(message_id, _EPOCH, _chat_stub(chat_id))

    def _count(self, method: str) -> None:
        self.stats.by_method[method] = self.stats.by_method.get(method, 0) + 1

    async def _retrying(self, box: _ChatOutbox, call: _Call) -> Message:
        """Run one API call, waiting out 429s and retrying network trouble a few times."""
        limits = self.gate.limits
        chat_id = box.chat_id
        attempt = 0
        while True:
            attempt += 1
            try:
                try:
                    return await call()
                finally:
                    if box.stamp is not None:  # answered or failed: it reached Telegram by now at the latest
                        self.gate.arrived(box.stamp)
            except RetryAfter as exc:
                self.stats.retry_after += 1
                self.gate.hold(chat_id, retry_after_seconds(exc))
                if attempt > limits.max_retries:
                    raise SendFailed(chat_id, f"flood control: {exc}", transient=True) from exc
                box.stamp = await self.gate.acquire(chat_id)
            except Forbidden as exc:
                raise SendFailed(chat_id, exc.message, forbidden=True) from exc
            except BadRequest as exc:
                raise SendFailed(chat_id, exc.message) from exc
            except NetworkError as exc:  # includes TimedOut
                if attempt > limits.max_retries:
                    raise SendFailed(chat_id, f"network: {exc}", transient=True) from exc
                await asyncio.sleep(min(limits.retry_base * 2 ** (attempt - 1), limits.retry_cap))
            except TelegramError as exc:
                raise SendFailed(chat_id, str(exc)) from exc


def retry_after_seconds(exc: RetryAfter) -> float:
    """RetryAfter.retry_after is an int or a timedelta depending on PTB settings."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        value: object = exc.retry_after
    if isinstance(value, timedelta):
        return value.total_seconds()
    if isinstance(value, int | float):
        return float(value)
    return 1.0



def _chat_stub(chat_id: int) -> Chat:
    return Chat(chat_id, Chat.PRIVATE if chat_id > 0 else Chat.SUPERGROUP)
