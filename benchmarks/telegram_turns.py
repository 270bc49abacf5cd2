"""Turn lag and API calls per play over whole hands, with Telegram's limits on, at people's pace.

Four simulated people play through the real python-telegram-bot client, the real host, engine and
SQLite store, against the strict fake Bot API server (flood limits, query time limits). A person
notices it is their turn only from what reaches them: the private turn notice (a new message,
which rings their phone), or the mention of them in the play the person before them posted from the
group. They then think for 1-3 s and play,
two plays in three from the group (inline mode), one in three with their private hand's buttons.

    python -m benchmarks.telegram_turns [--hands 1] [--scale 1.0] [--seed 6] [--match]
                                        [--restarts 2] [--idle 960]

`--match` plays a whole `classic target=3` match instead of `--hands`. `--restarts N` stops the bot N
times during play, evenly spread (the store, the fake and its pending updates stay; a new host and
adapter boot on them, as after a crash), and `--idle S` leaves the table idle S Telegram seconds once,
between the restarts (Discord's interaction tokens last 15 minutes; Telegram's buttons do not expire,
and a press answered later than about 10 s is refused by the fake). Clicks: the updates people send
while playing (button presses, inline queries, chosen results) a play; a press refused as out of date
or expired is an extra click.

`--scale` is how many real seconds one Telegram second lasts (1.0: real time, which is what the
figures in docs/telegram.md use); the deal is paced as `tractor-host run` paces it.
Turn lag: from the moment the previous play reached Telegram (its update was pushed) to the first
message that told the next player, in Telegram seconds.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import random
import statistics
import sys
import tempfile
import time
import warnings
from dataclasses import dataclass, field
from typing import Any

import bot.host
from adapters.telegram.config import FloodLimits, TelegramConfig
from adapters.telegram.run import TelegramRunner
from app.features import build_host
from bot.intents import codec
from bot.intents.types import Pass
from bot.settings import TableSettings
from fakes.players import Sim, until
from fakes.telegram_api import BOT_ID, ApiCall, FakeTelegram, Limits
from fakes.telegram_rig import HandledOrder
from persistence.store import SqliteStore

GROUP = -1007777
NOTICE = "🔔"


@dataclass
class Figures:
    plays: int = 0
    lags: list[float] = field(default_factory=list)
    calls: dict[str, int] = field(default_factory=dict)  # kind -> calls during play
    deal_group_calls: int = 0
    rejected_429: int = 0
    seconds: float = 0.0
    clicks: int = 0  # presses, inline queries and chosen results during play
    refused: int = 0  # presses answered as out of date or expired (extra clicks)
    restarts: int = 0
    hands: int = 0
    across: list[float] = field(default_factory=list)  # turn lags that spanned a restart or the idle time


def _kind(call: ApiCall) -> str:
    if call.method == "answerCallbackQuery":
        return "callback answers"
    if call.method == "answerInlineQuery":
        return "inline answers"
    chat = int(call.params.get("chat_id", 0) or 0)
    where = "group" if chat < 0 else "private"
    return f"{where} {call.method}"


def _told_at(fake: FakeTelegram, uid: int, since: float) -> float | None:
    """When a message first told `uid` it is their turn after `since`: the private notice, or the
    mention of them in a play the person before them posted from the group."""
    told = [at for at, _, who in fake.mentions if who == uid and at >= since][:1]
    for call in fake.calls:
        if call.at < since or not call.ok or call.method != "sendMessage":
            continue
        if int(call.params.get("chat_id", 0) or 0) == uid and str(call.params.get("text", "")).startswith(NOTICE):
            told.append(call.at)
            break
    return min(told) if told else None


CLICKS = ("callback_query", "inline_query", "chosen_inline_result")
REFUSED = ("older view", "earlier turn", "expired", "失效", "过期")


async def boot(fake: FakeTelegram, db: str, settings: TableSettings, scale: float) -> tuple[SqliteStore, Any, Any]:
    """What `tractor-host run` starts: the store, the host (resuming every table) and the adapter."""
    store = await SqliteStore.open(db)
    host = build_host(store, defaults=settings, use_ai_threads=False)
    config = TelegramConfig(token=fake.token, api_base_url=fake.api_root, poll_timeout=1,
                            limits=FloodLimits(scale=scale))
    runner = TelegramRunner(config, host, order=HandledOrder())
    host.register(runner.platform)
    await runner.connect()
    await host.start()
    await runner.listen()
    return store, host, runner


async def play_hands(hands: int, scale: float, rng: random.Random, *, match: bool = False, restarts: int = 0,
                     idle: float = 0.0) -> Figures:
    fake = FakeTelegram(limits=Limits(scale=scale))
    await fake.start()
    fake.add_group(GROUP)
    tmp = tempfile.TemporaryDirectory()
    db = os.path.join(tmp.name, "turns.sqlite3")
    # The host's clock is real time: the deal is paced, declaration windows close on their own.
    settings = TableSettings(deal=0.6 * scale, declare=8 * scale, next=5 * scale, turn=0, bury=0, lobby=0)
    store, host, runner = await boot(fake, db, settings, scale)
    sim = Sim(fake, host, runner, GROUP)
    out = Figures()
    started = time.perf_counter()
    # plays after which the bot restarts, and the one after which the table idles (between them)
    every = 76 * (hands if not match else 3) // (restarts + 1)
    restart_at = [every * (k + 1) for k in range(restarts)]
    idle_at = every * (restarts + 1) // 2 + every // 4 if idle else -1
    spanned = False
    try:
        await sim.open_table("classic target=3" if match else "classic target=A")
        await sim.start_until_reachable()
        table = sim.table
        m = table.match
        deal_from = len(fake.calls)
        while m.phase == "dealing" or (m.phase == "declaring" and not m.to_act()):
            await asyncio.sleep(0.02)
        out.deal_group_calls = sum(1 for c in fake.calls[deal_from:]
                                   if c.ok and int(c.params.get("chat_id", 0) or 0) == GROUP
                                   and c.method in ("sendMessage", "editMessageText"))
        play_from = len(fake.calls)
        last_play_at = fake.clock()
        first_hand = int(m.public_view().get("hand_no", 1))
        clicks_from = len(fake._all_updates)
        while (match or int(m.public_view().get("hand_no", 1)) < first_hand + hands) and m.phase != "match_over":
            if restart_at and out.plays >= restart_at[0]:
                restart_at.pop(0)
                await runner.stop()
                await host.stop()
                await store.close()
                store, host, runner = await boot(fake, db, settings, scale)
                sim.host, sim.runner = host, runner
                table = sim.table
                m = table.match
                out.restarts += 1
                spanned = True
            if out.plays == idle_at:
                idle_at = -1
                await asyncio.sleep(idle * scale)
                spanned = True  # that turn's lag holds the idle time: kept apart
            to_act = m.to_act()
            if not to_act or m.phase not in ("playing", "burying", "declaring"):
                await asyncio.sleep(0.02)
                continue
            seat = to_act[0]
            uid = sim.uid(table, seat)
            if m.phase == "declaring":
                await _pass(sim, uid)
                continue
            await until(lambda u=uid, t=last_play_at: _told_at(fake, u, t) is not None, 60)  # type: ignore[misc]
            told = _told_at(fake, uid, last_play_at)
            assert told is not None
            if m.phase == "playing":
                (out.across if spanned else out.lags).append((told - last_play_at) / scale)
                spanned = False
            await asyncio.sleep(rng.uniform(1.0, 3.0) * scale)  # thinking
            pushed = len(fake.pushed_at)
            if m.phase == "burying":
                await sim._bury(table, seat)
            else:
                await sim._play(table, seat)
                out.plays += 1
            # the play reached Telegram when its last update was pushed
            last_play_at = max(list(fake.pushed_at.values())[pushed:] or [fake.clock()])
        await runner.platform.drain()
        out.hands = int(m.public_view().get("hand_no", 1)) - first_hand + (1 if m.phase in ("hand_over", "match_over") else 0)
        updates = fake._all_updates[clicks_from:]
        out.clicks = sum(1 for u in updates if any(k in u for k in CLICKS))
        out.refused = sum(1 for a in fake.callback_answers.values() if any(w in str(a.get("text", "")) for w in REFUSED))
        out.calls = {}
        for c in fake.calls[play_from:]:
            if c.method in ("getChatAdministrators",):
                continue
            out.calls[_kind(c)] = out.calls.get(_kind(c), 0) + 1
        out.rejected_429 = fake.rejected_429
    finally:
        out.seconds = time.perf_counter() - started
        await runner.stop()
        await host.stop()
        await store.close()
        await fake.stop()
        tmp.cleanup()
    return out


async def _pass(sim: Sim, uid: int) -> None:
    """While trumps may still be declared after the deal, people pass (or let the window close)."""
    await sim.fresh(uid)
    msgs = [msg for msg in sim.fake.chat_messages(uid) if msg.sender["id"] == BOT_ID and msg.reply_markup]
    for msg in reversed(msgs):
        for b in sim.fake.buttons_on(uid, msg.message_id):
            data = b.get("callback_data", "")
            try:
                act = codec.parse(data)[1]
            except codec.BadToken:
                continue
            if isinstance(act, Pass):
                await sim.press(uid, uid, msg.message_id, data)
                return
    await asyncio.sleep(0.05)


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def main(hands: int, scale: float, seed: int, *, match: bool = False, restarts: int = 0,
               idle: float = 0.0) -> None:
    rng = random.Random(seed)
    bot.host.random.SystemRandom = lambda: random.Random(seed)  # type: ignore[assignment,misc]
    cpu = time.process_time()
    f = await play_hands(hands, scale, rng, match=match, restarts=restarts, idle=idle)
    cpu = time.process_time() - cpu
    print(f"== {f.hands if match else hands} hand(s), {f.plays} plays, Telegram's limits on (1 Telegram s = {scale} s), "
          f"{f.seconds:.0f} s, bot+fake CPU {cpu:.1f} s, load {os.getloadavg()[0]:.1f}")
    print(f"   restarts: {f.restarts}; idle: {idle:.0f} s; clicks: {f.clicks} ({f.clicks / max(1, f.plays):.2f} a play);"
          f" presses refused as out of date or expired: {f.refused}")
    if f.across:
        print(f"   turn lag across a restart or the idle time (s): {', '.join(f'{x:.2f}' for x in f.across)}")
    print(f"   429 answers: {f.rejected_429}; group messages while the cards were dealt: {f.deal_group_calls}")
    for kind, n in sorted(f.calls.items()):
        print(f"   {kind}: {n} ({n / max(1, f.plays):.2f} per play)")
    if f.lags:
        print(f"   turn lag (s): median {statistics.median(f.lags):.2f}, p99 {_pct(f.lags, 0.99):.2f}, "
              f"max {max(f.lags):.2f} over {len(f.lags)} turns")


if __name__ == "__main__":
    warnings.filterwarnings("ignore")
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hands", type=int, default=1)
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=6)
    parser.add_argument("--match", action="store_true", help="a whole classic target=3 match")
    parser.add_argument("--restarts", type=int, default=0)
    parser.add_argument("--idle", type=float, default=0.0, help="Telegram seconds the table idles once")
    args = parser.parse_args()
    logging.disable(logging.CRITICAL)
    asyncio.run(main(args.hands, args.scale, args.seed, match=args.match, restarts=args.restarts, idle=args.idle))
    sys.exit(0)
