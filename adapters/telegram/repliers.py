"""How a Telegram update is answered: a press by answerCallbackQuery, a command or a chosen inline
result by a short message in its chat. Apart from adapters/telegram/inbound.py so that the platform
can build them for a press another worker received (`TelegramPlatform.replier_from`) without the
two modules importing each other."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Protocol

from telegram import Bot, CallbackQuery
from telegram.error import TelegramError

from bot.platform import PlatformError, Receipt, Unreachable, View, Where

log = logging.getLogger(__name__)

# The host answers a press from its table actor, after `handle` returned; a press it
# leaves unanswered is answered empty after this many seconds (the client shows a
# spinner until then, and Telegram drops answers after about 15 s).
CALLBACK_ANSWER_DEADLINE = 2.5
# A press waits at most this long to be stored before it is answered anyway (Telegram takes an
# answer for about 15 s after the press).
MAX_ANSWER_WAIT = 12.0


class Sender(Protocol):
    """What a chat answer needs of the platform: sending one message."""

    async def send(self, where: Where, view: View) -> str: ...


class CallbackReplier:
    """Answers one button press exactly once: with the host's first notice, or empty after a deadline.

    Any worker may answer a press (the query's id is all it takes): a press forwarded to the
    worker that drives its table is answered there (`handoff`), so that its answer needs the
    receiving worker no more."""

    def __init__(self, query: CallbackQuery | None, bot: Bot | None = None, query_id: str = "") -> None:
        self.query = query
        self.bot = bot
        self.query_id = query.id if query is not None else query_id
        self.answered = False
        self.handed_off = False
        self.text = ""
        self._done = asyncio.Event()

    async def notice(self, text: str, alert: bool = False) -> None:
        if self.answered:
            log.debug("second notice for one press dropped: %s", text)
            return
        self.answered = True
        self.text = text[:200]
        try:
            if self.query is not None:
                await self.query.answer(self.text, show_alert=alert)
            elif self.bot is not None:
                await self.bot.answer_callback_query(self.query_id, self.text, show_alert=alert)
        except TelegramError as exc:
            log.info("callback answer failed: %s", exc)
        finally:
            self._done.set()

    def handoff(self) -> dict[str, str]:
        """What the table's owner needs to answer this press itself; this worker then does not."""
        self.handed_off = True
        return {"telegram_query": self.query_id}

    async def finish(self, deadline: float = CALLBACK_ANSWER_DEADLINE, receipt: Receipt | None = None) -> None:
        """Give the host until `deadline` after the press is stored to answer, then answer empty.
        A press that could not be stored is not answered here: Telegram sends it again and that
        delivery is answered; one handed off is answered by the worker that took it."""
        if receipt is not None and not self.answered:
            with contextlib.suppress(TimeoutError):
                if not await asyncio.wait_for(receipt.outcome(), MAX_ANSWER_WAIT):
                    return
        if self.handed_off:
            return
        if not self.answered:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._done.wait(), deadline)
        if not self.answered and not self.handed_off:
            await self.notice("")


class ChatReplier:
    """Answers a command or a chosen inline result with a short message in a chat.

    With `quiet_acks`, bare acknowledgements ("✓") are not worth a message: a
    chosen inline result shows itself in the group already, and a typed action
    shows in the player's hand and the group's table; refusals still go out.
    """

    def __init__(self, platform: Sender, where: Where, *, quiet_acks: bool = False) -> None:
        self.platform = platform
        self.where = where
        self.quiet_acks = quiet_acks

    def handoff(self) -> dict[str, str]:
        """What the table's owner needs to answer in this chat itself."""
        return {"telegram_chat": self.where.chat_id, "private": "1" if self.where.private else "",
                "quiet": "1" if self.quiet_acks else ""}

    async def notice(self, text: str, alert: bool = False) -> None:
        if self.quiet_acks and len(text.strip()) <= 2:
            return
        try:
            await self.platform.send(self.where, View(text))
        except (PlatformError, Unreachable) as exc:
            log.info("notice to %s not delivered: %s", self.where, exc)
