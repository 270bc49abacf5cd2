"""What a hand's result is worth to one side: the yardstick of every searched decision."""

from __future__ import annotations

from ..rules import Rules
from ..scoring import level_change

WIN_BONUS = 30.0  # a won hand is worth this many points on top of the points themselves
LEVEL_BONUS = 10.0


def value_for(rules: Rules, points: int, defenders: bool) -> float:
    """A hand's result for one side: its points (the defenders' points, negated for the declarers)
    plus a bonus for winning the hand, larger the more levels it gains."""
    winner, levels = level_change(rules, points)
    won = (winner == "defenders") == defenders
    sign = 1.0 if defenders else -1.0
    return sign * points + (WIN_BONUS + LEVEL_BONUS * levels) * (1.0 if won else -1.0)
