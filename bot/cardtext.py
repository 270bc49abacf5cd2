"""Cards as people read and type them: ♠A, ♥10, 大王, 小王."""

from __future__ import annotations

SUIT_SYMBOL = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
RANK_TEXT = {"T": "10"}
JOKER_TEXT = {"BJ": "大王", "SJ": "小王"}
_RANKS = "23456789TJQKA"
_SYMBOL_SUIT = {v: k for k, v in SUIT_SYMBOL.items()}


def card_text(card: str) -> str:
    """Engine notation ("TS", "BJ") to text ("♠10", "大王")."""
    if card in JOKER_TEXT:
        return JOKER_TEXT[card]
    if len(card) != 2 or card[1] not in SUIT_SYMBOL:
        return card
    return SUIT_SYMBOL[card[1]] + RANK_TEXT.get(card[0], card[0])


def cards_text(cards: list[str] | tuple[str, ...]) -> str:
    """Several cards, space separated."""
    return " ".join(card_text(c) for c in cards)


def suit_text(suit: str | None) -> str:
    """A trump suit ("S", "NT", None) as a symbol, "NT" stays for the catalog to name."""
    if suit is None:
        return "?"
    return SUIT_SYMBOL.get(suit, suit)


def parse_typed_card(word: str) -> str | None:
    """A card typed by a person to engine notation, or None.

    Accepts "AS", "as", "10S", "S10", "♠A", "A♠", "TS", "BJ", "SJ", "大王", "小王".
    """
    w = word.strip()
    if w in ("大王", "小王"):
        return "BJ" if w == "大王" else "SJ"
    w = w.upper()
    if w in ("BJ", "SJ"):
        return w
    for sym, s in _SYMBOL_SUIT.items():
        w = w.replace(sym, s)
    w = w.replace("10", "T")
    if len(w) != 2:
        return None
    a, b = w[0], w[1]
    if a in _RANKS and b in SUIT_SYMBOL:
        return a + b
    if b in _RANKS and a in SUIT_SYMBOL:
        return b + a
    return None
