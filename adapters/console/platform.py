"""The terminal as a platform: panels (table, hand, lobby) are kept, with the scenes they show, for the
screen to draw its own way; announcements and answers go to the screen at once."""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

from bot.platform import PlatformError, View, Where
from bot.scene.diff import Shown, signature

NAME = "console"


class Screen(Protocol):
    """Where the console platform's output goes (a plain line stream or a full-screen table)."""

    def announce(self, text: str) -> None: ...

    def notice(self, text: str) -> None: ...


class ConsolePlatform:
    """Implements the host's Platform protocol for one person at a terminal."""

    name = NAME
    turn_notices = False
    hand_page_size = 40  # no button grid here: one page holds any hand
    one_screen = True  # you are the whole table: the group's screen and your own are one
    sends_files = False
    play_menu = False
    live_countdown = False

    def __init__(self, screen: Screen, you: str) -> None:
        self.screen = screen
        self.you = you
        # Message ids outlive the process (the table stores them and edits them after a resume), so a
        # new process must not hand out ids an older one gave: they start from the clock, in µs.
        self._ids = itertools.count(time.time_ns() // 1000)
        self.panels: dict[str, tuple[Where, View]] = {}
        self.shown = Shown()  # what each message shows (the host asks before it edits one)
        self.changed = asyncio.Event()  # set when a panel or the log changed; the screen clears it

    def skip_past(self, stored: Iterable[str]) -> None:
        """Hands out only ids above those a table stored (from an earlier process), whatever the clock says."""
        top = max((int(mid) for mid in stored if mid.isdigit()), default=-1)
        nxt = next(self._ids)
        self._ids = itertools.count(max(nxt, top + 1))

    async def send(self, where: Where, view: View) -> str:
        mid = str(next(self._ids))
        self.shown.put(where.chat_id, mid, signature(view))
        if where.private and where.chat_id != self.you:
            return mid  # another person's private chat does not exist in a terminal
        if view.buttons or where.private:  # the table, the lobby, your hand
            self.panels[mid] = (where, view)
        else:
            self.screen.announce(view.text)
        self.changed.set()
        return mid

    async def edit(self, where: Where, message_id: str, view: View) -> None:
        self.shown.put(where.chat_id, message_id, signature(view))
        if where.private and where.chat_id != self.you:
            return
        self.panels[message_id] = (where, view)
        self.changed.set()

    async def delete(self, where: Where, message_id: str) -> None:
        self.panels.pop(message_id, None)
        self.shown.drop(where.chat_id, message_id)
        self.changed.set()

    async def send_file(self, where: Where, filename: str, data: bytes, caption: str = "") -> str:
        raise PlatformError("a terminal shows no files")

    def join_link(self, payload: str) -> str | None:
        return None

    def how_to_fix(self) -> str:
        return ""  # the terminal always reaches you

    def newest(self, chat_id: str) -> Panels:
        """The newest table (or lobby) of this chat and your newest hand, as the scenes they were drawn from."""
        table: View | None = None
        hand: View | None = None
        for mid in sorted(self.panels, key=int):
            where, view = self.panels[mid]
            if where.private:
                hand = view
            elif where.chat_id == chat_id:
                table = view
        return Panels(table, hand)


@dataclass(frozen=True)
class Panels:
    """What the screen shows: the group's table (or lobby) and your hand, each with its scene."""

    table: View | None = None
    hand: View | None = None


class ConsoleReply:
    """Answers to what was typed."""

    def __init__(self, platform: ConsolePlatform) -> None:
        self.platform = platform

    async def notice(self, text: str, alert: bool = False) -> None:
        if text != "✓":
            self.platform.screen.notice(text)
            self.platform.changed.set()
