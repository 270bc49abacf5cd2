"""Two ways to show the table at a terminal: plain lines (pipes, scripts) and one screen per move (a person).

Both draw the scenes the table's messages were drawn from (`bot.scene`), with the terminal's own words
where the chats' would be wrong here (what to type, not which button to press). The full screen lays
them out (two seats a line, the hand under the table, the last few announcements), colours the cards
with rich, and keeps the end of a hand (its summary and final trick) and of the match on screen until
the person goes on.
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass, field
from typing import TextIO

from rich.cells import cell_len
from rich.console import Console
from rich.text import Text

from adapters.console.platform import Panels
from bot.cardtext import card_text, cards_text, suit_text
from bot.i18n import N_, tr
from bot.platform import View
from bot.scene import text as scene_text
from bot.scene.types import Scene, TableScene
from bot.views import SEAT_MARK
from engine.views import Phase

# ♥♦ and the big joker red, ♠♣ and the small joker black, each card on a white face like a real one
RED_CARD = re.compile(r"[♥♦](?:10|[2-9JQKA])|大王")
BLACK_CARD = re.compile(r"[♠♣](?:10|[2-9JQKA])|小王")
RED_SUIT = re.compile(r"(?<![\w♥♦])[♥♦](?= ?\()")  # a suit heading in the hand: "♥ (5): …"
BLACK_SUIT = re.compile(r"(?<![\w♠♣])[♠♣](?= ?\()")
LOG_LINES = 4  # announcements kept on the full screen
#: What a hand asks for, in the terminal's words: what to type (the chats say which button to press).
PROMPTS = {"declare": N_("console.prompt_declare"), "bury": N_("console.prompt_bury"),
           "chao": N_("console.prompt_chao"), "play": N_("console.prompt_play")}


def table_text(view: View | None, hand: View | None = None) -> str | None:
    """The group's table (or the lobby) as the terminal shows it: from the newer of the table's own
    scene and your hand's (which holds the table as it was then), so that your seat's count of cards
    and your hand agree while the cards arrive (your hand's scene, during the deal)."""
    if view is None:
        return None
    scene = view.scene
    if scene is None or scene.table.phase is None:
        return view.text
    table = scene.table
    mine = hand.scene if hand is not None else None
    if mine is not None and mine.table.match_id == table.match_id and (
            mine.table.version > table.version or Phase.DEALING == mine.table.phase == table.phase):
        table = mine.table  # while dealing, the table as your hand last showed it (a step behind, at most)
    return scene_text.table_text(table, scene.lang)


def hand_text(view: View | None, *, ask: bool = True) -> str | None:
    """Your hand, asking for what to type (unless `ask` is off: the one-key offer under it asks)."""
    if view is None:
        return None
    scene = view.scene
    if scene is None or scene.hand is None:
        return view.text
    return scene_text.hand_text(scene, prompts=PROMPTS if ask else {})


def seat_text(view: View | None) -> str | None:
    """Where you sit, who your partner is and the playing order, from your hand's scene."""
    scene = view.scene if view is not None else None
    if scene is None or scene.hand is None or len(scene.table.seats) != 4:
        return None
    seats, you, lang = scene.table.seats, scene.hand.seat, scene.lang
    order = "→".join(SEAT_MARK[(you + i) % 4] for i in range(4))
    return tr(lang, "console.seat", seat=SEAT_MARK[you], partner=scene_text.seat_label(seats[(you + 2) % 4], lang),
              order=order)


def bar_text(view: View | None, lang: str) -> str:
    """The line under the prompt: what you may type now, in your language, with a card you hold."""
    scene = view.scene if view is not None else None
    key = scene_text.prompt_key(scene) if scene is not None else None
    if scene is None or scene.hand is None or key is None:
        return tr(lang, "console.bar")
    choices = scene.hand.choices
    if key == "declare":
        if not choices.declare:
            return tr(lang, "console.bar_wait")
        return tr(lang, "console.bar_declare", cards=cards_text(list(choices.declare[0])))
    if key == "chao":
        return tr(lang, "console.bar_chao")
    if key == "bury":
        return tr(lang, "console.bar_bury")
    if scene.table.turn.seats and scene.hand.seat in scene.table.turn.seats:
        return tr(lang, "console.bar_play")
    return tr(lang, "console.bar")


def end_lines(sc: TableScene, lang: str) -> list[str]:
    """The end of the last hand (and of the match): its summary, its final trick, how to go on."""
    lines: list[str] = []
    s = sc.summary
    if s is not None:
        lines += scene_text.summary_lines(s, sc.seats, lang)
        if s.final_trick is not None:
            lines.append(tr(lang, "console.final_trick", trick=scene_text.trick_text(s.final_trick, sc.seats, lang)))
    if sc.result is not None:
        lines += scene_text.result_text(sc.result, sc.seats, lang).splitlines()
        lines.append(tr(lang, "console.leave"))
    elif lines:
        lines.append(tr(lang, "console.go_on"))
    return lines


@dataclass
class Picking:
    """Cards picked with the arrow keys over your hand (← → move, space picks), played with ⏎.

    Held by the terminal alone: what is picked becomes one typed move (`play` and the cards) when
    the person plays it, read by the shared parser like any typed line."""

    cards: tuple[str, ...] = ()
    order: tuple[int, ...] = ()  # indices into `cards` as the hand shows them (trumps first)
    cursor: int | None = None  # a place in `order`; None until an arrow is used
    picked: set[int] = field(default_factory=set)

    def sync(self, view: View | None) -> None:
        """Follows your hand: a new hand (a card played, the next deal) starts afresh."""
        scene = view.scene if view is not None else None
        cards = scene.hand.cards if scene is not None and scene.hand is not None else ()
        if cards != self.cards:
            assert scene is not None or not cards
            self.cards, self.cursor, self.picked = cards, None, set()
            self.order = tuple(i for _, idx in scene_text.hand_groups(scene) for i in idx) if scene else ()

    def key(self, name: str) -> None:
        if not self.order:
            return
        if name == "pick":
            if self.cursor is None:
                self.cursor = 0
            self.picked ^= {self.order[self.cursor]}
            return
        step = 1 if name == "right" else -1
        self.cursor = 0 if self.cursor is None else (self.cursor + step) % len(self.order)

    def chosen(self) -> tuple[str, ...]:
        return tuple(self.cards[i] for i in sorted(self.picked))

    def lines(self, scene: Scene) -> list[Text]:
        """The hand's suits with the cursor on one card and the picked ones in brackets."""
        at = self.order[self.cursor] if self.cursor is not None else None
        out = []
        for key, idx in scene_text.hand_groups(scene):
            line = Text(f"{tr(scene.lang, 'hand.trumps') if key == 'T' else suit_text(key)} ({len(idx)}):")
            for i in idx:
                face = card_text(self.cards[i])
                card = colour(f"[{face}]" if i in self.picked else face)
                if i == at:
                    card.stylize("reverse")
                line.append(" ")
                line.append_text(card)
            out.append(line)
        return out


class PlainScreen:
    """Prints everything as lines: the table and your hand when they changed, announcements as they come."""

    interactive = False

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.shown: dict[str, str] = {}
        self.seated = False  # where you sit was said
        self.picking = Picking()  # no arrow keys in a script
        self.offer: list[str] = []  # what one key plays (the full screen shows it)

    def write(self, text: str) -> None:
        self.out.write(text + "\n")
        self.out.flush()

    def announce(self, text: str) -> None:
        self.write("» " + text.replace("\n", "\n  "))

    def notice(self, text: str) -> None:
        self.write("! " + text)

    def info(self, text: str) -> None:
        self.write(text)

    def draw(self, panels: Panels, *, force: bool = False) -> None:
        seat = seat_text(panels.hand) if not self.seated else None
        if seat is not None:
            self.seated = True
            self.write(seat)
        for kind, text in (("table", table_text(panels.table, panels.hand)), ("hand", hand_text(panels.hand))):
            if text is not None and (force or self.shown.get(kind) != text):
                self.shown[kind] = text
                self.write(("=" * 40 if kind == "table" else "-" * 40) + "\n" + text)

    def go_on(self) -> bool:
        return False  # every line stays in the scrollback

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
        self.seen_hand: int | None = None  # the hand of the first table drawn
        self.ended = 0  # the last hand whose end the person has gone on from
        self.showing = 0  # the hand whose end is on the screen
        self.result_shown = False
        self.seat_shown = False  # where you sit stays under the table until you type a line
        self.seat_said = False
        self.offer: list[str] = []  # what one key plays now, under your hand
        self.picking = Picking()

    def write(self, text: str) -> None:
        self.console.print(colour(text))

    def announce(self, text: str) -> None:
        for line in text.splitlines() or [""]:
            self.log.append(("»", line))

    def notice(self, text: str) -> None:
        self.log.append(("!", text))

    def info(self, text: str) -> None:
        self.extra = f"{self.extra}\n{text}" if self.extra else text

    def draw(self, panels: Panels, *, force: bool = False) -> None:
        self.console.clear()
        width = max(40, self.console.width)
        room = max(6, self.console.height - 2)  # the prompt and its help line stay below
        lines: list[Text] = []
        end = self._end(panels.table)
        table = table_text(panels.table, panels.hand)
        if end:  # the end of a hand stays until the person goes on, in place of the next deal's table
            lines += [colour(line, style="bold" if i == 0 else "") for i, line in enumerate(end)]
        elif table is not None:
            lines += [colour(line) for line in table_lines(table, width)]
        seat = seat_text(panels.hand) if not self.seat_said else None
        if seat is not None:
            self.seat_shown = True
            lines.append(Text(seat, style="bold"))
        hand = hand_text(panels.hand, ask=not self.offer or bool(end))
        mine: list[Text] = []
        if hand is not None:
            mine.append(Text("─" * min(width, 80), style="dim"))
            shown = [colour(line) for line in hand_lines(hand)]
            scene = panels.hand.scene if panels.hand is not None else None
            if self.picking.cursor is not None and scene is not None and not end:
                suits = self.picking.lines(scene)
                shown = shown[:1] + suits + shown[1 + len(suits):]
            mine += shown
            mine += [colour(line, style="bold green") for line in self.offer if not end]
        extra = [colour(line) for line in self.extra.splitlines()]
        self.extra = ""
        if extra and sum(_rows(t, width) for t in lines + mine + extra) > room:
            mine = []  # help or rules take the hand's place for one screen; the table stays
        if sum(_rows(t, width) for t in lines + extra) > room:
            lines = []
        lines += mine
        log = [colour(f"{mark} {line}", style="bold yellow" if mark == "!" else "cyan") for mark, line in self.log]
        used = sum(_rows(t, width) for t in lines + extra)
        while log and used + sum(_rows(t, width) for t in log) > room:
            log.pop(0)  # the oldest announcements make way; the table and your hand always fit
        for text in lines + log + extra:
            self.console.print(text, overflow="fold")

    def _end(self, view: View | None) -> list[str]:
        """The lines of a hand's (or the match's) end still to be shown, from the table's scene."""
        scene = view.scene if view is not None else None
        if scene is None or scene.table.phase is None:
            return []
        sc = scene.table
        if self.seen_hand is None:  # the first table drawn: the end of an earlier hand is no news
            self.seen_hand = sc.hand_no
            if sc.summary is not None and not sc.hand_over:
                self.ended = sc.summary.hand_no
        if sc.result is None and (sc.summary is None or sc.summary.hand_no <= self.ended):
            return []
        self.showing = sc.summary.hand_no if sc.summary is not None else self.ended
        self.result_shown = sc.result is not None
        return end_lines(sc, scene.lang)

    def go_on(self) -> bool:
        """The person typed a line: the end of the hand shown makes way for the table, and where
        they sit (said on the first screen) for the log. True when an end was on the screen (the line
        that moved it away plays nothing)."""
        showing = self.showing > self.ended or self.result_shown
        self.ended = max(self.ended, self.showing)
        self.seat_said = self.seat_said or self.seat_shown
        return showing

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
