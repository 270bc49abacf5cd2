"""What a person sees at a door, as plain facts the scenarios compare across doors.

Each door shows the table its own way: the chats and the terminal in lines of text, the web page as
frames its script draws. A scenario must not care which; it asks every door for the same `Seen` and
compares it with what the engine says. The text doors are read back here with the catalogs' own
templates in the reader's language (so a line worded or laid out differently fails to read, and the
door drifts visibly); the web page's frames are read by their fields.
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache

from bot.cardtext import card_text
from bot.i18n import forms
from bot.scene.text import SEAT_MARK

FACES = [r + s for s in "SHDC" for r in "23456789TJQKA"] + ["SJ", "BJ"]
TEXT_TO_CODE = {card_text(c): c for c in FACES}
CARD_RE = re.compile(r"大王|小王|[♠♥♦♣](?:10|[2-9JQKA])")

Play = tuple[int, tuple[str, ...]]
"""One seat's cards on the table: (seat, cards in the engine's notation, as shown)."""


@dataclass(frozen=True)
class Summary:
    """The end of a hand as a person reads it."""

    hand_no: int
    points: int
    kitty: tuple[str, ...]  # sorted
    multiplier: int | None  # None: the kitty went to the declarers (no multiplier shown)
    levels_after: tuple[str, str] | None
    next_dealer: int | None
    levels_up: int | None


@dataclass(frozen=True)
class Seen:
    """What one seat's person sees at a door now."""

    turn: tuple[int, ...]  # the seats the table waits for
    trick: tuple[Play, ...]  # the trick on the table, in the order played
    hand: tuple[str, ...] | None  # the person's own cards, sorted (None: not shown)
    said: tuple[str, ...]  # what the person was told (answers, refusals), oldest first
    summary: Summary | None  # the newest end of a hand shown


def codes(text: str) -> tuple[str, ...]:
    """The cards named in a text, in order, in the engine's notation."""
    return tuple(TEXT_TO_CODE[c] for c in CARD_RE.findall(text))


@cache
def _patterns(lang: str, key: str) -> tuple[re.Pattern[str], ...]:
    texts = forms(lang).get(key) or forms("en")[key]
    out = []
    for text in texts:
        rx = ""
        for literal, name, _, _ in string.Formatter().parse(text):
            rx += re.escape(literal)
            if name:
                rx += f"(?P<{name}>.+?)" if f"?P<{name}>" not in rx else ".+?"
        out.append(re.compile(rx + "$"))
    return tuple(out)


def read(lang: str, key: str, line: str) -> dict[str, str] | None:
    """The fields of `line` if it is the catalog's `key` in `lang` (any plural form), else None."""
    for p in _patterns(lang, key):
        found = p.match(line.strip())
        if found:
            return found.groupdict()
    return None


def find(lang: str, key: str, lines: Iterable[str]) -> dict[str, str] | None:
    for line in lines:
        got = read(lang, key, line)
        if got is not None:
            return got
    return None


def seat_of(label: str) -> int:
    """The seat a label names ("③Cy 🤖" -> 2), by its mark."""
    return SEAT_MARK.index(label.strip()[0])


def plays(text: str) -> tuple[Play, ...]:
    """"①Ann ♠A · ②Bob 🤖 ♠3" -> ((0, ("AS",)), (1, ("3S",)))."""
    return tuple((seat_of(part), codes(part)) for part in text.split(" · ") if part.strip())


def table_facts(lang: str, text: str) -> tuple[tuple[int, ...], tuple[Play, ...]]:
    """Whose turn and the trick, read from a table drawn in words."""
    lines = text.splitlines()
    waiting = find(lang, "table.turn", lines) or find(lang, "table.turn_timed", lines)
    turn = tuple(seat_of(w) for w in waiting["who"].split(", ")) if waiting else ()
    trick = find(lang, "table.trick", lines)
    return turn, plays(trick["trick"]) if trick else ()


HAND_GROUP = re.compile(r"^.+ \(\d+\): ")


def hand_cards(lang: str, text: str) -> tuple[str, ...]:
    """The cards of a hand drawn in words (its group lines: "♠ (7): ♠K [♠Q] …"), sorted; the line of
    the cards picked so far repeats some of them and is not counted."""
    return tuple(sorted(c for line in text.splitlines()
                        if HAND_GROUP.match(line) and not read(lang, "hand.selected", line) for c in codes(line)))


def summary_facts(lang: str, lines: Sequence[str]) -> Summary | None:
    """The newest end of a hand among `lines`, read with the catalog's templates."""
    starts = [i for i, line in enumerate(lines) if read(lang, "result.hand_title", line)]
    if not starts:
        return None
    rest = lines[starts[-1]:]
    title = read(lang, "result.hand_title", rest[0]) or {}
    points = find(lang, "result.points", rest)
    won = find(lang, "result.kitty_won", rest)
    kitty = won or find(lang, "result.kitty", rest)
    levels = find(lang, "result.levels", rest)
    dealer = find(lang, "result.next_dealer", rest)
    up = find(lang, "result.declarers_win", rest) or find(lang, "result.defenders_win", rest)
    held = find(lang, "result.declarers_hold", rest) or find(lang, "result.defenders_take_over", rest)
    return Summary(
        hand_no=int(title.get("hand", 0)),
        points=int(points["points"]) if points else -1,
        kitty=tuple(sorted(codes(kitty["cards"]))) if kitty else (),
        multiplier=int(won["mult"]) if won else None,
        levels_after=(levels["a"], levels["b"]) if levels else None,
        next_dealer=seat_of(dealer["who"]) if dealer else None,
        levels_up=int(up["n"]) if up else 0 if held else None,
    )


def web_summary(s: dict[str, object] | None) -> Summary | None:
    """The end of a hand as the web page's frame carries it (the page draws these fields)."""
    if s is None:
        return None
    mult = s.get("kitty_multiplier")
    after = s.get("levels_after")
    up = s.get("levels_up")
    return Summary(
        hand_no=int(str(s.get("hand_no") or 0)),
        points=int(str(s["defender_points"])),
        kitty=tuple(sorted(str(c) for c in s.get("kitty") or ())),  # type: ignore[attr-defined]
        multiplier=int(str(mult)) if isinstance(mult, int) and mult > 0 else None,
        levels_after=(rank(after[0]), rank(after[1])) if isinstance(after, list) and after else None,
        next_dealer=int(str(s["next_dealer"])) if s.get("next_dealer") is not None else None,
        levels_up=int(str(up)) if up is not None else None,
    )


def rank(level: object) -> str:
    return "10" if level == "T" else str(level)
