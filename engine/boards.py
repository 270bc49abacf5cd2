"""Boards: a hand fixed in advance (document 002), so any number of tables can play the same deal.

A board is a seed and a ``BoardSpec``: the cards come from the seed exactly
as a match's first hand would deal them, the dealer deals first (002 2.2:
the dealer is dealt from first), and the spec says who deals, at which
level, and where trump comes from (002 2.6):

- A, marked on the board: the trump suit (or no trump) is fixed; nobody bids.
- B, a preset level with the suit bid: the four players bid the suit at the
  board's level as in a normal deal; whoever wins the bid, the board's
  dealer stays the dealer (002's example: South shows ♣A, West overrides
  with ♥A, and North plays ♥ at A).
- C, a drawn card: one card drawn from the board names the suit and the
  level; a joker means no trump, and another card is drawn for the level.

A, and C once drawn, are the same to the engine: a fixed trump and level.
The spec rides in ``Rules.board`` (``"<dealer>/<level>/<trump or bid>"``),
so a board match is still just its rules, seed and actions and rebuilds with
``Match.replay``. The spec holds no card; the seed is never shown.
"""

from __future__ import annotations

import dataclasses
import random
from dataclasses import dataclass

from .cards import FULL_DECK, NO_TRUMP, RANKS, SMALL_JOKER, parse_rank, parse_trump, rank_of, trump_str
from .rules import Rules, RulesError

#: seats as the host numbers them, in playing order: 002 deals and plays counter-clockwise
#: (N, W, S, E), and board n is dealt by seat (n - 1) % 4 (002 4.1).
COMPASS = ("N", "W", "S", "E")
HAND_CARDS = 25
KITTY_CARDS = 8


@dataclass(frozen=True, slots=True)
class BoardSpec:
    dealer: int
    level: int  # rank index: 0 is "2", 12 is "A"
    trump: int | None  # a suit index or NO_TRUMP; None: bid at the level (002 2.6 B)

    def __post_init__(self) -> None:
        if self.dealer not in range(4) or self.level not in range(13):
            raise RulesError(f"bad board dealer/level {self.dealer}/{self.level}")
        if self.trump is not None and self.trump not in range(5):
            raise RulesError(f"bad board trump {self.trump}")

    def to_str(self) -> str:
        trump = "bid" if self.trump is None else trump_str(self.trump)
        return f"{self.dealer}/{RANKS[self.level]}/{trump}"


def parse_board(text: str) -> BoardSpec:
    """``"0/A/H"`` or ``"1/2/bid"`` back to a spec; anything else is a ``RulesError``."""
    parts = text.split("/")
    if len(parts) != 3 or parts[0] not in ("0", "1", "2", "3"):
        raise RulesError(f"bad board {text!r}")
    try:
        level = parse_rank(parts[1])
        trump = None if parts[2] == "bid" else parse_trump(parts[2])
    except ValueError as exc:
        raise RulesError(f"bad board {text!r}") from exc
    return BoardSpec(int(parts[0]), level, trump)


def board_rules(base: Rules, spec: BoardSpec) -> Rules:
    """The rules a board is played under: the base preset (``duplicate``, document 002's, unless the
    organiser chose another), one hand, and nothing that redeals it.

    A revolution (革命) or a redeal would throw the fixed cards away, and 炒底
    would change a trump the board fixed, so a board turns them off; a preset
    whose fallback is "the dealer's side must declare" (a redeal when it
    cannot) flips the kitty instead. docs/rules.md ("Boards") says why.
    """
    fallback = "flip_kitty_level" if base.no_declaration == "forced_dealer" else base.no_declaration
    return dataclasses.replace(base, board=spec.to_str(), revolution=False, chao=False, no_declaration=fallback,
                               time_limit_minutes=None)


def check_board_rules(rules: Rules) -> BoardSpec:
    """The spec of a board match, refusing rules that could redeal or re-trump the fixed cards."""
    spec = parse_board(rules.board)
    if rules.revolution or rules.chao or rules.no_declaration == "forced_dealer":
        raise RulesError("a board is played without revolution, 炒底 or a forced redeal: use board_rules()")
    return spec


def board_deck(seed: int) -> list[int]:
    """The 108 cards in dealing order: the same shuffle a match's first hand makes from its seed."""
    deck = list(FULL_DECK)
    random.Random(f"tractor:{seed}:1").shuffle(deck)
    return deck


@dataclass(frozen=True, slots=True)
class BoardCards:
    hands: tuple[tuple[int, ...], ...]  # per seat, 25 faces each, in the order dealt
    kitty: tuple[int, ...]


def board_cards(seed: int, dealer: int) -> BoardCards:
    """Who holds what on a board (the dealer is dealt first), and the kitty the dealer takes."""
    deck = board_deck(seed)
    hands: list[list[int]] = [[] for _ in range(4)]
    for i, face in enumerate(deck[: 4 * HAND_CARDS]):
        hands[(dealer + i) % 4].append(face)
    return BoardCards(tuple(tuple(h) for h in hands), tuple(deck[4 * HAND_CARDS:]))


def dealer_of(number: int) -> int:
    """002 4.1: board 1 is dealt by North, 2 by West, 3 by South, 4 by East, and round again."""
    return (number - 1) % 4


def preset_level(number: int) -> int:
    """002 2.6 B: board 1 is played at A, board 2 at 2, board 3 at 3 ... and on round the ranks.

    (The appended board table is garbled and contradicts this; we follow the text of 2.6 B.)
    """
    return (number - 2) % 13


#: 002 4.4: when the defenders take nothing (光头), the dealer counts a net 200.
GUANGTOU_CREDIT = 200


def declarers_score(defender_points: int) -> int:
    """One table's result from the declaring side's view: minus the defenders' points, or +200 for 光头."""
    return GUANGTOU_CREDIT if defender_points <= 0 else -defender_points


@dataclass(frozen=True, slots=True)
class DrawnTrump:
    cards: tuple[int, ...]  # the card(s) drawn: a joker then the level card, or one card
    trump: int
    level: int


def draw_trump(seed: int) -> DrawnTrump:
    """002 2.6 C: draw a card of the board; its suit is trump and its rank the level.

    A joker means no trump, and cards are drawn again until one gives the level.
    The draw has its own random stream, so it tells nothing of the deal's order.
    """
    deck = board_deck(seed)
    rng = random.Random(f"board-draw:{seed}")
    drawn: list[int] = []
    while True:
        face = deck[rng.randrange(len(deck))]
        drawn.append(face)
        if face < SMALL_JOKER:
            break
    last = drawn[-1]
    trump = NO_TRUMP if len(drawn) > 1 else last // 13
    return DrawnTrump(tuple(drawn), trump, rank_of(last))
