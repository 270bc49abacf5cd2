"""Actions as small frozen value types, one per kind, and their JSON form.

The store keeps each action as the JSON dict ``to_json()`` gives; that dict
is exactly what the engine logged before these types existed
(``{"t": "play", "seat": 2, "cards": ["AS", "AS"]}``), so old logs load with
``action_from_json`` and replay unchanged. Cards are the engine's card
strings (``engine.cards``), canonical once parsed.

Like python-chess's ``Move``: build one directly (``Play(2, ("AS", "AS"))``)
or parse one (``action_from_json(d)``); only parsing validates the shape.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar, Literal, TypeAlias

from .cards import CARD_INDEX, CardError, card_str, parse_card
from .errors import IllegalAction, IllegalCode

#: Cards a system ``deal`` draws by default: one round of the table.
DEAL_STEP = 4
#: No action names more cards than a hand can hold (25 + the kitty).
MAX_CARDS = 33

ActionKind = Literal["deal", "declare", "pass", "close", "bury", "chao", "revolt", "play", "next", "time_up"]
#: An action's JSON form: the dict the store keeps.
ActionJSON: TypeAlias = dict[str, str | int | list[str]]


@dataclass(frozen=True, slots=True)
class Deal:
    """System: draw the next ``n`` cards in play order."""

    n: int = DEAL_STEP
    t: ClassVar[Literal["deal"]] = "deal"

    def to_json(self) -> ActionJSON:
        return {"t": "deal", "n": self.n}


@dataclass(frozen=True, slots=True)
class Declare:
    """A seat shows level card(s), or a joker pair where allowed, from the cards it has drawn."""

    seat: int
    cards: tuple[str, ...]
    t: ClassVar[Literal["declare"]] = "declare"

    def to_json(self) -> ActionJSON:
        return {"t": "declare", "seat": self.seat, "cards": list(self.cards)}


@dataclass(frozen=True, slots=True)
class Pass:
    """A seat makes no (further) bid in the declaring window or the 炒底 round."""

    seat: int
    t: ClassVar[Literal["pass"]] = "pass"

    def to_json(self) -> ActionJSON:
        return {"t": "pass", "seat": self.seat}


@dataclass(frozen=True, slots=True)
class Close:
    """System: the declaring window's deadline passed."""

    t: ClassVar[Literal["close"]] = "close"

    def to_json(self) -> ActionJSON:
        return {"t": "close"}


@dataclass(frozen=True, slots=True)
class Bury:
    """The seat holding the kitty puts eight cards back."""

    seat: int
    cards: tuple[str, ...]
    t: ClassVar[Literal["bury"]] = "bury"

    def to_json(self) -> ActionJSON:
        return {"t": "bury", "seat": self.seat, "cards": list(self.cards)}


@dataclass(frozen=True, slots=True)
class Chao:
    """炒底: a pair overrides trump after the bury; that seat then takes the kitty and buries."""

    seat: int
    cards: tuple[str, ...]
    t: ClassVar[Literal["chao"]] = "chao"

    def to_json(self) -> ActionJSON:
        return {"t": "chao", "seat": self.seat, "cards": list(self.cards)}


@dataclass(frozen=True, slots=True)
class Revolt:
    """革命 / 炸分: a defender with almost no points ends the hand, where the preset allows it."""

    seat: int
    t: ClassVar[Literal["revolt"]] = "revolt"

    def to_json(self) -> ActionJSON:
        return {"t": "revolt", "seat": self.seat}


@dataclass(frozen=True, slots=True)
class Play:
    """The seat to play leads or follows with these cards."""

    seat: int
    cards: tuple[str, ...]
    t: ClassVar[Literal["play"]] = "play"

    def to_json(self) -> ActionJSON:
        return {"t": "play", "seat": self.seat, "cards": list(self.cards)}


@dataclass(frozen=True, slots=True)
class Next:
    """System: the hand is over, deal the next one."""

    t: ClassVar[Literal["next"]] = "next"

    def to_json(self) -> ActionJSON:
        return {"t": "next"}


@dataclass(frozen=True, slots=True)
class TimeUp:
    """System: the match clock ran out; adjudicated as the preset says."""

    t: ClassVar[Literal["time_up"]] = "time_up"

    def to_json(self) -> ActionJSON:
        return {"t": "time_up"}


Action: TypeAlias = Deal | Declare | Pass | Close | Bury | Chao | Revolt | Play | Next | TimeUp
#: The kinds that name a seat, and those that name cards too.
SeatAction: TypeAlias = Declare | Pass | Bury | Chao | Revolt | Play
CardAction: TypeAlias = Declare | Bury | Chao | Play
ACTION_TYPES: tuple[type[Action], ...] = (Deal, Declare, Pass, Close, Bury, Chao, Revolt, Play, Next, TimeUp)


def action_from_json(data: object) -> Action:
    """The action a stored or received JSON dict names; a bad shape is refused.

    :raises IllegalAction: ``bad_action`` for a missing or unknown kind, a bad
        seat or count; ``bad_card`` for a card list that is not one, or a card
        that names no card (the codes the engine always gave). Keys the kind
        does not use are ignored, as they always were.
    """
    if not isinstance(data, Mapping):
        raise IllegalAction(IllegalCode.BAD_ACTION)
    t = data.get("t")
    if t == "play":
        return Play(_seat(data), _cards(data))
    if t == "deal":
        n = data.get("n", DEAL_STEP)
        if not isinstance(n, int) or isinstance(n, bool) or n < 1:
            raise IllegalAction(IllegalCode.BAD_ACTION)
        return Deal(n)
    if t == "declare":
        return Declare(_seat(data), _cards(data))
    if t == "pass":
        return Pass(_seat(data))
    if t == "close":
        return Close()
    if t == "bury":
        return Bury(_seat(data), _cards(data))
    if t == "chao":
        return Chao(_seat(data), _cards(data))
    if t == "revolt":
        return Revolt(_seat(data))
    if t == "next":
        return Next()
    if t == "time_up":
        return TimeUp()
    raise IllegalAction(IllegalCode.BAD_ACTION)


from_json = action_from_json


_TYPE_SET = frozenset(ACTION_TYPES)


def as_action(action: Action | Mapping[str, object]) -> Action:
    """A value type as it is; a JSON dict parsed (the one door for hosts holding JSON)."""
    if type(action) in _TYPE_SET:
        return action  # type: ignore[return-value]  # one of the value types (a set lookup, not ten isinstance)
    return action_from_json(action)


def _seat(data: Mapping[str, object]) -> int:
    seat = data.get("seat")
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < 4:
        raise IllegalAction(IllegalCode.BAD_ACTION)
    return seat


def _cards(data: Mapping[str, object]) -> tuple[str, ...]:
    cards = data.get("cards")
    if not isinstance(cards, list) or len(cards) > MAX_CARDS:
        raise IllegalAction(IllegalCode.BAD_CARD)
    return canonical_cards(cards)


def canonical_cards(cards: Sequence[object]) -> tuple[str, ...]:
    """Card strings in the engine's notation (``"10S"`` becomes ``"TS"``); anything else is ``bad_card``."""
    out: list[str] = []
    for c in cards:
        if not isinstance(c, str):
            raise IllegalAction(IllegalCode.BAD_CARD)
        if c in CARD_INDEX:
            out.append(c)
            continue
        try:
            out.append(card_str(parse_card(c)))
        except CardError:
            raise IllegalAction(IllegalCode.BAD_CARD) from None
    return tuple(out)


def action_faces(action: CardAction) -> tuple[int, ...]:
    """The faces (small ints) an action's cards name; names not canonical yet are parsed (``bad_card``)."""
    try:
        return tuple(map(CARD_INDEX.__getitem__, action.cards))
    except KeyError:
        return tuple(map(CARD_INDEX.__getitem__, canonical_cards(action.cards)))
