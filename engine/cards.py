"""Cards as small integers.

A face is ``suit * 13 + rank`` for the 52 suited faces (rank 0 is the 2,
rank 12 the ace) plus 52 for the small joker and 53 for the big joker. Two
decks: every face exists twice, so a hand is a list of 54 counts.
"""

from __future__ import annotations

from collections.abc import Iterable

RANKS = "23456789TJQKA"
SUITS = "SHDC"
SMALL_JOKER = 52
BIG_JOKER = 53
NUM_FACES = 54
NO_TRUMP = 4  # the trump "suit" when only jokers and level cards are trumps
TRUMP = 4  # the effective suit of every trump card

SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}


class CardError(ValueError):
    """A card string that names no card."""


def face_of(suit: int, rank: int) -> int:
    return suit * 13 + rank


def suit_of(face: int) -> int:
    """The printed suit, or -1 for a joker."""
    return face // 13 if face < SMALL_JOKER else -1


def rank_of(face: int) -> int:
    """The printed rank (0 = 2 ... 12 = A), or -1 for a joker."""
    return face % 13 if face < SMALL_JOKER else -1


def parse_card(text: str) -> int:
    got = _INDEX.get(text)
    if got is not None:
        return got
    s = text.strip().upper()
    if s == "SJ":
        return SMALL_JOKER
    if s == "BJ":
        return BIG_JOKER
    if len(s) == 3 and s.startswith("10"):
        s = "T" + s[2]
    if len(s) != 2 or s[0] not in RANKS or s[1] not in SUITS:
        raise CardError(f"unknown card {text!r}")
    return face_of(SUITS.index(s[1]), RANKS.index(s[0]))


def card_str(face: int) -> str:
    return _NAMES[face]


_NAMES = tuple([RANKS[f % 13] + SUITS[f // 13] for f in range(52)] + ["SJ", "BJ"])
_INDEX = {name: f for f, name in enumerate(_NAMES)}
CARD_INDEX: dict[str, int] = _INDEX
#: Every face's name, by face.
CARD_NAMES: tuple[str, ...] = _NAMES


def parse_cards(texts: Iterable[str]) -> list[int]:
    return [parse_card(t) for t in texts]


def cards_str(faces: Iterable[int]) -> list[str]:
    return [_NAMES[f] for f in faces]


def parse_rank(text: str) -> int:
    s = text.strip().upper()
    if s == "10":
        s = "T"
    if len(s) != 1 or s not in RANKS:
        raise CardError(f"unknown rank {text!r}")
    return RANKS.index(s)


def rank_str(rank: int) -> str:
    return RANKS[rank]


def parse_trump(text: str | None) -> int | None:
    """Suit letter to suit index, "NT" to NO_TRUMP, None stays None."""
    if text is None:
        return None
    s = text.strip().upper()
    if s == "NT":
        return NO_TRUMP
    if len(s) != 1 or s not in SUITS:
        raise CardError(f"unknown trump {text!r}")
    return SUITS.index(s)


def trump_str(trump: int | None) -> str | None:
    if trump is None:
        return None
    return "NT" if trump == NO_TRUMP else SUITS[trump]


def points_of(face: int) -> int:
    r = rank_of(face)
    if r == 3:  # the 5
        return 5
    if r in (8, 11):  # the 10 and the K
        return 10
    return 0


POINTS = tuple(points_of(f) for f in range(NUM_FACES))

FULL_DECK: tuple[int, ...] = tuple(f for f in range(NUM_FACES) for _ in range(2))


def counts_of(faces: Iterable[int]) -> list[int]:
    c = [0] * NUM_FACES
    for f in faces:
        c[f] += 1
    return c


# ----- rule questions at the string boundary (for hosts rendering views) -----
def card_points(card: str) -> int:
    """Points a card scores: 5s count 5, 10s and Ks 10, everything else 0."""
    return POINTS[parse_card(card)]


def is_trump_card(card: str, level: str | None, trump: str | None) -> bool:
    """Whether a card is a trump in a view's terms (``level`` and ``trump`` as the view gives them).

    Jokers always; level cards once the level is known; the trump suit once
    it is decided (none under ``"NT"``).
    """
    face = parse_card(card)
    if face >= SMALL_JOKER:
        return True
    if level is not None and rank_of(face) == parse_rank(level):
        return True
    return trump is not None and trump != "NT" and suit_of(face) == SUITS.index(trump)


def level_steps(before: str, after: str, *, climbed: bool) -> int:
    """Levels a side moved from rank ``before`` to rank ``after`` in one hand.

    A side that won the hand (``climbed``) and lands lower went past the ace
    and wrapped round (presets without a final level).
    """
    delta = parse_rank(after) - parse_rank(before)
    if delta < 0 and climbed:
        delta += len(RANKS)
    return delta
