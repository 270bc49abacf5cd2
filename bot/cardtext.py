"""Cards as people read and type them: ♠A, ♥10, 大王, 小王."""

from __future__ import annotations

from engine import text as engine_text

SUIT_SYMBOL = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
RANK_TEXT = {"T": "10"}
JOKER_TEXT = {"BJ": "大王", "SJ": "小王"}


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
    """A card typed by a person to engine notation, or None: the engine's parser (``engine.text``)."""
    return engine_text.parse_typed_card(word)
