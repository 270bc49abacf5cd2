"""Scoring boards: 002's net-score conversion and 光头 rule, pairs scores, matchpoints against a field.

Pure functions over defenders' points, so each rule can be checked against
hand-computed examples (tests/duplicate/test_scoring.py). The choices where
002 is silent are in docs/rules.md ("Duplicate scoring").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

# 002 4.4's 光头 rule lives with the board model (a board's table says its result too)
from engine.boards import GUANGTOU_CREDIT as GUANGTOU_CREDIT
from engine.boards import declarers_score as declarers_score

#: 002, 附 分数换算表: the lowest net difference of each band and its match points, exactly as printed
#: (5-10: 1, 15-20: 2, 25-35: 3, 40-50: 4, 55-70: 5, 75-90: 6, 95-115: 7, 120-140: 8, 145-175: 9, 180+: 10).
CONVERSION: tuple[tuple[int, int], ...] = (
    (5, 1), (15, 2), (25, 3), (40, 4), (55, 5), (75, 6), (95, 7), (120, 8), (145, 9), (180, 10),
)


def match_points(net: int) -> int:
    """Match points for a net difference of this size (its sign says who gets them).

    Points come in fives, so every net lands in a printed band; a net between two bands
    (only a penalty of an odd size could make one) takes the lower band.
    """
    size = abs(net)
    won = 0
    for low, mp in CONVERSION:
        if size >= low:
            won = mp
    return won


def team_net(dealer_team: int, open_points: int, closed_points: int) -> int:
    """The home team's net on a board (002 4.4); negative when the visitors gained.

    The home team sits N-S (team 0) at the open table and E-W (team 1) at the
    closed one, so it declares at exactly one of the two tables.
    """
    open_score = declarers_score(open_points)
    closed_score = declarers_score(closed_points)
    if dealer_team == 0:  # home declares at the open table, defends at the closed
        return open_score - closed_score
    return closed_score - open_score


@dataclass(frozen=True)
class BoardSwing:
    net: int  # home's net difference
    home: int  # match points
    visitors: int


def board_swing(dealer_team: int, open_points: int, closed_points: int) -> BoardSwing:
    net = team_net(dealer_team, open_points, closed_points)
    mp = match_points(net)
    return BoardSwing(net, mp if net > 0 else 0, mp if net < 0 else 0)


def pair_score(defender_points: int, defending: bool) -> int:
    """002 4.5: a pair scores the defenders' actual points (光头 is 0): the defenders +, the declarers -."""
    actual = max(defender_points, 0)
    return actual if defending else -actual


def matchpoints(scores: Sequence[float]) -> list[float]:
    """Matchpoints against the field, as duplicate bridge scores pairs: 2 for each score beaten, 1 for each tie.

    ``scores[i]`` is result i on one board from one direction (higher is better).
    """
    return [float(sum(2 if s > o else 1 if s == o else 0 for j, o in enumerate(scores) if j != i))
            for i, s in enumerate(scores)]


def percentages(scores: Sequence[float]) -> list[float]:
    """Matchpoints as a share of the top (2 per other result); a lone result is an average 50 %."""
    if len(scores) < 2:
        return [50.0 for _ in scores]
    top = 2 * (len(scores) - 1)
    return [100.0 * mp / top for mp in matchpoints(scores)]
