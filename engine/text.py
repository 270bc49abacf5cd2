"""Cards and ranks as people type them, to the engine's notation: the one parser every adapter uses.

People type ``10h``, ``H10``, ``♥Q``, ``Q♥``, ``as``, ``TS``, ``大王`` / ``小王``
or ``bj`` / ``sj``; the engine's notation is rank then suit (``"TH"``,
``"QH"``, ``"BJ"``). Rendering (symbols, localized names) is the bot's; only
what a typed word means lives here.
"""

from __future__ import annotations

from .cards import RANKS, SUIT_SYMBOLS, SUITS, CardError, parse_rank

_SYMBOL_SUIT = {sym: letter for letter, sym in SUIT_SYMBOLS.items()}
_JOKER_WORDS = {"大王": "BJ", "小王": "SJ", "BJ": "BJ", "SJ": "SJ"}


def parse_typed_card(word: str) -> str | None:
    """A card typed by a person, in the engine's notation; None when it names no card."""
    w = word.strip()
    joker = _JOKER_WORDS.get(w) or _JOKER_WORDS.get(w.upper())
    if joker is not None:
        return joker
    w = w.upper()
    for sym, letter in _SYMBOL_SUIT.items():
        w = w.replace(sym, letter)
    w = w.replace("10", "T")
    if len(w) != 2:
        return None
    a, b = w[0], w[1]
    if a in RANKS and b in SUITS:
        return a + b
    if b in RANKS and a in SUITS:
        return b + a
    return None


def parse_typed_rank(word: str) -> int | None:
    """A level rank as typed (``"10"``, ``"T"``, ``"a"``): 0 for the 2 ... 12 for the ace; None otherwise."""
    try:
        return parse_rank(word)
    except CardError:
        return None


def rank_display(rank: int) -> str:
    """The rank as people write it: ``"10"`` rather than the engine's ``"T"``."""
    return "10" if RANKS[rank] == "T" else RANKS[rank]
