"""`tractor-host simulate`: whole matches through the host, persistence included.

Two kinds: AI-only matches, a chat each, to load the host (`simulate`); and a
league in one chat, people drawn four at a time who join, start and play by
typing (`simulate_league`), to exercise what a chat's league sees."""

from __future__ import annotations

import asyncio
import random
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from app.features import build_host
from app.store import open_store
from bot.platform import Incoming, User, View, Where
from bot.scene.diff import Shown, signature
from bot.settings import TableSettings
from bot.views import HAND_PAGE_SIZE
from persistence.store import Synchronous

SIM_SETTINGS = TableSettings(turn=0, bury=0, declare=0, deal=0, next=0, lobby=0, ai_budget=0.05)


class CountingPlatform:
    """A platform that only counts what the host asks of it."""

    name = "sim"
    turn_notices = False
    hand_page_size = HAND_PAGE_SIZE
    one_screen = False
    sends_files = False
    play_menu = False
    live_countdown = False

    def __init__(self) -> None:
        self.sends = 0
        self.edits = 0
        self.shown = Shown()
        self.keep_texts = False  # a league simulation reads the group's answers
        self.texts: list[str] = []

    async def send(self, where: Where, view: View) -> str:
        self.sends += 1
        if self.keep_texts and not where.private:
            self.texts.append(view.text)
        self.shown.put(where.chat_id, str(self.sends), signature(view))
        return str(self.sends)

    async def edit(self, where: Where, message_id: str, view: View) -> None:
        self.edits += 1
        self.shown.put(where.chat_id, message_id, signature(view))

    async def delete(self, where: Where, message_id: str) -> None:
        return None

    async def send_file(self, where: Where, filename: str, data: bytes, caption: str = "") -> str:
        return await self.send(where, View(filename))

    def join_link(self, payload: str) -> str | None:
        return None

    def how_to_fix(self) -> str:
        return ""


@dataclass
class SimSummary:
    """What a simulation did."""

    matches: int
    finished: int = 0
    hands: int = 0
    actions: int = 0
    seconds: float = 0.0
    wins: list[int] = field(default_factory=lambda: [0, 0])
    api_calls: int = 0
    db: str = ""
    errors: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def text(self) -> str:
        per = self.actions / self.seconds if self.seconds else 0.0
        lines = [
            f"{self.finished}/{self.matches} matches finished, {self.hands} hands, {self.actions} actions "
            f"in {self.seconds:.2f}s ({per:.0f} actions/s)",
            f"wins: Team A {self.wins[0]} · Team B {self.wins[1]}",
            f"platform calls: {self.api_calls} ({self.api_calls / max(1, self.actions):.3f} per action)",
            f"database: {self.db}",
        ]
        lines += [f"note: {n}" for n in self.notes]
        lines += [f"error: {e}" for e in self.errors]
        return "\n".join(lines)


async def simulate(*, matches: int, preset: str = "classic", db: str | None = None, seed: int = 1,
                   level: str = "basic", options: list[str] | None = None,
                   settings: TableSettings = SIM_SETTINGS, synchronous: Synchronous | None = "NORMAL") -> SimSummary:
    """Opens `matches` tables at once, four AIs each, and plays them to the end."""
    path = db or str(Path(tempfile.mkdtemp(prefix="tractor-sim-")) / "sim.sqlite3")
    store = await open_store(path, synchronous=synchronous)
    platform = CountingPlatform()
    host = build_host(store, defaults=settings, rng=random.Random(seed))
    host.register(platform)
    summary = SimSummary(matches, db=path)
    user = User("sim", "sim", "Sim", "en")
    keys = iter(range(1, 10**9))
    replies: list[str] = []

    class Reply:
        async def notice(self, text: str, alert: bool = False) -> None:
            replies.append(text)

    async def command(chat: str, name: str, *args: str) -> None:
        await host.handle(Incoming("command", user, Where("sim", chat), key=f"sim:{seed}:{next(keys)}", name=name,
                                   args=args, reply=Reply()))

    options = list(options or [])
    try:
        endless = host.engine.preset(preset).target is None
    except (ValueError, KeyError):
        endless = False
    if endless and not any(o.startswith("target=") for o in options):
        options.append("target=A")  # levels wrap in this preset: without a target AIs would play for ever
        summary.notes.append(f"{preset} has no final level: simulated with target=A")
    start = time.perf_counter()
    try:
        await host.start()
        ids: list[int] = []
        for i in range(matches):
            chat = f"sim-{seed}-{i}"
            await command(chat, "new", preset, *options)
            table = host.by_chat.get(("sim", chat))
            if table is None:
                summary.errors.append(f"match {i}: {replies[-1] if replies else 'not created'}")
                continue
            ids.append(table.id)
            await command(chat, "leave")
            for _ in range(4):
                await command(chat, "addbot", level)
        await host.settle()
        for i in range(matches):
            await command(f"sim-{seed}-{i}", "start")
        await host.settle()
        summary.seconds = time.perf_counter() - start
        for mid in ids:
            stored = await store.get_match(mid)
            if stored is None:
                continue
            summary.actions += len(stored.actions)
            summary.hands += 1 + sum(1 for a in stored.actions if a.get("t") == "next")
            result: Any = getattr(stored, "result", None)
            if stored.status == "finished" and result:
                summary.finished += 1
                summary.wins[int(result.get("winner_team", 0))] += 1
        summary.api_calls = platform.sends + platform.edits
    finally:
        await host.stop()
        await store.close()
    return summary


@dataclass
class LeagueSim:
    """What a league simulation did, and the chat's standings at the end."""

    matches: int
    people: int
    finished: int = 0
    commands: int = 0
    seconds: float = 0.0
    standings: str = ""
    pairs: str = ""
    history: str = ""
    db: str = ""
    errors: list[str] = field(default_factory=list)

    def text(self) -> str:
        lines = [f"{self.finished}/{self.matches} league matches finished in one chat by {self.people} people "
                 f"({self.commands} commands sent, {self.seconds:.2f}s)", f"database: {self.db}", "",
                 self.standings, "", self.pairs, "", self.history]
        lines += [f"error: {e}" for e in self.errors]
        return "\n".join(lines)


async def simulate_league(*, matches: int, people: int = 8, preset: str = "classic", db: str | None = None,
                          seed: int = 1, options: list[str] | None = None, settings: TableSettings = SIM_SETTINGS,
                          synchronous: Synchronous | None = "NORMAL", method: str = "matchpoints") -> LeagueSim:
    """A league in one chat: `people` people, four drawn for each match, who sit down with `join` and
    play by typing `auto` in the group when it is their turn, as a person who lets the bot suggest would.
    Every match is recorded in the chat's league; the standings, the pair table and the history are
    asked for at the end with the commands people use."""
    path = db or str(Path(tempfile.mkdtemp(prefix="tractor-league-")) / "league.sqlite3")
    store = await open_store(path, synchronous=synchronous)
    platform = CountingPlatform()
    host = build_host(store, defaults=settings, rng=random.Random(seed))
    host.register(platform)
    rng = random.Random(seed)
    users = [User("sim", f"p{i}", name, "en") for i, name in enumerate(PEOPLE[:people] if people <= len(PEOPLE)
                                                                       else [f"P{i}" for i in range(people)])]
    summary = LeagueSim(matches, len(users), db=path)
    keys = iter(range(1, 10**9))
    chat = Where("sim", f"league-{seed}")
    said: list[str] = []

    class Reply:
        async def notice(self, text: str, alert: bool = False) -> None:
            said.append(text)

    async def say(user: User, kind: Literal["command", "text"], name: str = "", *args: str, text: str = "") -> None:
        summary.commands += 1
        await host.handle(Incoming(kind, user, chat, key=f"league:{seed}:{next(keys)}", name=name, args=args,
                                   text=text, reply=Reply(), extra={"admin": "1"}))
        await host.settle()

    async def group_reply(user: User, name: str, *args: str) -> str:
        before = platform.sends
        platform.texts.clear()
        await say(user, "command", name, *args)
        return "\n".join(platform.texts) if platform.sends > before else ""

    options = list(options or [])
    if not any(o.startswith("target=") for o in options):
        options.append("target=5")  # short matches: a league of many
    start = time.perf_counter()
    platform.keep_texts = True
    try:
        await host.start()
        await say(users[0], "command", "ranking", method)
        for n in range(matches):
            four = rng.sample(users, 4)
            await say(four[0], "command", "new", preset, *options)
            for u in four[1:]:
                await say(u, "command", "join")
            await say(four[0], "command", "start")
            table = host.by_chat.get(("sim", chat.chat_id))
            if table is None or table.match is None:
                summary.errors.append(f"match {n + 1}: not started ({said[-1] if said else '?'})")
                continue
            for _ in range(20_000):
                if table.status != "active" or table.match is None:
                    break
                acting = [s for s in table.match.to_act() if table.seats[s].get("user_id")]
                if not acting:
                    await asyncio.sleep(0)
                    await host.settle()
                    continue
                who = next(u for u in four if u.user_id == table.seats[acting[0]].get("user_id"))
                await say(who, "text", text="auto")
            if table.status == "finished":
                summary.finished += 1
            else:
                summary.errors.append(f"match {n + 1}: {table.status}")
        summary.seconds = time.perf_counter() - start
        summary.standings = await group_reply(users[0], "standings")
        summary.pairs = await group_reply(users[0], "standings", "pairs")
        summary.history = await group_reply(users[0], "history", "5")
    finally:
        await host.stop()
        await store.close()
    return summary


PEOPLE = ("张伟", "王芳", "李娜", "刘洋", "陈静", "杨磊", "赵敏", "黄强", "周杰", "吴婷", "Alice", "Bob")
