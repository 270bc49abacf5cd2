"""What a hand's result is worth to one side: the yardstick of every searched decision.

Points count from the line where the defenders start winning (80 in the
usual tables), so the two sides' values of one result are exact opposites:
a bid that makes the seat's side the dealers or the defenders is judged on
the same scale.
"""

from __future__ import annotations

from functools import cache

from ..rules import Rules
from ..scoring import level_change

WIN_BONUS = 30.0  # a won hand is worth this many points on top of the points themselves
LEVEL_BONUS = 10.0


@cache
def _line(table: str, rules: Rules) -> int:
    """The fewest points with which the defenders win the hand under this level table."""
    return next((p for p in range(0, 205, 5) if level_change(rules, p)[0] == "defenders"), 80)


def value_for(rules: Rules, points: int, defenders: bool) -> float:
    """A hand's result for one side: the defenders' points past the winning line (negated for the
    declarers) plus a bonus for winning the hand, larger the more levels it gains."""
    winner, levels = level_change(rules, points)
    won = (winner == "defenders") == defenders
    sign = 1.0 if defenders else -1.0
    line = _line(rules.level_table, rules)
    return sign * (points - line) + (WIN_BONUS + LEVEL_BONUS * levels) * (1.0 if won else -1.0)


def points_for(rules: Rules, points: int, defenders: bool) -> float:
    """The points alone, on the same scale as ``value_for`` without the bonus for winning: what a
    review (``review``) reports as points won or lost, for either side."""
    sign = 1.0 if defenders else -1.0
    return sign * (points - _line(rules.level_table, rules))
