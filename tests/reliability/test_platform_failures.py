"""Platform failures: the fake answers with timeouts, 502s and dropped connections.

The adapter retries each call a bounded number of times with backoff; the
match log never loses or doubles an action (the host persists before it
speaks); and once Telegram is healthy again, the group's table message and
the player's private hand show the current state.

A timeout is the client's own (aiohttp's, on the real clock), so these tests keep real time: the client
waits `TIMEOUT` seconds, and a call the fake holds back waits longer than that. Both are far above
what a loaded machine takes to answer (0.2 s once failed a healthy call at boot beside other work).
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from adapters.telegram.config import FloodLimits
from bot.cardtext import card_text, cards_text
from bot.settings import TableSettings
from bot.table import Table
from fakes.clock import FakeClock
from fakes.telegram_api import FakeTelegram
from fakes.telegram_rig import RIG_SCALE, Rig, booted, to_a_persons_turn, until

pytestmark = pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")

SETTINGS = TableSettings(deal=0, declare=1, bury=1, turn=0, next=0, lobby=0, away_after=0)
GROUP, ANN = -3001, 201
# Backoff shortened so a test need not wait out real seconds (the defaults are 0.25 s doubling to 4 s).
FAST_RETRY = FloodLimits(scale=RIG_SCALE, retry_base=0.01, retry_cap=0.05)
TIMEOUT = 1.0


async def open_table(rig: Rig, clock: FakeClock) -> Table:
    fake = rig.fake
    fake.add_user(ANN, "Ann", opened=True)
    fake.add_group(GROUP)
    # the whole way to A: from 2, one hand takes no team there (target=5 ended a match after its first
    # hand when the defenders took under 20 points, and the outage test found no second hand)
    await rig.handled(fake.command(ANN, GROUP, "/new classic"),
                      *[fake.command(ANN, GROUP, "/addbot random") for _ in range(3)])
    await rig.handled(fake.command(ANN, GROUP, "/start"))
    table = rig.host.by_chat[("telegram", str(GROUP))]
    await to_a_persons_turn(rig, clock, [table])
    return table


async def ann_plays(rig: Rig, clock: FakeClock, table: Table) -> None:
    """Ann types her (legal) play in her private chat; then the AIs answer until it is her turn again."""
    s = table.seat_of(str(ANN))
    assert s is not None
    play = table.match.auto_action(s).to_json()
    version = table.match.version
    await rig.handled(rig.fake.send_text(ANN, ANN, "play " + cards_text(play["cards"])))
    assert table.match.version > version
    if table.status == "active":
        await to_a_persons_turn(rig, clock, [table])


def shown(fake: FakeTelegram, chat: int, message_id: str) -> str:
    return fake.messages[(chat, int(message_id))].text


def rendered(table: Table, chat: int, slot: str) -> str:
    """The text the host last had shown in a slot: the Telegram door's record (written once Telegram has it)."""
    sig = table.platform.shown.get(str(chat), table.messages[slot])
    assert sig is not None, slot
    return str(sig[0])


def consistent(rig: Rig, table: Table) -> None:
    """What people see is what the host last rendered: the table in the group, Ann's hand in private
    (with every card she holds now)."""
    s = table.seat_of(str(ANN))
    assert s is not None
    assert shown(rig.fake, GROUP, table.messages["table"]) == rendered(table, GROUP, "table")
    hand = shown(rig.fake, ANN, table.messages[f"hand{s}"])
    assert hand == rendered(table, ANN, f"hand{s}")
    assert all(card_text(c) in hand for c in table.match.view(s)["hand"])


@pytest.mark.slow(14)
async def test_faults_are_retried_and_nothing_is_lost(tmp_path: Path) -> None:
    clock = FakeClock()
    async with booted(str(tmp_path / "faults.sqlite3"), clock=clock, settings=SETTINGS, limits=FAST_RETRY,
                      request_timeout=TIMEOUT) as rig:
        fake = rig.fake
        table = await open_table(rig, clock)
        rng = random.Random(9)
        injected = 0
        for _ in range(25):
            kind = rng.choice(["5xx", "drop", "timeout"])
            method = rng.choice(["sendMessage", "editMessageText", "answerCallbackQuery", None])
            count = rng.randint(1, 3)
            # 1-3 faults in a row: those of a method that had no call since (sends are rare now that
            # an accepted typed play gets no "✓") must not pile up into a longer outage
            fake.clear_faults()
            fake.inject(kind, method=method, count=count, delay=TIMEOUT * 1.3)
            injected += count
            await ann_plays(rig, clock, table)
            if table.status != "active":
                break
        await rig.settle()
        stored = await rig.store.get_match(table.id)
        assert stored is not None
        assert stored.actions == table.match.actions_json()  # every acknowledged action kept, none twice
        assert stored.version == table.match.version
        assert rig.errors == []
        stats = rig.runner.platform.outboxes.stats
        failed = [c for c in fake.calls if c.status in (502, 0) or (c.method == "sendMessage" and not c.ok)]
        assert failed and stats.failures == 0  # every fault was absorbed by a retry
        consistent(rig, table)


async def test_a_long_outage_ends_with_a_consistent_table(tmp_path: Path) -> None:
    clock = FakeClock()
    async with booted(str(tmp_path / "outage.sqlite3"), clock=clock, settings=SETTINGS, limits=FAST_RETRY,
                      request_timeout=TIMEOUT) as rig:
        fake = rig.fake
        table = await open_table(rig, clock)
        await ann_plays(rig, clock, table)
        # Telegram is down for longer than one call's retries: every edit fails for a while.
        fake.inject("5xx", method="editMessageText", count=40)
        version = table.match.version
        s = table.seat_of(str(ANN))
        assert s is not None
        play = table.match.auto_action(s).to_json()
        await rig.handled(fake.send_text(ANN, ANN, "play " + cards_text(play["cards"])))
        assert table.match.version > version
        await to_a_persons_turn(rig, clock, [table])
        await rig.settle()
        # ... and then it is back: no one acts, yet the table and the hand catch up.
        assert not any(f.remaining for f in fake._faults)
        stored = await rig.store.get_match(table.id)
        assert stored is not None and stored.actions == table.match.actions_json()
        consistent(rig, table)
        assert rig.errors == []


async def test_a_new_hands_table_message_appears_after_an_outage(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("bot.table.render.RENDER_RETRY", 0.05)
    clock = FakeClock()
    async with booted(str(tmp_path / "send-outage.sqlite3"), clock=clock, settings=SETTINGS,
                      limits=FAST_RETRY, request_timeout=TIMEOUT) as rig:
        fake = rig.fake
        table = await open_table(rig, clock)
        s = table.seat_of(str(ANN))
        assert s is not None
        while len(table.match.view(s)["hand"]) > 1:  # up to Ann's last card of hand 1
            await ann_plays(rig, clock, table)
        first_table_message = table.messages["table"]
        # No message can be posted while the hand ends and the next one is dealt.
        fake.inject("5xx", method="sendMessage", count=10**6)
        await ann_plays(rig, clock, table)
        assert table.match.public_view()["hand_no"] == 2, (
            table.status, table.match.phase, table.match.to_act(), dict(table.timers.deadlines), clock.now())
        assert "table" not in table.messages  # hand 2's table message could not be posted
        fake.clear_faults()
        await until(lambda: "table" in table.messages and table.screen.shown("table") is not None)
        await rig.settle()
        assert table.messages["table"] != first_table_message
        consistent(rig, table)
        stored = await rig.store.get_match(table.id)
        assert stored is not None and stored.actions == table.match.actions_json()
        assert stored.messages["table"] == table.messages["table"]
        assert rig.errors == []
