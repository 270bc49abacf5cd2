"""What a seat, or the table, may know: typed, read-only, and already JSON.

The views are ``TypedDict``s rather than dataclasses because the host draws
them very often (a seat view per message, the public view cached per state
version): a dict built once is the fastest thing to make, and it is its own
JSON, so ``to_json`` hands back the same object for the AI's inputs and a web
client. Every key is typed and read-only to the type checker; at run time
they are plain dicts, so treat them as frozen (the public view is shared).

Phases and seat kinds are ``StrEnum``s: a member equals its string, and
stored or sent JSON is unchanged.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Literal, NotRequired, TypeAlias

from typing_extensions import ReadOnly, TypedDict


class Phase(StrEnum):
    DEALING = "dealing"
    DECLARING = "declaring"  # the short window after the last card
    BURYING = "burying"
    CHAO = "chao"  # the 炒底 round
    PLAYING = "playing"
    HAND_OVER = "hand_over"
    MATCH_OVER = "match_over"


#: The suit letters, ``"NT"`` for no trump; ``None`` in a view while undecided.
TrumpName: TypeAlias = Literal["S", "H", "D", "C", "NT"]
HandEnd: TypeAlias = Literal["played", "revolution", "redeal"]
MatchEnd: TypeAlias = Literal["target", "time_limit", "board"]
Side: TypeAlias = Literal["declarers", "defenders"]
#: One seat's cards in a trick: ``(seat, cards)``; JSON shows it as a two-item list.
TrickPlay: TypeAlias = tuple[int, list[str]]


class DeclarationView(TypedDict):
    seat: ReadOnly[int]
    cards: ReadOnly[list[str]]


class TrickRecord(TypedDict):
    plays: ReadOnly[list[TrickPlay]]
    winner: ReadOnly[int]
    points: ReadOnly[int]


class NextLevels(TypedDict):
    declarers: ReadOnly[str]
    defenders: ReadOnly[str]


class HandSummary(TypedDict):
    """A finished hand, as views, events and the match history show it."""

    reason: ReadOnly[HandEnd]
    dealer: ReadOnly[int]
    declarer_team: ReadOnly[int]
    defender_points: ReadOnly[int]
    kitty: ReadOnly[list[str]]
    kitty_points: ReadOnly[int]
    kitty_multiplier: ReadOnly[int]
    penalties: ReadOnly[int]
    # a played hand (not a revolution or a redeal):
    winner: NotRequired[ReadOnly[Side]]
    levels: NotRequired[ReadOnly[int]]  # levels the winner climbs
    next_levels: NotRequired[ReadOnly[NextLevels]]
    passed: NotRequired[ReadOnly[bool]]
    knocked_to: NotRequired[ReadOnly[str]]
    # added by the match:
    hand_no: NotRequired[ReadOnly[int]]
    levels_after: NotRequired[ReadOnly[list[str]]]


class MatchResult(TypedDict):
    winner_team: ReadOnly[int]
    levels: ReadOnly[list[str]]
    reason: ReadOnly[MatchEnd]


class HandPublic(TypedDict):
    """The hand's part of every view."""

    phase: ReadOnly[Phase]
    dealer: ReadOnly[int | None]
    declarers: ReadOnly[list[int] | None]
    level: ReadOnly[str]
    trump: ReadOnly[TrumpName | None]
    declaration: ReadOnly[DeclarationView | None]
    trick: ReadOnly[list[TrickPlay]]
    leader: ReadOnly[int | None]
    turn: ReadOnly[int | None]
    last_trick: ReadOnly[list[TrickPlay]]
    last_trick_winner: ReadOnly[int | None]
    defender_points: ReadOnly[int]
    tricks_played: ReadOnly[int]
    tricks: ReadOnly[list[TrickRecord]]
    lead_shape: ReadOnly[list[int]]
    hand_counts: ReadOnly[list[int]]
    cards_dealt: ReadOnly[int]
    burier: ReadOnly[int | None]
    chao_turn: ReadOnly[int | None]
    forced: ReadOnly[bool]
    to_act: ReadOnly[list[int]]


class PublicView(HandPublic):
    """What the group and spectators see: no hand."""

    hand_no: ReadOnly[int]
    levels: ReadOnly[list[str]]
    version: ReadOnly[int]
    last_result: ReadOnly[HandSummary | None]
    result: ReadOnly[MatchResult | None]
    rules: ReadOnly[str]
    rules_options: ReadOnly[dict[str, object]]
    time_up: ReadOnly[bool]


class SeatView(PublicView):
    """What one seat may know: the public view and its own cards."""

    seat: ReadOnly[int]
    hand: ReadOnly[list[str]]  # trumps first (strongest first), then by suit
    can_revolt: ReadOnly[bool]
    kitty: NotRequired[ReadOnly[list[str]]]  # the seat burying it, while it buries
    buried: NotRequired[ReadOnly[list[str]]]  # what this seat buried, while it lies in the kitty


def to_json(view: PublicView | SeatView) -> Mapping[str, object]:
    """The JSON for the AI's inputs and web clients: the view is already JSON-able, so it is itself."""
    return view
