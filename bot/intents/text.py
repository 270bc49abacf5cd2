"""Typed text's one parser: a line from a chat, the terminal or a test, read once into an act.

"play ♠A ♠A", "出 大王", "pass", "hint", ... become table acts naming their cards in the engine's
notation; any other first word is a command with its arguments as typed (the command registry
decides whether it is one). What cannot be read (an unknown card, a declaration of mixed cards)
becomes `Unreadable`, answered in the person's language, and nothing is played.
"""

from __future__ import annotations

from bot.intents.types import (
    Act,
    Auto,
    BuryCards,
    Chao,
    Command,
    Declare,
    Hint,
    Pass,
    PlayCards,
    Revolt,
    Unreadable,
)
from engine.text import parse_typed_card

MAX_LINE = 2000
MAX_CARDS = 40

PLAY_WORDS = frozenset({"play", "p", "出", "出牌"})
DECLARE_WORDS = frozenset({"declare", "d", "亮", "亮主"})
CHAO_WORDS = frozenset({"chao", "炒"})
BURY_WORDS = frozenset({"bury", "b", "扣", "扣底"})
PASS_WORDS = frozenset({"pass", "过", "過", "不要", "不亮"})
REVOLT_WORDS = frozenset({"revolt", "革命"})
HINT_WORDS = frozenset({"hint", "提示"})
AUTO_WORDS = frozenset({"auto", "托管", "託管"})
CARD_WORDS = PLAY_WORDS | DECLARE_WORDS | CHAO_WORDS | BURY_WORDS
ACTION_WORDS = CARD_WORDS | PASS_WORDS | REVOLT_WORDS | HINT_WORDS | AUTO_WORDS
"""The first words of a table move; every other first word is a command's name."""

_JOKER_WORDS = frozenset({"joker", "j", "王"})


def parse(line: str) -> Act:
    """One typed line as an act: a table move, a command with its words, or why it is unreadable."""
    words = line.strip().split()
    if not words or len(line) > MAX_LINE:
        return Unreadable("garbage")
    first = words[0].lower().lstrip("/")
    if first not in ACTION_WORDS:
        return Command(first, tuple(words[1:])) if first else Unreadable("garbage")
    return move(first, words[1:])


def move(word: str, rest: list[str]) -> Act:
    """A table move from its word and the words after it (the cards, for a move that names them)."""
    if word in PASS_WORDS:
        return Pass()
    if word in REVOLT_WORDS:
        return Revolt()
    if word in HINT_WORDS:
        return Hint()
    if word in AUTO_WORDS:
        return Auto()
    cards: list[str] = []
    for w in rest[:MAX_CARDS]:
        c = parse_typed_card(w)
        if c is None:
            joker = w.lower().rstrip("s") in _JOKER_WORDS
            return Unreadable("which_joker") if joker else Unreadable("bad_card", w[:20])
        cards.append(c)
    if not cards:
        return Unreadable("select_first")
    named = tuple(cards)
    if word in PLAY_WORDS:
        return PlayCards(named)
    if word in BURY_WORDS:
        return BuryCards(named)
    if len(set(named)) != 1:  # not "does not beat": it is no declaration at all
        return Unreadable("bad_declaration")
    return Declare(named) if word in DECLARE_WORDS else Chao(named)
