"""The scene: what one viewer (a seat, or an onlooker) sees of a table, typed and frozen.

A scene is built once per change of a table (`bot.scene.build`) from the engine's own views, and
every front door draws it: the chat text and buttons (`bot.scene.text`, `bot.views`), the web
page's frames (`bot.scene.wire`) and the terminal. A door never reads the engine or the table
itself, so no door can work out the table differently from the others, and no door can show what
its viewer may not know: the public part (`TableScene`) holds no card that is still in a hand, and
a viewer's `HandScene` holds that viewer's cards only.

Every value is a frozen, slotted dataclass of plain values (ints, strings, tuples), language-neutral:
the words are chosen by the door, in its reader's language, from the catalogs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, TypeAlias

from engine.views import HandEnd, MatchEnd, Phase, Side, TrumpName

#: The table's life: seats being taken, being played, paused by a vote, over.
Status: TypeAlias = Literal["lobby", "active", "paused", "finished", "abandoned", "broken"]
#: What a deadline is for: a play, the bury, the declaration window.
ClockKind: TypeAlias = Literal["turn", "bury", "declare"]
Cards: TypeAlias = tuple[str, ...]


@dataclass(frozen=True, slots=True)
class SeatInfo:
    """What the table shows about a seat's occupant (an input of the scene, from the table's seats)."""

    name: str
    is_ai: bool = False
    away: bool = False  # a person whose seat an AI keeps until `back`


@dataclass(frozen=True, slots=True)
class SeatFace:
    """One seat as everyone sees it."""

    seat: int
    team: int  # 0 or 1: seats 0 and 2 are team 0
    taken: bool  # False: an empty seat (in the lobby)
    name: str = ""
    is_ai: bool = False
    away: bool = False
    cards: int | None = None  # cards in hand, once dealt
    dealer: bool = False


@dataclass(frozen=True, slots=True)
class Played:
    """One seat's cards in a trick."""

    seat: int
    cards: Cards


@dataclass(frozen=True, slots=True)
class Won:
    """Who won one completed trick of the hand, its points and whether they count for the defenders
    (the cards are in `TableScene.last_trick` for the last one only)."""

    winner: int
    points: int
    counts: bool


@dataclass(frozen=True, slots=True)
class Trick:
    """A completed trick: who played what, who won it, its points and whether they count for the
    defenders (a trick the declarers win keeps its points off the defenders' total)."""

    plays: tuple[Played, ...]
    winner: int
    points: int
    counts: bool


@dataclass(frozen=True, slots=True)
class Clock:
    """A running deadline: what it is for and the seconds left when the scene was built."""

    kind: ClockKind
    seconds: float


@dataclass(frozen=True, slots=True)
class Turn:
    """Whom the table waits for (none between steps, while paused, at the end) and until when."""

    seats: tuple[int, ...] = ()
    clock: Clock | None = None


@dataclass(frozen=True, slots=True)
class Declared:
    """The declaration that makes (or, while cards are dealt, leads to) the trump."""

    seat: int
    cards: Cards
    suit: TrumpName  # what it makes trump: its suit, "NT" for jokers


@dataclass(frozen=True, slots=True)
class Trump:
    """The trump as the table knows it: decided, leading while the cards arrive, or not yet."""

    suit: TrumpName | None  # decided; None while undecided
    declared: Declared | None = None

    @property
    def final(self) -> bool:
        return self.suit is not None


@dataclass(frozen=True, slots=True)
class Summary:
    """A finished hand: what the group is told and every door shows at its end."""

    hand_no: int
    reason: HandEnd
    defenders: int  # the team that defended (did not deal)
    defender_points: int
    kitty: Cards
    kitty_points: int
    kitty_multiplier: int  # 0: the kitty stayed with the declarers
    penalties: int
    winner: int | None = None  # the team that won the hand (a played hand)
    side: Side | None = None  # whether the winners declared or defended
    levels_up: int = 0  # levels the winners climb (0: they only win the deal)
    knocked_to: str | None = None
    levels_after: tuple[str, str] | None = None
    next_dealer: int | None = None  # None: decided anew (a revolution), or the match is over
    final_trick: Trick | None = None  # the hand's last trick, while known


@dataclass(frozen=True, slots=True)
class Stake:
    """What the defenders' points would mean if the hand ended now, the kitty aside: who would win
    it and by how many levels, and the points at which that would change next (None: no more steps).
    Players of the game watch this line as the hand goes (rbtying/shengji's "next threshold")."""

    winner: int  # team
    side: Side
    levels_up: int
    next_at: int | None


@dataclass(frozen=True, slots=True)
class SeriesScore:
    """A best of three after this game: the games each team has won (this one counted), and
    whether that decides it."""

    wins: tuple[int, int]
    over: bool


@dataclass(frozen=True, slots=True)
class BoardScore:
    """A duplicate board's result at this table, as the event scores it: the side that declared,
    the defenders' points and the declarers' score (a board has no winner at its own table)."""

    number: int | None
    declarers: int  # team
    points: int
    score: int


@dataclass(frozen=True, slots=True)
class Stopped:
    """Where a match abandoned by its players' vote stood: the hand, and the defenders' points in
    it (`defenders` None: the deal had not decided who defends)."""

    hand_no: int
    defenders: int | None
    points: int


@dataclass(frozen=True, slots=True)
class LeaguePlace:
    """One person's standing in their chat's league once this match is counted: the place by the
    league's method (as `standings` shows it) and their wins and losses this season."""

    name: str
    place: int
    wins: int
    losses: int


@dataclass(frozen=True, slots=True)
class LeagueLine:
    """The league's line at a match's end: the season it counted in and where the winners stand now
    (every person at the table when the winners were all AI)."""

    season: int
    places: tuple[LeaguePlace, ...]


@dataclass(frozen=True, slots=True)
class Result:
    """The end of the match, and the line of what it belongs to (a best of three, a board), and
    the league's line when it counted there. A match abandoned by vote has no winner, and says
    where it stood (`stopped`)."""

    winner: int | None  # team; None only when abandoned
    levels: tuple[str, str]
    reason: MatchEnd | Literal["forfeit", "abandoned"]
    series: SeriesScore | None = None
    board: BoardScore | None = None
    stopped: Stopped | None = None
    league: LeagueLine | None = None


@dataclass(frozen=True, slots=True)
class Lobby:
    """A table still taking seats."""

    creator: str
    options: str = ""


@dataclass(frozen=True, slots=True)
class TableScene:
    """The public part of a scene: the same for every viewer of the table at one moment."""

    match_id: int
    version: int
    status: Status
    preset: str
    seats: tuple[SeatFace, ...]
    hand_no: int = 0
    phase: Phase | None = None  # None before the first deal (the lobby)
    level: str | None = None  # the rank played this hand
    levels: tuple[str, str] = ("2", "2")  # each team's level
    trump: Trump = Trump(None)
    declarers: int | None = None  # the dealing team, once known; the other team defends
    trick: tuple[Played, ...] = ()  # the trick being played, in playing order
    winning: int | None = None  # the seat whose play wins that trick so far (`engine.trick_leader`)
    last_trick: Trick | None = None
    tricks_played: int = 0
    won: tuple[Won, ...] = ()  # who won each completed trick of the hand, in order
    points: tuple[int, int] = (0, 0)  # points won in tricks, by team
    defender_points: int = 0  # the defenders' total (kitty and penalties included at the end)
    stake: Stake | None = None  # while cards are played: the hand's outcome at these points
    turn: Turn = Turn()
    summary: Summary | None = None  # the last finished hand (shown at its end)
    result: Result | None = None
    time_up: bool = False
    lobby: Lobby | None = None
    board: bool = False  # a board's one hand (document 002): played at its level, compared with other tables

    @property
    def defenders(self) -> int | None:
        return None if self.declarers is None else 1 - self.declarers

    @property
    def paused(self) -> bool:
        return self.status == "paused"

    @property
    def hand_over(self) -> bool:
        """The hand has ended and its summary is the news (not yet the next deal)."""
        return self.phase in (Phase.HAND_OVER, Phase.MATCH_OVER) and self.summary is not None


@dataclass(frozen=True, slots=True)
class Choices:
    """What a seat may do now, besides picking cards: each declaration and 炒底 bid with its cards,
    pass, 革命, whether it plays or buries now, and the AI's pick of 8 to start a bury from."""

    declare: tuple[Cards, ...] = ()
    chao: tuple[Cards, ...] = ()
    can_pass: bool = False
    revolt: bool = False
    play: bool = False
    bury: bool = False
    bury_pick: Cards = ()

    @property
    def any(self) -> bool:
        return bool(self.declare or self.chao or self.can_pass or self.revolt or self.play or self.bury)


@dataclass(frozen=True, slots=True)
class HandScene:
    """A seat's own cards (trumps first, strongest first, then by suit) and what it may do."""

    seat: int
    cards: Cards
    suits: tuple[str, ...]  # each card's group as the table reads it now: "T" for a trump, else its suit
    choices: Choices = Choices()
    picked: frozenset[int] = frozenset()  # indices into `cards` the person has selected
    kitty: Cards | None = None  # the kitty, to the seat burying it, while it buries
    buried: Cards | None = None  # what this seat buried, while it lies in the kitty


@dataclass(frozen=True, slots=True)
class Scene:
    """What one viewer sees: the table, and for a seat its hand and the refusal it was last given."""

    table: TableScene
    viewer: int | None = None  # the seat; None for an onlooker
    lang: str = "en"  # the viewer's language (the chat's for the group)
    hand: HandScene | None = None
    refusal: str | None = None  # a catalog key: why the seat's last move was refused
