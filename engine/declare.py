"""Showing trump (亮主): who may declare, reinforce and override what."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .cards import BIG_JOKER, NO_TRUMP, SMALL_JOKER, rank_of, suit_of
from .errors import IllegalAction, IllegalCode
from .rules import Rules

# 004k's ladder for pair against pair: 大王 > 小王 > ♠ > ♥ > ♣ > ♦ (suit indices S H D C)
_LADDER = {0: 3, 1: 2, 3: 1, 2: 0, SMALL_JOKER: 4, BIG_JOKER: 5}


@dataclass(frozen=True)
class Declaration:
    seat: int
    face: int
    count: int  # 1 single, 2 pair

    @property
    def suit(self) -> int:
        """The trump it sets: a suit index, or NO_TRUMP for a joker pair."""
        return NO_TRUMP if self.face >= SMALL_JOKER else suit_of(self.face)

    def strength(self) -> int:
        key = self.face if self.face >= SMALL_JOKER else suit_of(self.face)
        return _LADDER[key]


def validate(
    rules: Rules,
    current: Declaration | None,
    seat: int,
    faces: Sequence[int],
    held: int,
    level: int,
    open_hand: bool = False,
) -> Declaration:
    """The declaration that results from ``seat`` showing ``faces`` now, or a refusal.

    ``held`` is how many copies of the shown face the seat holds at this
    moment; ``level`` is the rank the seat may show.
    """
    got = judge(rules, current, seat, faces, held, level, open_hand)
    if type(got) is Declaration:
        return got
    raise IllegalAction(got)  # type: ignore[arg-type]  # not a Declaration: the refusal's code


def judge(
    rules: Rules,
    current: Declaration | None,
    seat: int,
    faces: Sequence[int],
    held: int,
    level: int,
    open_hand: bool = False,
) -> Declaration | IllegalCode:
    """``validate`` without raising: the declaration, or the code of the refusal.

    (Listing what a seat may declare asks this for every candidate after
    every card dealt; most are refused, and an exception costs more than
    the question.)
    """
    if not faces or len(faces) > 2 or len(set(faces)) != 1:
        return IllegalCode.CANNOT_OVERRIDE
    face = faces[0]
    joker = face >= SMALL_JOKER
    if not joker and rank_of(face) != level:
        return IllegalCode.NOT_LEVEL_CARD
    reinforcing = (
        current is not None
        and current.seat == seat
        and current.face == face
        and current.count == 1
        and len(faces) == 1
    )
    count = 2 if reinforcing else len(faces)
    if held < count:
        return IllegalCode.NOT_IN_HAND
    if reinforcing:
        if not rules.self_reinforce:
            return IllegalCode.CANNOT_OVERRIDE
        return Declaration(seat, face, 2)
    new = Declaration(seat, face, count)
    if joker and (count != 2 or not rules.joker_override or current is None):
        return IllegalCode.CANNOT_OVERRIDE if current is not None else IllegalCode.NOT_LEVEL_CARD
    if joker and open_hand and not rules.first_hand_joker_override:
        return IllegalCode.CANNOT_OVERRIDE
    if current is None:
        if count == 1 and not rules.declare_single:
            return IllegalCode.CANNOT_OVERRIDE
        return new
    if count != 2:
        return IllegalCode.CANNOT_OVERRIDE
    if new.suit == current.suit and not (joker and current.face != face):
        return IllegalCode.CANNOT_OVERRIDE
    if seat == current.seat and not rules.self_override:
        return IllegalCode.CANNOT_OVERRIDE
    partner = (seat - current.seat) % 4 == 2
    if partner and not rules.partner_override:
        return IllegalCode.CANNOT_OVERRIDE
    if (seat - current.seat) % 2 == 1 and not rules.opponent_override:
        return IllegalCode.CANNOT_OVERRIDE
    if current.count == 2:
        if rules.pair_vs_pair == "none":
            return IllegalCode.CANNOT_OVERRIDE
        if rules.pair_vs_pair in ("jokers", "any"):
            if current.face >= SMALL_JOKER and (not joker or new.face <= current.face):
                return IllegalCode.CANNOT_OVERRIDE  # only the big-joker pair beats the small one
            if not joker and rules.pair_vs_pair == "jokers":
                return IllegalCode.CANNOT_OVERRIDE
        elif new.strength() <= current.strength():
            return IllegalCode.CANNOT_OVERRIDE
    return new
