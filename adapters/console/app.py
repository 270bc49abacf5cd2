"""`tractor-host console`: you and three AI players at a terminal table, stored in SQLite, resumable."""

from __future__ import annotations

import asyncio
import getpass
import os
import random
import threading
import time
import uuid
from typing import Any, TextIO

from adapters.console.platform import NAME, ConsolePlatform, ConsoleReply
from bot.host import ALL_COMMANDS, Host
from bot.i18n import DEFAULT_LANG, locale_lang, normalize_lang, tr
from bot.platform import Incoming, User, Where
from bot.settings import TableSettings
from bot.storage import open_store

YOU = "you"
# No timeouts at a terminal; the declaration window stays open until you pass or declare.
CONSOLE_SETTINGS = TableSettings(turn=0, bury=0, declare=10**9, deal=0, next=0, lobby=0)
QUIT_WORDS = {"quit", "exit", "q", "退出"}


class ConsoleSession:
    """One person at the terminal, talking to a host through the console platform."""

    def __init__(self, host: Host, platform: ConsolePlatform, user: User) -> None:
        self.host = host
        self.platform = platform
        self.user = user
        self.chat_id = ""

    @property
    def where(self) -> Where:
        return Where(NAME, self.chat_id)

    def lang(self) -> str:
        return self.host.chat_lang(NAME, self.chat_id)

    async def say(self, line: str) -> None:
        """Feeds one typed line to the host as a person's text or command."""
        words = line.split()
        first = words[0].lower().lstrip("/")
        key = f"console:{uuid.uuid4().hex}"
        reply = ConsoleReply(self.platform)
        if first in ALL_COMMANDS:
            ev = Incoming("command", self.user, self.where, key=key, name=first, args=tuple(words[1:]), reply=reply)
        else:
            ev = Incoming("text", self.user, self.where, key=key, text=line, reply=reply)
        await self.host.handle(ev)
        await self.host.settle()

    def table_open(self) -> bool:
        return (NAME, self.chat_id) in self.host.by_chat

    def resume_latest(self) -> bool:
        mine = [t for t in self.host.tables.values() if t.platform_name == NAME and t.seat_of(YOU) is not None]
        if not mine:
            return False
        self.chat_id = max(mine, key=lambda t: t.id).chat_id
        return True

    async def open_new(self, preset: str, options: list[str]) -> bool:
        self.chat_id = f"table-{int(time.time() * 1000)}"
        await self.say(" ".join(["new", preset, *options]))
        if not self.table_open():
            return False
        for _ in range(3):
            await self.say("addbot")
        await self.say("start")
        return True


async def run_console(*, db: str | None, resume: bool, inp: TextIO, out: TextIO, lang: str | None = None,
                      preset: str = "classic", options: list[str] | None = None, store: Any = None,
                      settings: TableSettings = CONSOLE_SETTINGS, seed: int | None = None) -> int:
    """Plays at the terminal until the match ends, input ends (EOF) or you type quit; returns an exit code."""
    own_store = store is None
    store = store if store is not None else await open_store(db)
    platform = ConsolePlatform(out, YOU)
    lang = normalize_lang(lang) or locale_lang(os.environ) or DEFAULT_LANG
    name = _your_name()
    user = User(NAME, YOU, name, lang)
    host = Host(store, defaults=settings, rng=random.Random(seed) if seed is not None else None)
    host.register(platform)
    session = ConsoleSession(host, platform, user)
    code = 0
    try:
        await host.start()
        if resume and not session.resume_latest():
            platform.write(tr(lang, "console.no_resume"))
            resume = False
        if not resume and not await session.open_new(preset, options or []):
            return 2
        if resume:
            await host.settle()
        platform.write(tr(session.lang(), "console.prompt"))
        lines = _line_reader(inp)
        while session.table_open():
            platform.show_panels()
            out.write("> ")
            out.flush()
            line = await lines.get()
            if not line:
                break
            line = line.strip()
            if not line:
                continue
            if line.lower() in QUIT_WORDS:
                break
            if line.lower() in ("table", "hand", "牌桌", "手牌"):
                platform.show_panels(force=True)
                continue
            if line.lower() == "help":
                platform.write(tr(session.lang(), "help.text") + "\n" + tr(session.lang(), "console.prompt"))
                continue
            await session.say(line)
        platform.show_panels()
    finally:
        unfinished = session.table_open()
        await host.stop()
        if own_store:
            await store.close()
        if unfinished:
            platform.write(tr(lang, "console.bye"))
    return code


def _line_reader(inp: TextIO) -> asyncio.Queue[str]:
    """Lines of input from a daemon thread ("" at the end): a blocked read never holds up Ctrl-C or exit."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[str] = asyncio.Queue()

    def pump() -> None:
        while True:
            try:
                line = inp.readline()
            except (OSError, ValueError):
                line = ""
            try:
                loop.call_soon_threadsafe(queue.put_nowait, line)
            except RuntimeError:  # the loop is closed: nobody reads any more
                return
            if not line:
                return

    threading.Thread(target=pump, name="console-input", daemon=True).start()
    return queue


def _your_name() -> str:
    try:
        return getpass.getuser()[:32] or "You"
    except (OSError, KeyError):
        return "You"
