"""Match formats from the rule documents: best of three and the time-limit adjudication.

The one implementation of each: `Match` adjudicates a match whose clock ran out with
`adjudicate_time_limit`, and the host deals a series' next game by `best_of_three_winner`.
They decide, they do not play.

- Best of three (001e final, 001i): the first team to win two games takes
  the series.
- Time limit, "ahead wins" (001a, 001h, 004g, 004l): when the clock runs
  out the side whose level is higher wins; equal levels go to the side on
  top (台上, the dealer side).
- Time limit, "both to A" (001b/001d, the `competition` preset): nobody
  wins yet; both teams are set to A and play goes on, the side ahead (on
  equal levels, the side that reached that level first) dealing first.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from .cards import parse_rank

TimeRule = Literal["ahead_wins", "both_to_a"]
TIME_RULES: tuple[TimeRule, ...] = ("ahead_wins", "both_to_a")

GAMES_TO_WIN = 2


def best_of_three_winner(game_winners: Sequence[int]) -> int | None:
    """The team that won the series, or None while it is still open.

    :raises ValueError: for a team other than 0/1, or games played after the series was decided.
    """
    wins = [0, 0]
    for i, team in enumerate(game_winners):
        if team not in (0, 1):
            raise ValueError(f"game {i + 1}: winner must be team 0 or 1, got {team!r}")
        if max(wins) >= GAMES_TO_WIN:
            raise ValueError(f"game {i + 1} was played after the series was decided")
        wins[team] += 1
    for team in (0, 1):
        if wins[team] >= GAMES_TO_WIN:
            return team
    return None


def games_needed(game_winners: Sequence[int]) -> int:
    """How many more games can still be played in the series (0 once decided)."""
    if best_of_three_winner(game_winners) is not None:
        return 0
    return 3 - len(game_winners)


@dataclass(frozen=True)
class Adjudication:
    """What happens when a match's clock runs out.

    Either `winner_team` is set (the match is over), or `continue_at` holds
    the levels play goes on at and `first_dealer_team` the side that deals.
    `reason` is "ahead", "tie_on_top" or "tie_first_reached".
    """

    winner_team: int | None
    reason: str
    continue_at: tuple[str, str] | None = None
    first_dealer_team: int | None = None

    @property
    def is_over(self) -> bool:
        return self.winner_team is not None


def adjudicate_time_limit(
    levels: tuple[str, str],
    on_top_team: int,
    *,
    rule: TimeRule = "ahead_wins",
    levels_gained: tuple[int, int] | None = None,
    reached_first_team: int | None = None,
) -> Adjudication:
    """Decide a match whose time ran out.

    Levels are compared by `levels_gained` when given (right for presets
    that wrap past A), else by rank. Ties go to the side on top under
    "ahead_wins"; under "both_to_a" the side that reached the level first
    deals first (the side on top when that is unknown).

    :raises ValueError: for an unknown rule or a team other than 0/1.
    """
    if rule not in TIME_RULES:
        raise ValueError(f"unknown time rule {rule!r}")
    if on_top_team not in (0, 1):
        raise ValueError(f"on_top_team must be 0 or 1, got {on_top_team!r}")
    a, b = levels_gained if levels_gained is not None else (parse_rank(levels[0]), parse_rank(levels[1]))
    if a != b:
        ahead, reason = (0 if a > b else 1), "ahead"
    elif rule == "both_to_a" and reached_first_team in (0, 1):
        ahead, reason = reached_first_team, "tie_first_reached"
    else:
        ahead, reason = on_top_team, "tie_on_top"
    if rule == "ahead_wins":
        return Adjudication(winner_team=ahead, reason=reason)
    return Adjudication(winner_team=None, reason=reason, continue_at=("A", "A"), first_dealer_team=ahead)
