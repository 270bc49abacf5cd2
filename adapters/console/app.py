"""`tractor-host console` (and `run` without tokens): you and three AI players at a terminal table,
stored in SQLite; an unfinished match goes on where it stopped.

The composition root (`app.console`) builds the store, the host and the console platform and
hands them to `run_console`; this module only talks to the person and to the host.
"""

from __future__ import annotations

import asyncio
import getpass
import os
import re
import time
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Literal, TextIO

from adapters.console.lines import BLIND_ENTER, KEY, PipeLines, TerminalLines
from adapters.console.platform import NAME, ConsolePlatform, ConsoleReply, Panels
from adapters.console.screen import FullScreen, PlainScreen, bar_text
from bot.cardtext import card_text, cards_text
from bot.host import Host, TableGlance
from bot.i18n import LANGS, normalize_lang, tr
from bot.i18n import locale_lang as posix_locale_lang
from bot.platform import Incoming, User, Where
from bot.scene import text as scene_text
from bot.settings import TableSettings

YOU = "you"
# No timeouts at a terminal; the declaration window stays open until you pass or declare. A script
# (a pipe) is dealt at once; a person sees the cards arrive and the AIs wait before they declare.
CONSOLE_SETTINGS = TableSettings(turn=0, bury=0, declare=10**9, deal=0, next=0, lobby=0, ai_declare=0)
PACED_SETTINGS = replace(CONSOLE_SETTINGS, deal=0.3, next=1.5, ai_declare=2.0)
#: The terminal's own words, in every language (the table's moves are the shared parser's).
QUIT_WORDS = {"quit", "exit", "q", *(tr(lang, "console.word_quit") for lang in LANGS)}
REDRAW_WORDS = {"table", "hand", "牌桌", "手牌", *(tr(lang, "console.word_redraw") for lang in LANGS)}
HELP_WORDS = {"help", "?", "？", *(tr(lang, "console.word_help") for lang in LANGS)}
CARD_WORDS = ("sj", "bj")
PICK_MOST = 9  # unfinished matches listed to pick from (one key each)
NEW_WORDS = {"n", "new", "新"}
DAILY_CHAT = "daily-"  # the chats of daily boards; a match's chat is "table-…"


def locale_lang(env: Mapping[str, str] | None = None) -> str:
    """The person's language from the locale: Chinese (Simplified or Traditional) for a Chinese locale,
    else English."""
    found = posix_locale_lang(os.environ if env is None else env)
    return found if found is not None and found.startswith("zh") else "en"


@dataclass(frozen=True)
class Offer:
    """What one key plays now: ⏎ the suggestion (a move as typed), 1… a numbered choice."""

    suggestion: str = ""
    why: str = ""
    choices: tuple[str, ...] = ()
    picked: bool = False  # the suggestion is what you picked with the arrows

    def lines(self, lang: str) -> list[str]:
        if self.picked:
            return [tr(lang, "console.picked", action=self.suggestion)]
        if self.suggestion:
            return [tr(lang, "console.suggest", action=self.suggestion, why=self.why)]
        return [" · ".join(tr(lang, "console.choice", n=i + 1, action=c) for i, c in enumerate(self.choices))] \
            if self.choices else []

    def pick(self, line: str) -> str | None:
        """The move one key stands for: ⏎ (an empty line) or a choice's number; None for a typed line."""
        if not line and self.suggestion:
            return self.suggestion
        if line.isdigit() and 1 <= int(line) <= len(self.choices):
            return self.choices[int(line) - 1]
        return None


class KeptReply:
    """Keeps the host's answers (the hint the screen shows under your hand) instead of logging them."""

    def __init__(self, told: list[str]) -> None:
        self.told = told

    async def notice(self, text: str, alert: bool = False) -> None:
        self.told.append(text)


class ConsoleSession:
    """One person at the terminal, talking to a host through the console platform."""

    def __init__(self, host: Host, platform: ConsolePlatform, user: User) -> None:
        self.host = host
        self.platform = platform
        self.user = user
        self.chat_id = ""
        self._offered: tuple[tuple[int, int] | None, Offer] = (None, Offer())

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

    async def offer(self, picked: tuple[str, ...] = ()) -> Offer:
        """What one key does now: ⏎ the cards picked with the arrows, else the suggestion for your
        play or bury (the host's own hint, asked once a turn); a digit one of the declarations (or
        炒底 bids) your hand may make."""
        hand = self.platform.newest(self.chat_id).hand
        scene = hand.scene if hand is not None else None
        key = scene_text.prompt_key(scene) if scene is not None else None
        if scene is None or scene.hand is None or key is None:
            return Offer()
        lang = scene.lang
        if key in ("declare", "chao"):
            options = scene.hand.choices.declare if key == "declare" else scene.hand.choices.chao
            word = tr(lang, f"word.{key}")
            return Offer(choices=tuple(f"{word} {cards_text(list(cards))}" for cards in options[:9]))
        if scene.hand.seat not in scene.table.turn.seats:
            return Offer()
        if picked:
            return Offer(suggestion=f"{tr(lang, f'word.{key}')} {cards_text(list(picked))}", picked=True)
        version = (scene.table.match_id, scene.table.version)
        if self._offered[0] != version:
            self._offered = (version, await self._hint(lang))
        return self._offered[1]

    async def _hint(self, lang: str) -> Offer:
        """Asks the host for a hint, as `hint` typed would, and keeps its move to play on ⏎."""
        told: list[str] = []
        ev = Incoming("text", self.user, self.where, key=f"console:{uuid.uuid4().hex}", text="hint",
                      reply=KeptReply(told))
        await self.host.handle(ev)
        await self.host.settle()
        template = re.escape(tr(lang, "hint.text")).replace(r"\{action\}", "(?P<action>.+?)")
        template = template.replace(r"\{why\}", "(?P<why>.*)")
        for text in told:
            m = re.fullmatch(template, text, re.S)
            if m is not None:
                return Offer(suggestion=m["action"], why=m["why"])
        return Offer()

    def table_open(self) -> bool:
        return self.host.has_table(NAME, self.chat_id)

    def resume_latest(self) -> TableGlance | None:
        """The newest unfinished match you sit at, now the session's; None when there is none."""
        chat_id = self.host.latest_chat_of(NAME, YOU)
        if chat_id is None:
            return None
        return self.resume(chat_id)

    def resume(self, chat_id: str) -> TableGlance | None:
        """Goes on at this chat's table (one of `unfinished`)."""
        self.chat_id = chat_id
        return self.host.glance(NAME, chat_id, YOU)

    def unfinished(self, *, daily: bool = False) -> list[tuple[str, TableGlance]]:
        """Your unfinished matches (or, with `daily`, daily boards), newest first: a board is played
        on a chat of its own ("daily-…"), so `make run` never takes a board for your match."""
        found = []
        for chat_id in self.host.chats_of(NAME, YOU):
            glance = self.host.glance(NAME, chat_id, YOU)
            if glance is not None and chat_id.startswith(DAILY_CHAT) == daily:
                found.append((chat_id, glance))
        return found

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
        self.chat_id = f"{DAILY_CHAT}{int(time.time() * 1000)}"
        await self.say("daily play")
        return self.table_open()

    def words(self) -> Iterable[str]:
        """What the prompt completes first: the words of the commands."""
        yield from ("play", "declare", "bury", "pass", "hint", "auto", "hand", "table", "help", "rules",
                    "lang", "abandon", "quit", "daily", "board")

    def cards(self) -> Iterable[str]:
        """What the prompt completes after a command: the cards in your hand."""
        glance = self.host.glance(NAME, self.chat_id, YOU)
        for c in glance.hand if glance is not None else ():
            yield c.lower() if c in ("SJ", "BJ") else c
            yield card_text(c)


def toolbar(session: ConsoleSession) -> str:
    """The line under the prompt: what may be typed now."""
    return bar_text(session.platform.newest(session.chat_id).hand, session.lang())


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
        reader = (TerminalLines(session.words, lambda: toolbar(session), _fileno(inp), cards=session.cards)
                  if full_screen else PipeLines(inp))
        found = await _choose(session, screen, reader, lang, resume=resume, fresh=fresh, daily=daily)
        if found == "gone":
            unfinished = False
            return 0
        if found is None:
            if not await (session.open_daily() if daily else session.open_new(preset, options or [])):
                unfinished = False
                return 2
        else:
            await host.settle()
            screen.info(tr(session.lang(), "console.resuming", id=found.match_id, hand=max(1, found.hand_no)))
        screen.info(tr(session.lang(), "console.prompt"))
        unfinished = await _play(session, screen, reader, preset, options or [])
    finally:
        unfinished = unfinished and session.table_open()
        await host.stop()
        if unfinished:
            screen.write(tr(session.lang(), "console.bye", again=again))
    return 0


async def _choose(session: ConsoleSession, screen: PlainScreen | FullScreen, reader: PipeLines | TerminalLines,
                  lang: str, *, resume: bool, fresh: bool, daily: bool) -> TableGlance | Literal["gone"] | None:
    """Which table to go on at: your unfinished match (or board, with `daily`), picked from a short
    numbered list when there are several; None for a new one; "gone" when input ended meanwhile."""
    mine = session.unfinished(daily=daily)
    if fresh and mine and not daily:
        session.resume(mine[0][0])
        await session.say("abandon")
        mine = mine[1:]
    if not resume or fresh:
        session.chat_id = ""
        return None
    if not mine:
        if not daily:
            screen.info(tr(lang, "console.no_resume"))
        return None
    if len(mine) == 1:
        return session.resume(mine[0][0])
    lines = [tr(lang, "console.pick_title", n=len(mine))]
    lines += [tr(lang, "console.pick_line", n=i + 1, id=g.match_id, hand=max(1, g.hand_no))
              for i, (_, g) in enumerate(mine[:PICK_MOST])]
    lines.append(tr(lang, "console.pick_ask", n=min(len(mine), PICK_MOST)))
    screen.info("\n".join(lines))
    while True:
        screen.draw(Panels())
        screen.prompt()
        line = await reader.read(asyncio.Event())
        if line is None:
            continue
        if not line:
            return "gone"
        word = line.strip().lower()
        if word in NEW_WORDS:
            return None
        if not word:
            word = "1"  # Enter alone: the newest
        if word.isdigit() and 1 <= int(word) <= min(len(mine), PICK_MOST):
            return session.resume(mine[int(word) - 1][0])
        screen.info(tr(lang, "console.pick_again", n=min(len(mine), PICK_MOST)))


async def _play(session: ConsoleSession, screen: PlainScreen | FullScreen, reader: PipeLines | TerminalLines,
                preset: str, options: list[str]) -> bool:
    """The loop of prompts; True when you left with the match unfinished."""
    platform = session.platform
    moved = False
    while True:
        if not session.table_open():  # the match is over: its last table and the result stay on the screen
            screen.draw(platform.newest(session.chat_id))
            if screen.interactive:  # until the person goes on (a script's lines stay anyway)
                screen.prompt()
                while await reader.read(asyncio.Event()) is None:
                    pass
            return False
        if moved:
            ahead = reader.typed_ahead()
            if ahead:
                screen.notice(tr(session.lang(), "console.typed_ahead", line=ahead.splitlines()[-1][:40]))
            moved = False
        newest = platform.newest(session.chat_id)
        screen.picking.sync(newest.hand)
        offer = await session.offer(screen.picking.chosen()) if screen.interactive else Offer()
        screen.offer = offer.lines(session.lang())
        screen.draw(platform.newest(session.chat_id))
        platform.changed.clear()
        screen.prompt()
        line = await reader.read(platform.changed)
        if line is None:
            continue  # the table changed while you were typing: drawn again, your line kept
        if not line:
            return True
        if line == BLIND_ENTER:  # typed as the screen was drawn anew: it goes on from a hand's end, never plays
            screen.go_on()
            continue
        if line.startswith(KEY):
            screen.picking.key(line.removeprefix(KEY))
            continue
        showing_end = screen.go_on()  # a line typed, even an empty one: the end of a hand shown makes way
        line = line.strip()
        picked = None if showing_end else offer.pick(line)
        if picked is not None:
            line = picked
        if not line:
            continue
        word = line.lower()
        if word in QUIT_WORDS:
            return True
        if word in REDRAW_WORDS:
            screen.draw(platform.newest(session.chat_id), force=True)
            continue
        if word in HELP_WORDS:
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
