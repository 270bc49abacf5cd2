"""How updates come in from Telegram, and how Telegram is told which of them were taken.

Telegram keeps an update until the bot confirms it: a webhook confirms by answering 2xx, long
polling by asking next from a later offset. python-telegram-bot's own Updater confirms as soon
as an update arrives, before any handler ran; an update whose handling then failed (the
database restarting) was gone for good. Here an update is confirmed only once its receipt
(`bot.platform.Receipt`) says it is stored, or queued in the database for its table's owner:

- webhook: the POST is answered 200 then, and 503 when it could not be taken (Telegram sends
  it again later; a reverse proxy may try another worker first); 503 too while this worker
  drains, so that nothing new starts here.
- long polling: the offset asked next never passes an update not yet taken. Telegram answers
  from the offset on, so an update being served comes back in the next answers (it is skipped
  while in hand); one that failed is served again after a growing wait.

Updates run through the Application's handlers as PTB would run them (`process_update` under
the per-chat order), only awaited.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from aiohttp import web
from telegram import Update
from telegram.error import Conflict, InvalidToken, NetworkError, RetryAfter, TelegramError
from telegram.ext import Application

from adapters.telegram.config import TelegramConfig
from bot.platform import Receipt

log = logging.getLogger(__name__)

#: Seconds an update may wait to be stored before its webhook answer or confirmation goes out
#: anyway (it is in a table's queue in this process; Telegram would time the webhook call out).
SETTLE_WITHIN = 25.0
#: While updates are in hand, seconds between two polls (each answer repeats the ones in hand, so
#: polling sooner costs building them all again; new updates wait at most this long).
POLL_AGAIN = 0.1
#: Waits before an update that could not be taken is served again: doubling, up to the last.
RETRY_FIRST = 0.5
RETRY_LAST = 10.0
SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"


@dataclass
class IntakeStats:
    taken: int = 0  # updates stored (or queued for their owner)
    failed: int = 0  # deliveries that could not be taken (not confirmed: Telegram sends them again)
    refused: int = 0  # webhook calls without the secret, or while draining


class Intake:
    """The updates of one bot: polled or received by webhook, confirmed once taken."""

    def __init__(self, app: Application, config: TelegramConfig,  # type: ignore[type-arg]
                 receipts: dict[int, Receipt], *, clock: Callable[[], float] = time.monotonic) -> None:
        self.app = app
        self.config = config
        self.receipts = receipts  # the inbound handlers hand each update's receipt to the host
        self.clock = clock
        self.stats = IntakeStats()
        self.in_hand: dict[int, float] = {}  # update id -> when it arrived here
        self.draining = False
        self._poller: asyncio.Task[None] | None = None
        self._stop = asyncio.Event()
        self._runner: web.AppRunner | None = None
        self._posts: set[asyncio.Task[bool]] = set()
        self.offset = 0  # long polling: every update below it is taken
        #: Set when Telegram refused the token while polling (`tractor-host run` then exits with 2).
        self.refused = asyncio.Event()
        self.retry_first = RETRY_FIRST
        self._next = 0  # long polling: past the newest update seen
        self._pending: dict[int, Update] = {}  # long polling: fetched, not yet taken
        self._taken: set[int] = set()  # taken, but still at or past the offset (Telegram repeats them)

    # ----- one update -----

    async def take(self, update: Update) -> bool:
        """Runs the update through the handlers; True once it is stored (or queued for its table's
        owner), False when it could not be (Telegram is to send it again)."""
        uid = update.update_id
        receipt = self.receipts[uid] = Receipt(redelivers=True)
        self.in_hand[uid] = self.clock()
        try:
            await self.app.update_processor.process_update(update, self.app.process_update(update))
            if not receipt.handed:
                receipt.stored()  # no handler took it, or one that settled nothing
            try:
                ok = await asyncio.wait_for(receipt.outcome(), SETTLE_WITHIN)
            except TimeoutError:
                log.warning("telegram: update %s not stored after %.0f s; confirmed, it waits at its table",
                            uid, SETTLE_WITHIN)
                ok = True
        finally:
            self.receipts.pop(uid, None)
            self.in_hand.pop(uid, None)
        if ok:
            self.stats.taken += 1
        else:
            self.stats.failed += 1
        return ok

    def oldest(self) -> float:
        """Seconds the oldest update in hand has waited (0: none)."""
        return max(0.0, self.clock() - min(self.in_hand.values())) if self.in_hand else 0.0

    # ----- long polling -----

    def holds(self, update_id: int) -> bool:
        """Whether polling already has this update (Telegram repeats it until the offset passes it)."""
        return update_id in self._pending or update_id in self._taken

    async def start_polling(self) -> None:
        cfg = self.config
        await self.app.bot.delete_webhook(drop_pending_updates=cfg.drop_pending_updates)
        self._stop.clear()
        self._poller = asyncio.get_running_loop().create_task(self._poll(), name="telegram-polling")

    async def _poll(self) -> None:
        pending: dict[int, Update] = {}
        taken: set[int] = set()
        self._pending, self._taken = pending, taken
        serving: dict[int, asyncio.Task[bool]] = {}
        again_at: dict[int, float] = {}  # an update that failed: when it may be served again
        tries: dict[int, int] = {}
        trouble = 0.0  # seconds to wait after a failed poll (0: the last one went through)
        while not self._stop.is_set():
            self.offset = min(pending) if pending else self._next
            taken -= {t for t in taken if t < self.offset}
            try:
                updates = await self._get_updates(0 if pending else self.config.poll_timeout)
            except InvalidToken:  # revoked in @BotFather while running: no retry helps
                self.refused.set()
                return
            except (NetworkError, Conflict, RetryAfter) as exc:
                trouble = min(max(trouble * 2, 1.0), 30.0)
                log.warning("telegram: polling failed (%s: %s); trying again in %.0f s",
                            type(exc).__name__, exc, trouble)
                await self._pause(trouble)
                continue
            if trouble:
                log.warning("telegram: polling again")
                trouble = 0.0
            for u in updates:
                self._next = max(self._next, u.update_id + 1)
                if u.update_id not in pending and u.update_id not in taken:
                    pending[u.update_id] = u
            polled = self.clock()
            # Until the next poll, at most every POLL_AGAIN: serve what is due and note what was
            # taken. Polling at every update taken would fetch (and build) every update still in
            # hand again each time, which made a busy bot spend most of its time there.
            while pending and not self._stop.is_set():
                now = self.clock()
                for uid in sorted(pending):
                    if uid not in serving and again_at.get(uid, 0.0) <= now:
                        serving[uid] = asyncio.ensure_future(self.take(pending[uid]))
                next_poll = polled + POLL_AGAIN
                waits = [t - now for uid, t in again_at.items() if uid not in serving] + [next_poll - now]
                timeout = max(0.0, min(waits))
                done: set[asyncio.Task[bool]] = set()
                if serving:
                    done, _ = await asyncio.wait(set(serving.values()), timeout=timeout,
                                                 return_when=asyncio.FIRST_COMPLETED)
                else:
                    await self._pause(timeout)
                for uid, task in list(serving.items()):
                    if task not in done:
                        continue
                    del serving[uid]
                    if _taken(task):
                        pending.pop(uid, None)
                        again_at.pop(uid, None)
                        tries.pop(uid, None)
                        taken.add(uid)
                    else:
                        if not task.cancelled() and task.exception() is not None:
                            log.error("telegram: update %s failed", uid, exc_info=task.exception())
                        tries[uid] = tries.get(uid, 0) + 1
                        again_at[uid] = self.clock() + min(self.retry_first * 2 ** (tries[uid] - 1), RETRY_LAST)
                if self.clock() >= next_poll:
                    break
        # stopping: what is being served finishes, then what was taken is confirmed
        if serving:
            await asyncio.wait(set(serving.values()), timeout=SETTLE_WITHIN)
            for uid, task in serving.items():
                if task.done() and _taken(task):
                    pending.pop(uid, None)
        self.offset = min(pending) if pending else self._next
        with contextlib.suppress(TelegramError):
            await self.app.bot.get_updates(offset=self.offset, timeout=0, limit=1)

    async def _get_updates(self, timeout: int) -> tuple[Update, ...]:
        """One poll from `offset`; returns early (empty) when polling stops."""
        call = asyncio.ensure_future(self.app.bot.get_updates(
            offset=self.offset, timeout=timeout, allowed_updates=Update.ALL_TYPES,
            read_timeout=timeout + 10.0))
        stop = asyncio.ensure_future(self._stop.wait())
        try:
            await asyncio.wait({call, stop}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            stop.cancel()
        if not call.done():
            call.cancel()
            with contextlib.suppress(asyncio.CancelledError, TelegramError):
                await call
            return ()
        return tuple(call.result())

    async def _pause(self, seconds: float) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._stop.wait(), seconds)

    # ----- webhook -----

    async def start_webhook(self) -> None:
        cfg = self.config
        app = web.Application()
        app.router.add_post("/" + urlsplit(cfg.webhook_url).path.lstrip("/"), self._on_post)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        await web.TCPSite(self._runner, cfg.webhook_listen, cfg.webhook_port).start()
        await self.app.bot.set_webhook(cfg.webhook_url, secret_token=cfg.webhook_secret or None,
                                       allowed_updates=Update.ALL_TYPES,
                                       drop_pending_updates=cfg.drop_pending_updates)

    async def _on_post(self, request: web.Request) -> web.Response:
        body = await request.read()  # read whole before any answer: a client may not take one mid-body
        secret = self.config.webhook_secret
        if secret and not hmac.compare_digest(request.headers.get(SECRET_HEADER, ""), secret):
            self.stats.refused += 1
            return web.Response(status=403)
        if self.draining:  # a worker going away takes nothing new: Telegram (or the proxy) tries again
            self.stats.refused += 1
            return web.Response(status=503)
        try:
            data: Any = json.loads(body)
            update = Update.de_json(data, self.app.bot)
        except (ValueError, TypeError, KeyError):
            return web.Response(status=400)
        if update is None:
            return web.Response(status=400)
        task = asyncio.ensure_future(self.take(update))  # finishes even if Telegram hangs up
        self._posts.add(task)
        task.add_done_callback(self._posts.discard)
        ok = await asyncio.shield(task)
        return web.Response(status=200 if ok else 503)

    # ----- stopping -----

    async def stop(self) -> None:
        """Takes nothing new; lets what is in hand be stored and confirmed."""
        self.draining = True
        self._stop.set()
        if self._poller is not None:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._poller
            self._poller = None
        if self._posts:
            await asyncio.wait(set(self._posts), timeout=SETTLE_WITHIN)

    async def close(self) -> None:
        """After `stop`: the webhook's server closes (until then it answered 503)."""
        await self.stop()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None


def _taken(task: asyncio.Task[bool]) -> bool:
    return not task.cancelled() and task.exception() is None and task.result()
