"""`tractor-host console` (and `run` without tokens): you and three AI players at a terminal table,
stored in SQLite; an unfinished match goes on where it stopped.

The composition root (`app.console`) builds the store, the host and the console platform and
hands them to `run_console`; this module only talks to the person and to the host.
"""

from __future__ import annotations

import getpass
import os
import time
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import TextIO

from adapters.console.lines import PipeLines, TerminalLines
from adapters.console.platform import NAME, ConsolePlatform, ConsoleReply
from adapters.console.screen import FullScreen, PlainScreen
from bot.cardtext import card_text
from bot.host import Host, TableGlance
from bot.i18n import locale_lang as posix_locale_lang
from bot.i18n import normalize_lang, tr
from bot.platform import Incoming, User, Where
from bot.settings import TableSettings

YOU = "you"
# No timeouts at a terminal; the declaration window stays open until you pass or declare. A script
# (a pipe) is dealt at once; a person sees the cards arrive and the AIs wait before they declare.
CONSOLE_SETTINGS = TableSettings(turn=0, bury=0, declare=10**9, deal=0, next=0, lobby=0, ai_declare=0)
PACED_SETTINGS = replace(CONSOLE_SETTINGS, deal=0.3, next=1.5, ai_declare=2.0)
QUIT_WORDS = {"quit", "exit", "q", "退出"}
REDRAW_WORDS = {"table", "hand", "牌桌", "手牌"}
CARD_WORDS = ("sj", "bj")


def locale_lang(env: Mapping[str, str] | None = None) -> str:
    """The person's language from the locale: Chinese (Simplified or Traditional) for a Chinese locale,
    else English."""
    found = posix_locale_lang(os.environ if env is None else env)
    return found if found is not None and found.startswith("zh") else "en"


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
        """Feeds one typed line to the host, read by the one text parser (a move or a command)."""
        key = f"console:{uuid.uuid4().hex}"
        ev = Incoming("text", self.user, self.where, key=key, text=line, reply=ConsoleReply(self.platform))
        await self.host.handle(ev)
        await self.host.settle()

    def table_open(self) -> bool:
        return self.host.has_table(NAME, self.chat_id)

    def resume_latest(self) -> TableGlance | None:
        """The newest unfinished match you sit at, now the session's; None when there is none."""
        chat_id = self.host.latest_chat_of(NAME, YOU)
        if chat_id is None:
            return None
        self.chat_id = chat_id
        return self.host.glance(NAME, chat_id, YOU)

    async def open_new(self, preset: str, options: list[str]) -> bool:
        self.chat_id = f"table-{int(time.time() * 1000)}"
        await self.say(" ".join(["new", preset, *options]))
        if not self.table_open():
            return False
        for _ in range(3):
            await self.say("addbot")
        await self.say("start")
        return True

    async def open_daily(self) -> bool:
        """Today's next daily board at a new table of yours, three AIs with you (the host seats them)."""
        self.chat_id = f"daily-{int(time.time() * 1000)}"
        await self.say("daily play")
        return self.table_open()

    def words(self) -> Iterable[str]:
        """What the prompt completes: the words of the commands and the cards in your hand."""
        yield from ("play", "declare", "bury", "pass", "hint", "auto", "hand", "table", "help", "rules",
                    "lang", "abandon", "quit", "daily", "board")
        glance = self.host.glance(NAME, self.chat_id, YOU)
        for c in glance.hand if glance is not None else ():
            yield c.lower() if c in ("SJ", "BJ") else c
            yield card_text(c)


def console_screen(inp: TextIO, out: TextIO, full_screen: bool | None = None) -> PlainScreen | FullScreen:
    """A terminal on both ends gets the full screen; anything else (a pipe, a script) plain lines."""
    if full_screen is None:
        full_screen = _isatty(inp) and _isatty(out)
    return FullScreen() if full_screen else PlainScreen(out)


def console_settings(screen: PlainScreen | FullScreen) -> TableSettings:
    """A person at a full screen sees the cards arrive; a script is dealt at full speed."""
    return PACED_SETTINGS if isinstance(screen, FullScreen) else CONSOLE_SETTINGS


async def run_console(host: Host, platform: ConsolePlatform, *, inp: TextIO, lang: str | None = None,
                      resume: bool = True, fresh: bool = False, preset: str = "classic",
                      options: list[str] | None = None, again: str = "make run", daily: bool = False) -> int:
    """Plays at the terminal until the match ends, input ends (EOF) or you type quit; returns an exit code.

    `platform` is registered on `host` and draws on its screen; the host is started and stopped here.
    An unfinished terminal match goes on unless `resume` is off or `fresh` (which abandons it first).
    `again` is the command that goes on with the match, shown when you leave. `daily`: a table on
    today's next daily board (with three AIs) instead of a match.
    """
    screen = platform.screen
    assert isinstance(screen, PlainScreen | FullScreen), "the console platform draws on a console screen"
    full_screen = isinstance(screen, FullScreen)
    lang = normalize_lang(lang) or locale_lang()
    user = User(NAME, YOU, _your_name(), lang)
    session = ConsoleSession(host, platform, user)
    unfinished = True  # until the loop says otherwise (Ctrl-C ends it by cancelling this task)
    try:
        await host.start()
        platform.skip_past(host.message_ids(NAME))
        found = None if daily else session.resume_latest()
        if daily:
            if not await session.open_daily():
                unfinished = False
                return 2
        elif found is not None and fresh:
            await session.say("abandon")
            found = None
        elif found is None and resume:
            screen.info(tr(lang, "console.no_resume"))
        if found is not None and not resume:
            found = None
            session.chat_id = ""
        if found is None and not daily and not await session.open_new(preset, options or []):
            unfinished = False
            return 2
        if found is not None:
            await host.settle()
            screen.info(tr(session.lang(), "console.resuming", id=found.match_id, hand=max(1, found.hand_no)))
        screen.info(tr(session.lang(), "console.prompt"))
        reader = (TerminalLines(session.words, lambda: tr(session.lang(), "console.toolbar"), _fileno(inp))
                  if full_screen else PipeLines(inp))
        unfinished = await _play(session, screen, reader, preset, options or [])
    finally:
        unfinished = unfinished and session.table_open()
        await host.stop()
        if unfinished:
            screen.write(tr(session.lang(), "console.bye", again=again))
    return 0


async def _play(session: ConsoleSession, screen: PlainScreen | FullScreen, reader: PipeLines | TerminalLines,
                preset: str, options: list[str]) -> bool:
    """The loop of prompts; True when you left with the match unfinished."""
    platform = session.platform
    moved = False
    while True:
        if not session.table_open():  # the match is over: its last table and the result stay on the screen
            screen.draw(platform.newest(session.chat_id))
            return False
        if moved:
            ahead = reader.typed_ahead()
            if ahead:
                screen.notice(tr(session.lang(), "console.typed_ahead", line=ahead.splitlines()[-1][:40]))
            moved = False
        screen.draw(platform.newest(session.chat_id))
        platform.changed.clear()
        screen.prompt()
        line = await reader.read(platform.changed)
        if line is None:
            continue  # the table changed while you were typing: drawn again, your line kept
        if not line:
            return True
        screen.go_on()  # a line typed, even an empty one: the end of a hand shown makes way
        line = line.strip()
        if not line:
            continue
        word = line.lower()
        if word in QUIT_WORDS:
            return True
        if word in REDRAW_WORDS:
            screen.draw(platform.newest(session.chat_id), force=True)
            continue
        if word == "help":
            screen.info(tr(session.lang(), "console.help"))
            continue
        await session.say(line)
        moved = True
        if not session.table_open() and session.host.ended_as(NAME, session.chat_id) == "abandoned":
            screen.info(tr(session.lang(), "console.new_after_abandon"))
            if not await session.open_new(preset, options):
                return False


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def _fileno(stream: TextIO) -> int | None:
    try:
        return stream.fileno()
    except (AttributeError, ValueError, OSError):
        return None


def _your_name() -> str:
    try:
        return getpass.getuser()[:32] or "You"
    except (OSError, KeyError):
        return "You"
