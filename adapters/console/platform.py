"""The terminal as a platform: panels (table, hand, lobby) are kept and shown before each prompt; announcements print at once."""

from __future__ import annotations

import itertools
from typing import TextIO

from bot.platform import View, Where

NAME = "console"


class ConsolePlatform:
    """Implements the host's Platform protocol on a text stream."""

    name = NAME
    hand_page_size = 40  # no button grid here: one page holds any hand
    prints_every_trick = True  # the table announces each completed trick here (no message limits)

    def __init__(self, out: TextIO, you: str) -> None:
        self.out = out
        self.you = you
        self._ids = itertools.count(1)
        self.panels: dict[str, tuple[Where, View]] = {}
        self.shown: dict[str, str] = {}

    def write(self, text: str) -> None:
        self.out.write(text + "\n")
        self.out.flush()

    async def send(self, where: Where, view: View) -> str:
        mid = str(next(self._ids))
        if where.private and where.chat_id != self.you:
            return mid  # another person's private chat does not exist in a terminal
        if view.buttons or where.private:  # the table, the lobby, your hand
            self.panels[mid] = (where, view)
        else:
            self.write(("» " if not where.private else "· ") + view.text.replace("\n", "\n  "))
        return mid

    async def edit(self, where: Where, message_id: str, view: View) -> None:
        if where.private and where.chat_id != self.you:
            return
        self.panels[message_id] = (where, view)

    async def delete(self, where: Where, message_id: str) -> None:
        self.panels.pop(message_id, None)

    def join_link(self, payload: str) -> str | None:
        return None

    def show_panels(self, *, force: bool = False) -> None:
        """Prints the newest table (or lobby) and the newest hand, if they changed since last shown."""
        newest: dict[str, str] = {}
        for mid in sorted(self.panels, key=int):
            where, _ = self.panels[mid]
            newest["hand" if where.private else "table"] = mid
        for kind in ("table", "hand"):
            pick = newest.get(kind)
            if pick is None:
                continue
            text = self.panels[pick][1].text
            if force or self.shown.get(kind) != text:
                self.shown[kind] = text
                self.write(("=" * 40 if kind == "table" else "-" * 40) + "\n" + text)


class ConsoleReply:
    """Answers to what was typed: printed with a marker."""

    def __init__(self, platform: ConsolePlatform) -> None:
        self.platform = platform

    async def notice(self, text: str, alert: bool = False) -> None:
        if text != "✓":
            self.platform.write("! " + text)
