"""Refusals with a machine-readable reason."""

from __future__ import annotations

from enum import StrEnum


class IllegalCode(StrEnum):
    """Why the rules refused an action. The values are stable: hosts key their messages on them."""

    WRONG_PHASE = "wrong_phase"
    NOT_YOUR_TURN = "not_your_turn"
    NOT_IN_HAND = "not_in_hand"
    WRONG_COUNT = "wrong_count"
    MIXED_SUITS = "mixed_suits"
    MUST_FOLLOW_SUIT = "must_follow_suit"
    MUST_FOLLOW_PAIRS = "must_follow_pairs"
    MUST_FOLLOW_TRACTOR = "must_follow_tractor"
    NOT_LEVEL_CARD = "not_level_card"
    CANNOT_OVERRIDE = "cannot_override"
    NO_DECLARATION_YET = "no_declaration_yet"
    BURY_COUNT = "bury_count"
    CANNOT_REVOLT = "cannot_revolt"
    BAD_CARD = "bad_card"
    BAD_ACTION = "bad_action"


class IllegalAction(ValueError):
    """An action the rules refuse. ``code`` is stable; ``params`` fill the message.

    A ``ValueError``: a refused action is a bad value, and callers that only
    know the standard library still catch it.
    """

    def __init__(self, code: IllegalCode | str, **params: int | str) -> None:
        c = IllegalCode(code)  # an unknown code is a bug in the engine: fail loudly
        super().__init__(c.value if not params else f"{c.value} {params}")
        self.code: IllegalCode = c
        self.params: dict[str, int | str] = params
