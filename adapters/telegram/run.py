"""Starting and stopping the Telegram side inside an already running event loop.

`run_polling()` owns its loop, so it cannot serve a host that shares the
loop with other adapters (or a test). The sequence here can:

    runner = TelegramRunner(config, host)
    host.register(runner.platform)
    await runner.connect()      # getMe: the bot's name, for deep links
    await host.start()          # resume matches, re-render their messages
    await runner.listen()       # long polling (default) or the webhook
    ...
    await runner.stop()
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable

from telegram.error import InvalidToken, NetworkError, TelegramError
from telegram.ext import Application, ApplicationBuilder

from adapters.telegram.config import TelegramConfig
from adapters.telegram.flood import FloodGate
from adapters.telegram.inbound import HostPort, Inbound, PerChatOrder
from adapters.telegram.intake import Intake
from adapters.telegram.menu import set_menus
from adapters.telegram.platform import PLATFORM, TelegramPlatform
from adapters.telegram.request import BotApiRequest, PollingRequest
from adapters.telegram.shared_flood import Ledger, SharedBudget
from bot.commands import Registry
from bot.platform import CredentialsRefused, PlatformDown

log = logging.getLogger(__name__)

DRAIN_ON_STOP = 10.0
# How often (real seconds) the flood gate's counts are written to the store while messages go out:
# a crash loses at most this much of them, within the one message of headroom the limits keep.
JOURNAL_EVERY = 0.2
JOURNAL = "flood"
# Bot API connections kept open. Telegram takes about 30 messages a second from a bot and answers
# in well under a second, so 16 calls in flight is room to spare.
CONNECTIONS = 16


class TelegramRunner:
    """Owns the python-telegram-bot Application, the platform object and the inbound handlers."""

    def __init__(self, config: TelegramConfig, host: HostPort, *,
                 clock: Callable[[], float] = time.monotonic, request_timeout: float = 10.0,
                 order: PerChatOrder | None = None, ledger: Ledger | None = None) -> None:
        """`ledger`: the flood budgets shared with the other workers of this bot (PostgreSQL)."""
        self.config = config
        self.order = order if order is not None else PerChatOrder()
        polling = PollingRequest(read_timeout=config.poll_timeout + 10.0)
        calls = BotApiRequest(CONNECTIONS, read_timeout=request_timeout, write_timeout=request_timeout,
                              connect_timeout=request_timeout)
        self.app: Application = self._build(config, self.order, calls, polling)  # type: ignore[type-arg]
        gate = FloodGate(config.limits, clock)
        if ledger is not None:
            gate.shared = SharedBudget(ledger, config.limits, clock)
        self.platform = TelegramPlatform(self.app.bot, gate)
        self.inbound = Inbound(host, self.platform)
        self.intake = Intake(self.app, config, self.inbound.receipts)
        polling.held = self.intake.holds
        for handler in self.inbound.handlers():
            self.app.add_handler(handler)
        self.app.add_error_handler(self.inbound.on_error)
        self._listening = False
        self.host = host
        self._journal_task: asyncio.Task[None] | None = None

    @staticmethod
    def _build(config: TelegramConfig, order: PerChatOrder, calls: BotApiRequest,
               polling: PollingRequest) -> Application:  # type: ignore[type-arg]
        builder = (
            ApplicationBuilder()
            .token(config.token)
            .base_url(config.base_url)
            .base_file_url(config.base_file_url)
            .request(calls)
            .get_updates_request(polling)
            .concurrent_updates(order)
        )
        return builder.build()

    async def connect(self) -> None:
        """Initialise the client (getMe); after this, join links know the bot's name.

        :raises CredentialsRefused: Telegram refused the token (wrong or revoked).
        :raises PlatformDown: Telegram could not be reached (worth trying again later).
        """
        try:
            await self.app.initialize()
        except InvalidToken:  # its message quotes the token: it goes no further
            await self._close_clients()
            raise CredentialsRefused(PLATFORM, "the Bot API refused the token in TELEGRAM_BOT_TOKEN (wrong or"
                                     " revoked); copy the current one from @BotFather (/mybots, your bot,"
                                     " API Token) and start again") from None
        except NetworkError as exc:  # no network, DNS, a time-out, a 5xx
            await self._close_clients()
            raise PlatformDown(PLATFORM, f"{type(exc).__name__}: {exc}") from None
        gate = self.platform.outboxes.gate
        gate.restore(await self.host.load_journal(PLATFORM, JOURNAL), time.time())
        self._journal_task = asyncio.get_running_loop().create_task(self._keep_journal())

    async def _close_clients(self) -> None:
        """PTB leaves its HTTP clients open when getMe fails; an open aiohttp session at exit is
        reported as an error. The next attempt opens them again."""
        await self.app.bot.shutdown()

    async def _keep_journal(self) -> None:
        """Write the flood gate's counts to the store whenever they changed, a few times a second."""
        stats = self.platform.outboxes.stats
        written = -1
        while True:
            await asyncio.sleep(JOURNAL_EVERY)
            counted = stats.sent + stats.edited + stats.retry_after
            if counted != written:
                written = counted
                await self._write_journal()

    async def _write_journal(self) -> None:
        try:
            await self.host.save_journal(PLATFORM, JOURNAL, self.platform.outboxes.gate.journal(time.time()))
        except Exception as exc:  # the store is closing or failing: the journal is a help, not a must
            log.warning("telegram: flood journal not written (%s: %s)", type(exc).__name__, exc)

    async def listen(self) -> None:
        """Start taking updates: long polling, or the webhook when one is configured; either way an
        update is confirmed to Telegram only once it is stored (adapters/telegram/intake.py)."""
        await self.app.start()
        cfg = self.config
        if cfg.mode == "webhook":
            await self.intake.start_webhook()
        else:
            await self.intake.start_polling()
        self._listening = True
        log.info("telegram: @%s listening (%s)", self.platform.username, cfg.mode)

    async def until_refused(self) -> None:
        """Returns never, unless Telegram refuses the token while the bot runs (revoked).

        :raises CredentialsRefused: then.
        """
        await self.intake.refused.wait()
        raise CredentialsRefused(PLATFORM, "the Bot API refused the token in TELEGRAM_BOT_TOKEN while polling"
                                 " (revoked?); copy the current one from @BotFather and start again")

    async def stop_taking(self) -> None:
        """Takes no new update (the webhook answers 503, polling stops); what is in hand is stored
        and confirmed. The first step of a clean stop, before the tables are handed over."""
        await self.intake.stop()

    async def start(self) -> None:
        """connect() and listen() in one go, for callers whose host is already running."""
        await self.connect()
        await self.listen()

    async def set_menus(self, registry: Registry) -> None:
        """The "/" menus of group and private chats in each language, from the host's commands; a
        chat that later chooses its language gets its own (adapters/telegram/menu.py). A menu
        Telegram does not take is logged: the bot works without one."""
        self.platform.menus = registry
        try:
            await set_menus(self.app.bot, registry)
        except TelegramError:
            log.warning("telegram: the command menus were not set", exc_info=True)

    async def stop(self) -> None:
        """Stop taking updates, let queued messages go out, then close the client."""
        await self.intake.close()
        if self._listening:
            await self.app.stop()
            self._listening = False
        await self.inbound.settle()
        try:
            await asyncio.wait_for(self.platform.drain(), DRAIN_ON_STOP)
        except TimeoutError:
            log.warning("telegram: stopped with messages still queued")
        if self._journal_task is not None:
            self._journal_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._journal_task
            self._journal_task = None
            await self._write_journal()
        if self.platform.outboxes.gate.shared is not None:
            await self.platform.outboxes.gate.shared.close()
        await self.platform.close()
        await self.app.shutdown()
