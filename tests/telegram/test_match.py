"""Whole matches through the real python-telegram-bot client, the real host and engine, and the fake server."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest

from adapters.telegram.config import FloodLimits, TelegramConfig
from adapters.telegram.run import TelegramRunner
from bot.clock import FakeClock
from bot.host import Host
from bot.memstore import MemoryStore
from bot.settings import TableSettings
from tests.fakes.telegram_api import BOT_USERNAME, FakeTelegram, Limits
from tests.telegram.players import Sim, leaks, snapshot_of

pytestmark = pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")

GROUP = -1009876
SCALE = 0.05  # one Telegram second lasts 50 ms: a minute is three seconds
# People get all the time they need; the declaration window closes when all four passed.
SETTINGS = TableSettings(deal=0, declare=30, next=0, turn=0, bury=0, lobby=0)


@dataclass
class World:
    fake: FakeTelegram
    store: MemoryStore
    clock: FakeClock
    sim: Sim


async def boot(fake: FakeTelegram, store: MemoryStore, clock: FakeClock) -> tuple[Host, TelegramRunner]:
    """The start-up sequence `tractor-host run` uses: connect, resume matches, then listen."""
    host = Host(store, clock=clock, defaults=SETTINGS, use_ai_threads=False)
    config = TelegramConfig(token=fake.token, api_base_url=fake.api_root, poll_timeout=1,
                            limits=FloodLimits(scale=SCALE))
    runner = TelegramRunner(config, host)
    runner.inbound.answer_deadline = 0.5
    host.register(runner.platform)
    await runner.connect()
    await host.start()
    await runner.listen()
    return host, runner


async def shut(host: Host, runner: TelegramRunner) -> None:
    await runner.stop()
    await host.stop()


@pytest.fixture
async def world() -> AsyncIterator[World]:
    fake = FakeTelegram(limits=Limits(scale=SCALE))
    await fake.start()
    fake.add_group(GROUP)
    store, clock = MemoryStore(), FakeClock()
    host, runner = await boot(fake, store, clock)
    sim = Sim(fake, host, runner, GROUP)
    by_hand: dict[int, set[str]] = {}
    fake.observer = lambda: snapshot_of(sim.host, sim.match_id, by_hand)
    yield World(fake, store, clock, sim)
    await shut(sim.host, sim.runner)
    await fake.stop()


async def test_a_short_match_played_only_through_telegram_updates(world: World) -> None:
    fake, sim = world.fake, world.sim
    await sim.open_table("classic target=3")
    told = await sim.start_until_reachable()
    assert told and f"https://t.me/{BOT_USERNAME}" in told[0]
    assert sim.table.status == "active"
    hand_ids = {uid: sim.hand_message(uid) for uid in sim.users}

    await sim.play_to_the_end()
    await sim.runner.platform.drain()

    stored = await world.store.get_match(sim.match_id)
    assert stored is not None and stored.status == "finished"
    assert stored.result is not None
    assert sim.plays >= 100 and sim.inline_plays and sim.button_plays
    # The private hand message was edited in place all match long, never re-sent.
    for uid, mid in hand_ids.items():
        assert stored.messages[f"hand{sim.seat_of(uid)}"] == str(mid)
        assert fake.messages[(uid, mid)].edits > 50
    assert leaks(fake, sim.users, GROUP) == []
    assert fake.rejected_429 == 0
    assert sim.runner.inbound.errors == []
    # Every press was answered exactly once.
    presses = [u["callback_query"]["id"] for u in fake._all_updates if "callback_query" in u]
    assert set(presses) <= set(fake.callback_answers)
    assert len(fake.calls_of("answerCallbackQuery")) == len(presses)
