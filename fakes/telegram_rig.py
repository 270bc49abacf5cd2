"""The whole bot against the fake Bot API server: host, SQLite store, Telegram adapter, real client.

Shared by the reliability tests and the load benchmarks (benchmarks/ imports it),
so both drive exactly what `tractor-host run` runs.
"""

from __future__ import annotations

import asyncio
import contextlib
import warnings
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from telegram import Update
from telegram.warnings import PTBDeprecationWarning

from adapters.telegram.config import FloodLimits, TelegramConfig
from adapters.telegram.inbound import PerChatOrder
from adapters.telegram.run import TelegramRunner
from app.features import build_host
from app.store import open_store
from bot.host import Host
from bot.settings import TableSettings
from fakes.telegram_api import FakeTelegram, Limits

warnings.filterwarnings("ignore", category=PTBDeprecationWarning)

# The adapter's own flood limits, so loose they never hold anything back (limits off).
NO_LIMITS = FloodLimits(scale=1e-6, chat_burst=10**6, group_per_minute=10**9, group_edits_per_minute=10**9,
                        global_per_second=10**9, global_group_edits_per_second=10**9)
# The rig's Telegram clock: one Telegram second lasts 10 ms, so a group's minute is 0.6 s, about the
# pace of people playing; the fake enforces Telegram's limits on it and the adapter keeps to them.
RIG_SCALE = 0.01
RIG_LIMITS = Limits(scale=RIG_SCALE)


async def until(predicate: Callable[[], bool], timeout: float = 30.0, step: float = 0.002) -> None:
    """Wait (polling the loop) until the predicate holds."""
    async with asyncio.timeout(timeout):
        while not predicate():
            await asyncio.sleep(step)


class HandledOrder(PerChatOrder):
    """The adapter's update order, remembering which updates it has handled, so a rig can wait for them."""

    def __init__(self) -> None:
        super().__init__()
        self.done: OrderedDict[int, None] = OrderedDict()  # recently handled update ids
        self._handled = asyncio.Event()  # set whenever an update is done

    async def do_process_update(self, update: object, coroutine: Awaitable[Any]) -> None:
        try:
            await super().do_process_update(update, coroutine)
        finally:
            if isinstance(update, Update):
                self.done[update.update_id] = None
                while len(self.done) > 10_000:
                    self.done.popitem(last=False)
                self._handled.set()

    async def wait_for(self, update_ids: Iterable[int], timeout: float = 60.0) -> None:
        """Wakes each time an update is done until all of `update_ids` are; `timeout` guards only."""
        wanted = set(update_ids)
        async with asyncio.timeout(timeout):
            while not all(u in self.done for u in wanted):
                self._handled.clear()
                await self._handled.wait()


@dataclass
class Rig:
    """One bot process's worth of objects, in this event loop."""

    fake: FakeTelegram
    store: Any
    host: Host
    runner: TelegramRunner
    db: str
    pushed: list[int] = field(default_factory=list)

    @property
    def errors(self) -> list[BaseException]:
        return self.runner.inbound.errors

    async def settle(self) -> None:
        """Every update handed over, every table idle, every message out."""
        for _ in range(3):
            await self.runner.inbound.settle()
            await self.host.settle()
            await self.runner.platform.drain()

    async def handled(self, *update_ids: int, timeout: float = 60.0) -> None:
        order = self.runner.order
        assert isinstance(order, HandledOrder), "boot the runner with order=HandledOrder()"
        await order.wait_for(update_ids, timeout)
        await self.settle()

    async def command(self, uid: int, chat_id: int, text: str) -> None:
        await self.handled(self.fake.command(uid, chat_id, text))

    async def stop(self) -> None:
        await self.runner.stop()
        await self.host.stop()
        await self.store.close()


async def boot(fake: FakeTelegram, db: str, *, clock: Any = None, settings: TableSettings | None = None,
               limits: FloodLimits | None = None, synchronous: str | None = "NORMAL",
               request_timeout: float = 10.0, answer_deadline: float = 0.5, ai_threads: bool = False,
               gate_clock: Callable[[], float] | None = None) -> Rig:
    """The start-up sequence of `tractor-host run`: open the store, connect, resume matches, listen.

    `fake` needs only `token` and `api_root` (the load benchmark passes a server in another process).
    ai_threads=False: AI seats make the engine's quick move (deterministic tests); True: as `run`
    does (engine.ai, quick levels on the loop, slow ones in worker threads). Without `limits` the
    adapter keeps to the fake's own limits (on its clock), or to none when the fake has them off.
    `gate_clock`: the adapter's flood gate's clock (real time unless given)."""
    if limits is None:
        fake_limits = getattr(fake, "limits", None)
        limits = FloodLimits(scale=fake_limits.scale) if fake_limits is not None else NO_LIMITS
    store = await open_store(db, synchronous=synchronous)
    host = build_host(store, clock=clock, defaults=settings, use_ai_threads=ai_threads)
    config = TelegramConfig(token=fake.token, api_base_url=fake.api_root, poll_timeout=1, limits=limits)
    runner = TelegramRunner(config, host, request_timeout=request_timeout, order=HandledOrder(),
                            **({"clock": gate_clock} if gate_clock is not None else {}))
    runner.inbound.answer_deadline = answer_deadline
    host.register(runner.platform)
    await runner.connect()
    await runner.set_menus(host.registry)
    await host.start()
    await runner.listen()
    return Rig(fake, store, host, runner, db)


async def start_fake(limits: Limits | None = RIG_LIMITS) -> FakeTelegram:
    """The fake server, strict (Telegram's limits on the rig's clock) unless told `limits=None`."""
    fake = FakeTelegram(limits=limits)
    await fake.start()
    return fake


async def stop_fake(fake: FakeTelegram) -> None:
    with contextlib.suppress(Exception):
        await fake.stop()


@contextlib.asynccontextmanager
async def booted(db: str, *, settings: TableSettings | None = None, clock: Any = None,
                 limits: FloodLimits | None = None, request_timeout: float = 10.0,
                 gate_clock: Callable[[], float] | None = None) -> AsyncIterator[Rig]:
    """A strict fake server (`start_fake()`) and the bot booted on it, both stopped when the block ends.

    Most Telegram tests run one bot on one fake from start to end; this keeps their start and
    their clean-up (also after a failed assert) in one place. Tests that restart the bot boot it themselves.
    """
    fake = await start_fake()
    try:
        rig = await boot(fake, db, clock=clock, settings=settings, limits=limits, request_timeout=request_timeout,
                         gate_clock=gate_clock)
        try:
            yield rig
        finally:
            await rig.stop()
    finally:
        await stop_fake(fake)


async def open_ai_table(rig: Rig, owner: int, group: int, *, options: str = "classic target=3",
                        level: str = "random", start: bool = True) -> int:
    """A table of four AIs opened through group commands; returns its match id."""
    fake = rig.fake
    fake.add_group(group)
    if owner not in fake.users:
        fake.add_user(owner, f"U{owner}", opened=True)
    ids = [fake.command(owner, group, f"/new {options}"), fake.command(owner, group, "/leave")]
    ids += [fake.command(owner, group, f"/addbot {level}") for _ in range(4)]
    if start:
        ids.append(fake.command(owner, group, "/start"))
    await rig.handled(*ids)
    table = rig.host.by_chat.get(("telegram", str(group)))
    if table is not None:
        return table.id
    stored = await rig.store.list_matches("telegram", str(group))
    assert stored, f"no table in {group}"
    return int(stored[0]["id"])


async def to_a_persons_turn(rig: Rig, clock: Any, tables: list[Any], *, rounds: int = 300) -> None:
    """Moves a fake clock through deal, declaration and bury windows until a person must play at every table."""
    for _ in range(rounds):
        if all(t.match is not None and t.match.phase == "playing"
               and all(not t.seats.ai_driven(s) for s in t.match.to_act()) for t in tables):
            return
        clock.advance(1.5)
        await rig.settle()
    raise AssertionError("tables never reached a person's turn")
