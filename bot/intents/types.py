"""What a person asked the host, as typed values: parsed once at the edge, checked once at the table.

Every front door turns its input into one of these: a button press through the codec
(`bot.intents.codec`), typed text through the one text parser (`bot.intents.text`), the web page's
structured act as it is. The host and the table never read a token or split a line again.

A table intent carries `Drawn`: the match and the state version the person saw when they chose it
(the button's version, the inline answer's version, or, for a typed play, the version the host
stamped on it when it arrived). The table refuses an intent drawn for an earlier turn as out of
date; it is never played later (a second inline choice made for one trick must not become the lead
of the next).

Value types only: frozen, slotted, imported by the adapters, the host, the table and the scene,
and importing nothing of theirs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Cards = tuple[str, ...]
"""Cards in the engine's notation ("TS", "SJ", "BJ"), in the order the person chose them."""


@dataclass(frozen=True, slots=True)
class Drawn:
    """The match an intent is about and the state version it was drawn for (0: the lobby, no state yet)."""

    match_id: int
    version: int


# ----- the hand: a seated person's selection and moves -----

@dataclass(frozen=True, slots=True)
class Toggle:
    """Pick or unpick one card: `index` into the hand as it was drawn at the intent's version."""

    index: int


@dataclass(frozen=True, slots=True)
class ClearSelection:
    """Unpick every card."""


@dataclass(frozen=True, slots=True)
class PlaySelection:
    """Play the cards picked so far."""


@dataclass(frozen=True, slots=True)
class PlayCards:
    """Play these cards (an inline choice, a legal-play menu, a typed or web play)."""

    cards: Cards


@dataclass(frozen=True, slots=True)
class Declare:
    """Declare trump with these cards (all the same card)."""

    cards: Cards


@dataclass(frozen=True, slots=True)
class Chao:
    """Overcall (炒) with these cards."""

    cards: Cards


@dataclass(frozen=True, slots=True)
class Pass:
    """No declaration, no overcall."""


@dataclass(frozen=True, slots=True)
class BurySelection:
    """Bury the cards picked so far (eight of them)."""


@dataclass(frozen=True, slots=True)
class BuryCards:
    """Bury these cards (typed or from the web page)."""

    cards: Cards


@dataclass(frozen=True, slots=True)
class Revolt:
    """Call a revolt (革命)."""


@dataclass(frozen=True, slots=True)
class Hint:
    """Tell me a good move (typed only; changes nothing)."""


@dataclass(frozen=True, slots=True)
class Auto:
    """Make the suggested move for me (typed only)."""


@dataclass(frozen=True, slots=True)
class ShowHand:
    """Send my hand privately (the group table's button)."""


@dataclass(frozen=True, slots=True)
class Page:
    """Show page `n` of a hand too large for one grid of buttons."""

    n: int


@dataclass(frozen=True, slots=True)
class TakeSeatBack:
    """Take my seat back from the AI playing it."""


# ----- the lobby -----

@dataclass(frozen=True, slots=True)
class LobbyJoin:
    """Sit down at this table."""


@dataclass(frozen=True, slots=True)
class LobbyLeave:
    """Stand up."""


@dataclass(frozen=True, slots=True)
class LobbyStart:
    """Start the match."""


@dataclass(frozen=True, slots=True)
class LobbyAddBot:
    """Fill a seat with an AI."""


# ----- words that are not a table move -----

@dataclass(frozen=True, slots=True)
class Command:
    """A command with its arguments as typed ("new", ("classic",)); the command registry types them."""

    name: str
    args: tuple[str, ...] = ()


UnreadableReason = Literal["bad_token", "garbage", "bad_card", "which_joker", "bad_declaration", "select_first"]


@dataclass(frozen=True, slots=True)
class Unreadable:
    """Input that is no intent: answered with `err.<reason>` (naming `word`), and nothing changes."""

    reason: UnreadableReason
    word: str = ""


HandAct = (Toggle | ClearSelection | PlaySelection | PlayCards | Declare | Chao | Pass | BurySelection | BuryCards
           | Revolt | Hint | Auto | ShowHand | Page | TakeSeatBack)
"""An act of a seated person on their hand or seat."""

LobbyAct = LobbyJoin | LobbyLeave | LobbyStart | LobbyAddBot

TableAct = HandAct | LobbyAct
"""Everything that goes to one table's actor."""

ButtonAct = (Toggle | ClearSelection | PlaySelection | PlayCards | Declare | Chao | Pass | BurySelection | Revolt
             | ShowHand | Page | TakeSeatBack | LobbyJoin | LobbyLeave | LobbyStart | LobbyAddBot)
"""What a button (or an inline choice) may stand for: `bot.intents.codec` packs exactly these."""

Act = TableAct | Command | Unreadable
"""Anything a person asked, as the host is handed it."""

CARD_MOVES: tuple[type[PlayCards | Declare | Chao | BuryCards], ...] = (PlayCards, Declare, Chao, BuryCards)
"""The acts that name their cards."""


@dataclass(frozen=True, slots=True)
class Intent:
    """One act with the version it was drawn for.

    `drawn` is None for what is made "now" (a typed line, a command): the host binds it to the
    table's version when it arrives, so that it is checked against that turn and no later one."""

    act: Act
    drawn: Drawn | None = None
