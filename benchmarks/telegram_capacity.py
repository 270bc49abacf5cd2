"""Tables per Telegram token: N tables of four people at a person's pace, one bot, Telegram's limits on.

    python -m benchmarks.telegram_capacity --tables 25 50 75 100 [--scale 2] [--seconds 150] [--warmup 40]

Everything `tractor-host run` runs (the real python-telegram-bot client, host, engine, SQLite store)
drives N tables at once against the strict fake Bot API server (per chat 1 a second, per group 20 a
minute, per bot 30 a second; a 429 is counted). Each table's four people act only on what reaches
them: a person learns it is their turn from the private notice (or from a mention in the play the
person before them posted from the group), thinks 3-6 s, and plays. Each person
keeps to one way of playing: two people in three from the group (inline mode: *Play from here*, then
the play), one in three with the private hand's buttons (a tap a card, 0.3 s apart, then *Play*). Declaring and burying are typed
in the private chat. Each hand is dealt as `run` deals it (a step every 0.6 s, an 8 s window to
declare), and the next hand starts 5 s after one ends.

The tables do not start together: each is written to the store part-way into its first hand (a
random point, from the deal to the last trick), so deals, bury and hand ends fall at their natural
rate over the measured window instead of all at once. The host resumes them all (five messages a
table, sent before the people start), and the people play `--warmup` Telegram seconds before
measuring for `--seconds`.

`--scale` is how many real seconds one Telegram second lasts, for the fake's limits, the adapter's
flood gate, the people's pace and the table timers alike: at 2 the machine has twice the real time
for the same Telegram traffic (the measure is the token's limits, not this shared machine's CPU;
the bot's own CPU time then counts half in Telegram seconds). Figures are in Telegram seconds.

Measured over the window: plays, turn lag (from the update of the play before reaching Telegram to
the next player's notice reaching Telegram; p50, p99, max; a turn not told within 30 s counts as
30 s), plays refused and made again (a person whose hand still shows cards played before plays
from the group instead), what the lag is made of (the event loop's lateness, a notice's time in
its outbox, the flood gate's waits by the limit), API calls a second and a play by kind,
the counted messages a second (sends and edits) and the busiest second, and 429s.
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

import engine
from benchmarks.telegram_turns import boot
from bot.cardtext import card_text, cards_text
from bot.intents import codec
from bot.intents.types import ButtonAct, Page, PlaySelection, Toggle
from bot.settings import TableSettings
from engine.match import Match
from engine.rules import Rules
from fakes.telegram_api import ApiCall, FakeTelegram, Limits
from fakes.typed import typed_text

NOTICE = "🔔"
COUNTED = ("sendMessage", "editMessageText", "editMessageReplyMarkup", "sendPhoto", "sendDocument")
UNTOLD = 30.0  # Telegram seconds a person waits to be told before playing anyway (an untold turn)
THINK = (3.0, 6.0)  # Telegram seconds from being told to playing
TAP = 0.3  # between two taps on the private hand's buttons


@dataclass
class Capacity:
    tables: int
    scale: float
    seconds: float = 0.0  # the measured window, Telegram seconds
    plays: int = 0
    lags: list[float] = field(default_factory=list)
    untold: int = 0  # turns whose notice did not come within 30 Telegram seconds (in the lags as 30 s)
    refused: int = 0  # plays that did not go through and were made again
    calls: dict[str, int] = field(default_factory=dict)
    counted_peak: int = 0  # counted messages in the busiest Telegram second
    rejected_429: int = 0
    rejected_by: dict[str, int] = field(default_factory=dict)
    errors: int = 0
    cpu: float = 0.0
    real_seconds: float = 0.0
    load: str = ""
    # What the turn lag is made of: how late the event loop ran a timer (the process short of CPU),
    # how long a turn notice waited in its chat's outbox (the flood gate, or the chat's message in
    # flight), and the flood gate's waits over the window by the limit that held them
    loop_lags: list[float] = field(default_factory=list)
    notice_queue: list[float] = field(default_factory=list)
    gate_seconds: dict[str, float] = field(default_factory=dict)
    # turns of people who play with the private hand's buttons, and of those the turns at which
    # their hand message did not yet show their cards (its redraw after their last play still waited)
    button_turns: int = 0
    stale_hands: int = 0

    def counted(self) -> int:
        return sum(n for kind, n in self.calls.items() if kind.split()[-1] in COUNTED)

    def text(self) -> str:
        w = max(self.seconds, 1e-9)
        lags = sorted(self.lags)

        def p(q: float) -> float:
            return lags[min(len(lags) - 1, int(q * len(lags)))] if lags else float("nan")

        loop, queue = sorted(self.loop_lags), sorted(self.notice_queue)

        def q(xs: list[float], at: float) -> float:
            return xs[min(len(xs) - 1, int(at * len(xs)))] if xs else float("nan")

        lines = [
            f"== {self.tables} tables, 1 Telegram s = {self.scale} s, window {self.seconds:.0f} Telegram s "
            f"({self.real_seconds:.0f} s real, CPU {self.cpu:.0f} s = {self.cpu / max(self.real_seconds, 1e-9):.0%}"
            f" of a core, load {self.load})",
            f"   plays {self.plays} ({self.plays / w:.1f} a second, {self.plays / w / max(1, self.tables):.3f} a table)",
            f"   turn lag: p50 {statistics.median(lags) if lags else float('nan'):.2f} s, p99 {p(0.99):.2f} s, "
            f"max {lags[-1] if lags else float('nan'):.2f} s over {len(lags)} turns; not told within 30 s: {self.untold}"
            f" (counted as 30 s); plays refused and made again: {self.refused}",
            f"   API calls {sum(self.calls.values()) / w:.1f} a second, {sum(self.calls.values()) / max(1, self.plays):.2f}"
            f" a play; counted (sends and edits) {self.counted() / w:.1f} a second (busiest second {self.counted_peak}),"
            f" {self.counted() / max(1, self.plays):.2f} a play",
            f"   429s: {self.rejected_429} {self.rejected_by}; handler errors: {self.errors}; hand message not"
            f" showing the cards as its turn came: {self.stale_hands} of {self.button_turns} button players' turns",
            f"   event loop late (Telegram s): p50 {q(loop, 0.5):.2f}, p99 {q(loop, 0.99):.2f}, max {q(loop, 1):.2f};"
            f" a turn notice queued in its outbox: p50 {q(queue, 0.5):.2f}, p99 {q(queue, 0.99):.2f},"
            f" max {q(queue, 1):.2f} s over {len(queue)}",
            "   flood gate waits (Telegram s, summed over chats): "
            + (", ".join(f"{k} {v:.0f}" for k, v in sorted(self.gate_seconds.items())) or "none"),
        ]
        for kind, n in sorted(self.calls.items()):
            lines.append(f"     {kind}: {n / max(1, self.plays):.2f} a play")
        return "\n".join(lines)


def _kind(call: ApiCall) -> str:
    if call.method in ("answerCallbackQuery", "answerInlineQuery"):
        return call.method
    chat = int(call.params.get("chat_id", 0) or 0)
    if call.method == "sendMessage" and chat > 0 and str(call.params.get("text", "")).startswith(NOTICE):
        return "private notice sendMessage"
    return f"{'group' if chat < 0 else 'private'} {call.method}"


class Notices:
    """Every turn notice the fake has taken, by the person it went to, and every mention of a person
    in a play another person posted from the group (scanned as they come)."""

    def __init__(self, fake: FakeTelegram) -> None:
        self.fake = fake
        self.seen = 0
        self.seen_mentions = 0
        self.by_user: dict[int, list[ApiCall]] = {}
        self.mentioned: dict[int, list[float]] = {}

    def scan(self) -> None:
        calls = self.fake.calls
        for call in calls[self.seen:]:
            if call.method == "sendMessage" and str(call.params.get("text", "")).startswith(NOTICE):
                self.by_user.setdefault(int(call.params.get("chat_id", 0)), []).append(call)
        self.seen = len(calls)
        mentions = getattr(self.fake, "mentions", [])  # (a fake from before mentions had none)
        for at, _, uid in mentions[self.seen_mentions:]:
            self.mentioned.setdefault(uid, []).append(at)
        self.seen_mentions = len(mentions)

    def told(self, uid: int, since: float) -> float | None:
        """When `uid` was first told after `since`: the notice arrived and was taken, or a post
        mentioned them."""
        told = [at for at in self.mentioned.get(uid, ()) if at >= since][:1]
        for call in self.by_user.get(uid, ()):
            if call.at >= since and call.ok and call.result is not None:
                told.append(call.at)
                break
        return min(told) if told else None


@dataclass
class Person:
    """The four people of one table, acting on what reaches them."""

    fake: FakeTelegram
    host: Any
    match_id: int
    group: int
    index: int
    notices: Notices
    rng: random.Random
    scale: float
    lags: list[tuple[float, float]] = field(default_factory=list)  # (previous play at, lag)
    plays: list[float] = field(default_factory=list)  # when each play reached Telegram
    untold: list[float] = field(default_factory=list)  # when the play before each untold turn was made
    last_play_at: float = 0.0
    n: int = 0
    button_turns: list[tuple[float, bool]] = field(default_factory=list)  # (told at, hand out of date)
    counted: int = -1  # the version whose turn lag was counted
    refused: int = 0  # plays that did not go through (tried again)

    async def wait(self, telegram_seconds: float) -> None:
        await asyncio.sleep(telegram_seconds * self.scale)

    async def run(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            table = self.host.tables.get(self.match_id)
            m = table.match if table is not None else None
            if m is None or m.phase == "match_over":
                return
            to_act = m.to_act()
            if not to_act or m.phase not in ("playing", "burying", "declaring"):
                await self.wait(0.2)
                continue
            seat = to_act[0]
            uid = int(str(table.seats[seat].user_id))
            version = m.version
            if m.phase == "declaring":
                await self.wait(self.rng.uniform(0.5, 2.0))
                if m.version == version and m.phase == "declaring":
                    action = m.auto_action(seat)
                    if action is not None:
                        self.fake.send_text(uid, uid, typed_text(action.to_json()))
                await self.until_moved(m, version, 10)
                continue
            told = await self.told(uid)
            if m.phase == "playing" and self.counted != version:
                self.counted = version  # (a play that did not go through is tried again: one turn)
                if told is None:
                    self.untold.append(self.last_play_at)
                else:
                    self.lags.append((self.last_play_at, told - self.last_play_at))
                    if (self.index * 4 + seat) % 3 == 2:
                        self.button_turns.append((told, not self.hand_shown(table, seat, uid, m)))
            await self.wait(self.rng.uniform(*THINK))
            if m.version != version:
                continue
            action = m.auto_action(seat)
            assert action is not None
            pushed: float | None
            if m.phase == "burying":
                pushed = self.fake.pushed_at[self.fake.send_text(uid, uid, typed_text(action.to_json()))]
            elif (self.index * 4 + seat) % 3 == 2:
                pushed = await self.buttons(table, seat, uid, list(action.cards))
            else:
                pushed = await self.inline(uid, list(action.cards))
            if pushed is None:
                continue
            phase = m.phase
            await self.until_moved(m, version, 30)
            if m.version == version:  # refused (a button drawn for an earlier turn, say): try again
                self.refused += 1
                continue
            self.n += 1
            self.last_play_at = pushed
            if phase == "playing":
                self.plays.append(pushed)

    def hand_shown(self, table: Any, seat: int, uid: int, m: Match) -> bool:
        """Whether the private hand message shows the seat's cards as they are now (by their count)."""
        msg = self.fake.messages.get((uid, int(table.messages.get(f"hand{seat}", 0))))
        return msg is not None and f" {len(m.view(seat).get('hand') or ())} card" in msg.text

    async def told(self, uid: int) -> float | None:
        give_up = self.fake.clock() + UNTOLD * self.scale
        while self.fake.clock() < give_up:
            at = self.notices.told(uid, self.last_play_at)
            if at is not None:
                return at
            await self.wait(0.05)
        return None

    async def until_moved(self, m: Match, version: int, telegram_seconds: float) -> None:
        give_up = self.fake.clock() + telegram_seconds * self.scale
        while m.version == version and self.fake.clock() < give_up:
            await self.wait(0.05)

    async def inline(self, uid: int, cards: list[str]) -> float | None:
        """*Play from here* in the group, then the play among the results."""
        qid = self.fake.inline_query(uid, "")
        give_up = self.fake.clock() + 10 * self.scale
        while qid not in self.fake.inline_answers:
            if self.fake.clock() > give_up:
                return None
            await self.wait(0.05)
        results = self.fake.inline_answers[qid]["results"]
        if not results:
            return None
        await self.wait(TAP)
        want = cards_text(cards)
        chosen = next((r for r in results if r.get("title") == want), results[0])
        return self.fake.pushed_at[self.fake.choose_inline(uid, qid, chosen["id"], self.group)]

    async def buttons(self, table: Any, seat: int, uid: int, cards: list[str]) -> float | None:
        """A tap on each card of the private hand, then *Play* (↻ first if the hand was folded). A hand
        that still shows cards played before (its redraw waits) is out of date: the person plays
        from the group instead."""
        mid = int(table.messages[f"hand{seat}"])
        if _with(self.fake, uid, mid, Toggle) and not self.hand_shown(table, seat, uid, table.match):
            return await self.inline(uid, cards)
        if not _with(self.fake, uid, mid, Toggle):
            refresh = _with(self.fake, uid, mid, Page)
            if not refresh:
                return await self.inline(uid, cards)
            self.fake.press(uid, uid, mid, refresh[0]["callback_data"])
            give_up = self.fake.clock() + 10 * self.scale
            while not _with(self.fake, uid, mid, Toggle):
                if self.fake.clock() > give_up:
                    return await self.inline(uid, cards)
                await self.wait(0.1)
            await self.wait(TAP)
        toggles = _with(self.fake, uid, mid, Toggle)
        used: set[str] = set()
        for card in cards:
            button = next((b for b in toggles if b["text"] == card_text(card) and b["callback_data"] not in used),
                          None)
            if button is None:
                return await self.inline(uid, cards)
            used.add(button["callback_data"])
            self.fake.press(uid, uid, mid, button["callback_data"], check=False)
            await self.wait(TAP)
        play = _with(self.fake, uid, mid, PlaySelection)
        if not play:
            return await self.inline(uid, cards)
        return self.fake.pushed_at[self.fake.press(uid, uid, mid, play[0]["callback_data"], check=False)[0]]


def _with(fake: FakeTelegram, uid: int, mid: int, code: type[ButtonAct]) -> list[dict[str, Any]]:
    out = []
    for b in fake.buttons_on(uid, mid):
        try:
            if isinstance(codec.parse(b.get("callback_data", ""))[1], code):
                out.append(b)
        except codec.BadToken:
            continue
    return out


async def seat_tables(store: Any, fake: FakeTelegram, n: int, rng: random.Random) -> list[tuple[int, int]]:
    """N tables of four people, each written part-way into its first hand: (match id, group)."""
    rules = engine.preset("classic", target="A")
    settings = TableSettings(deal=0.6, declare=8, next=5, turn=0, bury=0, lobby=0, away_after=0)
    out = []
    for i in range(n):
        group, users = -(700_000 + i), [7_000_000 + 4 * i + k for k in range(4)]  # not the tests' ids
        fake.add_group(group)
        seats = []
        for k, uid in enumerate(users):
            fake.add_user(uid, f"P{i}.{k}", opened=True)
            seats.append({"kind": "human", "user_id": str(uid), "name": f"P{i}.{k}", "lang": "en", "away": False,
                          "timeouts": 0})
        seed = 5000 + i
        meta = {"preset": "classic", "creator": str(users[0]), "creator_name": f"P{i}.0", "options": "target=A",
                "settings": settings.to_dict()}
        match_id = await store.create_match("telegram", str(group), rules.to_dict(), seats, seed, meta,
                                            status="active")
        await _part_way(store, match_id, rules, seed, rng)
        out.append((match_id, group))
    return out


async def _part_way(store: Any, match_id: int, rules: Rules, seed: int, rng: random.Random) -> None:
    """Play the first hand up to a random point, as if the table had been going for a while."""
    whole = Match.new(rules, seed)
    steps = 0
    while whole.phase not in ("hand_over", "match_over"):
        _step(whole)
        steps += 1
    m = Match.new(rules, seed)
    for _ in range(rng.randrange(steps - 4)):
        action = _step(m)
        await store.append_action(match_id, m.version - 1, action, None)


def _step(m: Match) -> dict[str, Any]:
    action: Any = m.system_action()
    if action is None or (m.phase == "declaring" and m.to_act()):
        action = next(a for s in m.to_act() if (a := m.auto_action(s)) is not None)
    m.apply(action)
    return dict(action.to_json())


async def measure(tables: int, *, scale: float, seconds: float, warmup: float, seed: int = 1) -> Capacity:
    out = Capacity(tables, scale, load=f"{os.getloadavg()[0]:.1f}")
    rng = random.Random(seed)
    fake = FakeTelegram(limits=Limits(scale=scale))
    await fake.start()
    tmp = tempfile.TemporaryDirectory()
    db = os.path.join(tmp.name, "capacity.sqlite3")
    settings = TableSettings(deal=0.6 * scale, declare=8 * scale, next=5 * scale, turn=0, bury=0, lobby=0,
                             away_after=0)
    from persistence.store import SqliteStore

    store0 = await SqliteStore.open(db)
    seated = await seat_tables(store0, fake, tables, rng)
    await store0.close()
    store, host, runner = await boot(fake, db, settings, scale)
    await runner.platform.drain()  # every table drawn as it resumed
    notices = Notices(fake)
    people = [Person(fake, host, mid, group, i, notices, random.Random(rng.random()), scale)
              for i, (mid, group) in enumerate(seated)]
    stop = asyncio.Event()

    async def scanning() -> None:
        while not stop.is_set():
            notices.scan()
            await asyncio.sleep(0.02 * scale)

    loop_lags: list[tuple[float, float]] = []  # (fake clock, how late a 20 ms timer ran, real s)

    async def ticking() -> None:
        while not stop.is_set():
            asked = time.perf_counter()
            await asyncio.sleep(0.02)
            loop_lags.append((fake.clock(), time.perf_counter() - asked - 0.02))

    notice_queue: list[tuple[float, float]] = []  # (fake clock sent, real s from queued to in the chat)
    outboxes = runner.platform.outboxes
    send = outboxes.send

    async def timed_send(chat_id: int, out: Any) -> int:
        queued = time.perf_counter()
        mid = await send(chat_id, out)
        if chat_id > 0 and out.text.startswith(NOTICE):
            notice_queue.append((fake.clock(), time.perf_counter() - queued))
        return int(mid)

    outboxes.send = timed_send
    gate = outboxes.gate

    errors = _Errors()
    logging.getLogger().addHandler(errors)
    tasks = [asyncio.create_task(scanning()), asyncio.create_task(ticking())] + [asyncio.create_task(p.run(stop)) for p in people]
    try:
        await asyncio.sleep(warmup * scale)
        start, cpu0, real0 = fake.clock(), time.process_time(), time.perf_counter()
        gate0 = dict(gate.stats.seconds)
        first_call = len(fake.calls)
        await asyncio.sleep(seconds * scale)
        end = fake.clock()
        out.cpu, out.real_seconds = time.process_time() - cpu0, time.perf_counter() - real0
        out.load += f"-{os.getloadavg()[0]:.1f}"
        out.gate_seconds = {k: (v - gate0.get(k, 0.0)) / scale for k, v in gate.stats.seconds.items()
                            if v > gate0.get(k, 0.0)}
        out.loop_lags = [late / scale for at, late in loop_lags if start <= at < end]
        out.notice_queue = [took / scale for at, took in notice_queue if start <= at < end]
        out.seconds = (end - start) / scale
        calls = [c for c in fake.calls[first_call:] if c.at < end and c.method != "getChatAdministrators"]
        for c in calls:
            out.calls[_kind(c)] = out.calls.get(_kind(c), 0) + 1
        out.rejected_429 = sum(1 for c in calls if c.status == 429)
        out.rejected_by = dict(fake.rejected_by)
        seconds_of = [int((c.at - start) / scale) for c in calls if c.method in COUNTED and c.ok]
        out.counted_peak = max((seconds_of.count(s) for s in set(seconds_of)), default=0)
        for p in people:
            out.plays += sum(1 for at in p.plays if start <= at < end)
            out.lags += [lag / scale for at, lag in p.lags if start <= at < end]
            out.untold += sum(1 for at in p.untold if start <= at < end)
            out.refused += p.refused
            turns = [stale for at, stale in p.button_turns if start <= at < end]
            out.button_turns += len(turns)
            out.stale_hands += sum(turns)
        out.lags += [UNTOLD] * out.untold  # in the percentiles as if told after 30 s (at least)
        out.errors = errors.count
    finally:
        stop.set()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await runner.stop()
        await host.stop()
        await store.close()
        await fake.stop()
        tmp.cleanup()
        logging.getLogger().removeHandler(errors)
    return out


class _Errors(logging.Handler):
    """Counts what the bot logged as errors (a handler that failed on an update, say)."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        self.count += 1


async def main(counts: list[int], scale: float, seconds: float, warmup: float, seed: int) -> None:
    for n in counts:
        print((await measure(n, scale=scale, seconds=seconds, warmup=warmup, seed=seed)).text(), flush=True)


if __name__ == "__main__":
    warnings.filterwarnings("ignore")
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", type=int, nargs="+", default=[25, 50, 75, 100])
    parser.add_argument("--scale", type=float, default=2.0)
    parser.add_argument("--seconds", type=float, default=150.0, help="measured window, Telegram seconds")
    parser.add_argument("--warmup", type=float, default=40.0, help="Telegram seconds before measuring")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    logging.getLogger().setLevel(logging.ERROR)  # counted (handler errors), not printed
    logging.getLogger().addHandler(logging.NullHandler())
    asyncio.run(main(args.tables, args.scale, args.seconds, args.warmup, args.seed))
    sys.exit(0)
