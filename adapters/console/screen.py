"""Two ways to show the table at a terminal: plain lines (pipes, scripts) and one screen per move (a person).

Both draw the same platform-neutral texts from `bot.views`; the full screen only lays them out (two seats
a line, the hand under the table, the last few announcements) and colours the cards with rich.
"""

from __future__ import annotations

import re
from collections import deque
from typing import TextIO

from rich.cells import cell_len
from rich.console import Console
from rich.text import Text

from bot.views import SEAT_MARK

# ♥♦ and the big joker red, ♠♣ and the small joker black, each card on a white face like a real one
RED_CARD = re.compile(r"[♥♦](?:10|[2-9JQKA])|大王")
BLACK_CARD = re.compile(r"[♠♣](?:10|[2-9JQKA])|小王")
RED_SUIT = re.compile(r"(?<![\w♥♦])[♥♦](?= ?\()")  # a suit heading in the hand: "♥ (5): …"
BLACK_SUIT = re.compile(r"(?<![\w♠♣])[♠♣](?= ?\()")
LOG_LINES = 4  # announcements kept on the full screen


class PlainScreen:
    """Prints everything as lines: the table and your hand when they changed, announcements as they come."""

    interactive = False

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.shown: dict[str, str] = {}

    def write(self, text: str) -> None:
        self.out.write(text + "\n")
        self.out.flush()

    def announce(self, text: str) -> None:
        self.write("» " + text.replace("\n", "\n  "))

    def notice(self, text: str) -> None:
        self.write("! " + text)

    def info(self, text: str) -> None:
        self.write(text)

    def draw(self, panels: dict[str, str], *, force: bool = False) -> None:
        for kind in ("table", "hand"):
            text = panels.get(kind)
            if text is not None and (force or self.shown.get(kind) != text):
                self.shown[kind] = text
                self.write(("=" * 40 if kind == "table" else "-" * 40) + "\n" + text)

    def prompt(self) -> None:
        self.out.write("> ")
        self.out.flush()


class FullScreen:
    """One screen per move in a terminal of 80×24: the table, your hand grouped by suit, the last events."""

    interactive = True

    def __init__(self, console: Console | None = None) -> None:
        self.console = console or Console(highlight=False)
        self.log: deque[tuple[str, str]] = deque(maxlen=LOG_LINES)
        self.extra = ""  # help or rules: shown once, under the table, until the next move

    def write(self, text: str) -> None:
        self.console.print(colour(text))

    def announce(self, text: str) -> None:
        for line in text.splitlines() or [""]:
            self.log.append(("»", line))

    def notice(self, text: str) -> None:
        self.log.append(("!", text))

    def info(self, text: str) -> None:
        self.extra = f"{self.extra}\n{text}" if self.extra else text

    def draw(self, panels: dict[str, str], *, force: bool = False) -> None:
        self.console.clear()
        width = max(40, self.console.width)
        room = max(6, self.console.height - 2)  # the prompt and its help line stay below
        lines: list[Text] = []
        if "table" in panels:
            lines += [colour(line) for line in table_lines(panels["table"], width)]
        if "hand" in panels:
            lines.append(Text("─" * min(width, 80), style="dim"))
            lines += [colour(line) for line in hand_lines(panels["hand"])]
        extra = [colour(line) for line in self.extra.splitlines()]
        self.extra = ""
        log = [colour(f"{mark} {line}", style="bold yellow" if mark == "!" else "cyan") for mark, line in self.log]
        used = sum(_rows(t, width) for t in lines + extra)
        while log and used + sum(_rows(t, width) for t in log) > room:
            log.pop(0)  # the oldest announcements make way; the table and your hand always fit
        for text in lines + log + extra:
            self.console.print(text, overflow="fold")

    def prompt(self) -> None:  # prompt_toolkit draws its own prompt
        return


def _rows(text: Text, width: int) -> int:
    return max(1, -(-cell_len(text.plain) // width))


def colour(line: str, style: str = "") -> Text:
    """A line with red and black cards."""
    text = Text(line, style=style)
    text.highlight_regex(RED_CARD, "bold red on grey93")
    text.highlight_regex(BLACK_CARD, "bold black on grey93")
    text.highlight_regex(RED_SUIT, "bold red")
    text.highlight_regex(BLACK_SUIT, "bold")
    return text


def table_lines(text: str, width: int = 80) -> list[str]:
    """The table text with two seats a line (the four seat lines take half the height)."""
    lines = text.splitlines()
    out: list[str] = []
    seats: list[str] = []
    for line in lines:
        if line[:1] in SEAT_MARK and len(seats) < 4 and len(out) <= 2:
            seats.append(line)
            continue
        if seats:
            out += _two_columns(seats, width)
            seats = []
        out.append(line)
    out += _two_columns(seats, width)
    return out


def _two_columns(seats: list[str], width: int) -> list[str]:
    col = max(20, width // 2)
    pairs = [seats[i:i + 2] for i in range(0, len(seats), 2)]
    return [(p[0].ljust(col) + p[1]) if len(p) == 2 and len(p[0]) < col else "\n".join(p) for p in pairs]


def hand_lines(text: str) -> list[str]:
    """Your hand: its title and level on one line, then each suit; the typing prompt is in the toolbar."""
    lines = text.splitlines()
    if len(lines) >= 2:
        lines = [f"{lines[0]} · {lines[1]}", *lines[2:]]
    return lines
