"""Whole matches through the real python-telegram-bot client, the real host and engine, and the fake server."""

from __future__ import annotations

import contextlib
import random
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest

import bot.host
from adapters.telegram.config import FloodLimits, TelegramConfig
from adapters.telegram.run import TelegramRunner
from app.features import build_host
from bot.host import Host
from bot.intents.types import ShowHand
from bot.settings import TableSettings
from fakes.clock import FakeClock
from fakes.players import Sim, leaks, snapshot_of, until
from fakes.telegram_api import BOT_USERNAME, FakeTelegram, Limits
from fakes.telegram_rig import HandledOrder
from persistence.store import SqliteStore

pytestmark = pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")

GROUP = -1009876
SCALE = 0.01  # one Telegram second lasts 10 ms: a minute is 0.6 s, about a human's pace of play
# People get all the time they need; the declaration window closes when all four passed.
SETTINGS = TableSettings(deal=0, declare=30, next=0, turn=0, bury=0, lobby=0)


@dataclass
class World:
    fake: FakeTelegram
    store: SqliteStore
    clock: FakeClock
    sim: Sim


async def boot(fake: FakeTelegram, store: SqliteStore, clock: FakeClock,
               scale: float = SCALE) -> tuple[Host, TelegramRunner]:
    """The start-up sequence `tractor-host run` uses: connect, resume matches, then listen."""
    host = build_host(store, clock=clock, defaults=SETTINGS, use_ai_threads=False)
    config = TelegramConfig(token=fake.token, api_base_url=fake.api_root, poll_timeout=1,
                            limits=FloodLimits(scale=scale))
    runner = TelegramRunner(config, host, order=HandledOrder())
    runner.inbound.answer_deadline = 0.5
    host.register(runner.platform)
    await runner.connect()
    await host.start()
    await runner.listen()
    return host, runner


async def shut(host: Host, runner: TelegramRunner) -> None:
    await runner.stop()
    await host.stop()


@contextlib.asynccontextmanager
async def a_world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, scale: float = SCALE) -> AsyncIterator[World]:
    """The fake server (Telegram's limits on a clock `scale` real seconds a second), the bot booted
    on it and four people, stopped when the block ends."""
    # The host draws each match's seed from the system; a fixed one keeps the test's length
    # (a two-hand match with these people's choices) the same from run to run.
    monkeypatch.setattr(bot.host.random, "SystemRandom", lambda: random.Random(6))
    fake = FakeTelegram(limits=Limits(scale=scale))
    await fake.start()
    fake.add_group(GROUP)
    store, clock = await SqliteStore.open(str(tmp_path / "tractor.sqlite3")), FakeClock()
    host, runner = await boot(fake, store, clock, scale)
    sim = Sim(fake, host, runner, GROUP)
    by_hand: dict[int, set[str]] = {}
    fake.observer = lambda: snapshot_of(sim.host, sim.match_id, by_hand)
    try:
        yield World(fake, store, clock, sim)
    finally:
        await shut(sim.host, sim.runner)
        await store.close()
        await fake.stop()


@pytest.fixture
async def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[World]:
    async with a_world(tmp_path, monkeypatch) as w:
        yield w


@pytest.mark.slow(62)
async def test_real_time_a_whole_hand_keeps_telegrams_limits(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The one Telegram test at real speed: a whole hand through the real client against the fake
    with Telegram's limits on the real clock (a chat's second, a group's minute, the bot's 30 a
    second). Every other Telegram test runs Telegram's clock faster, which shortens its windows but
    not the network's delays; only at real speed does the adapter's headroom meet the jitter of
    real requests as it will in production. The people play inline: by buttons, each card is a
    press and an edit of the hand, a second apiece at Telegram's pace, minutes a hand."""
    async with a_world(tmp_path, monkeypatch, scale=1.0) as w:
        fake, sim = w.fake, w.sim
        sim.button_every = 0
        await sim.open_table("classic target=3")
        await sim.start_until_reachable()
        await sim.play_to_the_end(stop_at_hand=2)
        await sim.runner.platform.drain()
        stored = await w.store.get_match(sim.match_id)
        assert stored is not None
        assert stored.status == "finished" or sim.hand_no() == 2  # the first hand was played out
        assert sim.plays >= 25 and sim.inline_plays == sim.plays
        assert fake.rejected_429 == 0
        assert leaks(fake, sim.users, GROUP) == []
        assert sim.runner.inbound.errors == []
        presses = [u["callback_query"]["id"] for u in fake._all_updates if "callback_query" in u]
        assert set(presses) <= set(fake.callback_answers)
        assert len(fake.calls_of("answerCallbackQuery")) == len(presses)


@pytest.mark.slow(26)
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
    assert sim.plays >= 40 and sim.inline_plays and sim.button_plays
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

    # The finished match is in the league: standings come back as text and a picture.
    before = len(fake.calls)
    await sim.command(sim.users[0], GROUP, "/standings")
    await sim.runner.platform.drain()
    out = [c for c in fake.calls[before:] if c.params.get("chat_id") == GROUP and c.ok]
    assert any(c.method == "sendMessage" for c in out)
    photos = [c for c in out if c.method == "sendPhoto"]
    assert photos and photos[0].params["photo"]["data"].startswith(b"\x89PNG")


@pytest.mark.slow(8)
async def test_restart_mid_hand_resumes_on_the_same_messages(world: World) -> None:
    fake, sim = world.fake, world.sim
    await sim.open_table("classic target=3")
    await sim.start_until_reachable()
    await sim.play_to_the_end(stop_after_plays=30)
    await sim.runner.platform.drain()
    assert sim.table.match.phase == "playing"
    hand_no, version = sim.hand_no(), sim.table.match.version
    table_mid = sim.table.messages["table"]
    hand_mids = {uid: sim.hand_message(uid) for uid in sim.users}
    calls_before = len(fake.calls)

    await shut(sim.host, sim.runner)  # the process goes away mid-hand ...
    sim.host, sim.runner = await boot(fake, world.store, world.clock)  # ... and comes back
    await sim.settle()
    table = sim.table
    assert table.match.version == version and table.messages["table"] == table_mid
    await sim.play_to_the_end(stop_after_plays=50)
    assert sim.hand_no() == hand_no
    await sim.runner.platform.drain()

    after = fake.calls[calls_before:]
    resent = [c for c in after if c.method == "sendMessage" and c.params.get("reply_markup")
              and c.params["chat_id"] in sim.users]
    assert resent == []  # hands were edited in place, not sent again
    group_edits = [c for c in after if c.method == "editMessageText" and c.params["chat_id"] == GROUP]
    assert any(str(c.params["message_id"]) == table_mid for c in group_edits)
    for uid, mid in hand_mids.items():
        assert sim.hand_message(uid) == mid
    assert leaks(fake, sim.users, GROUP) == []
    # The new process does not know what the old one sent in the last minute: Telegram may
    # answer 429 right after a restart; each one was waited out and nothing was lost.
    stats = sim.runner.platform.outboxes.stats
    assert stats.retry_after == fake.rejected_429 and stats.failures == 0
    assert sim.runner.inbound.errors == []


@pytest.mark.slow(7)
async def test_stale_forged_strangers_and_repeats_change_nothing(world: World) -> None:
    fake, sim = world.fake, world.sim
    await sim.open_table("classic target=3")
    await sim.start_until_reachable()
    await sim.play_to_the_end(stop_after_plays=2)
    table = sim.table
    seat = table.match.to_act()[0]
    uid = sim.uid(table, seat)
    await sim.fresh(uid)
    hand_mid = sim.hand_message(uid)
    old_play = next(b["callback_data"] for b in fake.buttons_on(uid, hand_mid) if b["text"] == "Play")
    await sim.play_to_the_end(stop_after_plays=6)
    version = table.match.version

    # A stale button: the Play button of a view four plays old (the client still showed it).
    update_id, qid = fake.press(uid, uid, hand_mid, old_play, check=False)
    await sim.handled(update_id)
    await until(lambda: qid in fake.callback_answers)
    stale = fake.callback_answers[qid]
    assert "older view" in stale["text"], stale
    # A forged one: a made-up token.
    update_id, qid = fake.press(uid, uid, hand_mid, "1.1.0.p..zz", check=False)
    await sim.handled(update_id)
    await until(lambda: qid in fake.callback_answers)
    assert "not valid" in fake.callback_answers[qid]["text"]
    # A stranger presses the group's "My hand".
    fake.add_user(999, "Zed")
    mid, my_hand = sim.buttons(GROUP, code=ShowHand)[-1]
    update_id, qid = fake.press(999, GROUP, mid, my_hand["callback_data"])
    await sim.handled(update_id)
    await until(lambda: qid in fake.callback_answers)
    assert fake.callback_answers[qid]["text"]  # refused with a reason
    assert table.match.version == version

    # A repeated update (Telegram delivers it again) changes nothing.
    play_updates = [u["update_id"] for u in fake._all_updates if "chosen_inline_result" in u]
    fake.redeliver(play_updates[-1])
    await sim.handled(play_updates[-1])
    assert table.match.version == version
    await sim.runner.platform.drain()
    assert leaks(fake, sim.users, GROUP) == []
    assert sim.runner.inbound.errors == []
