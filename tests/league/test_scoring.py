"""大分/小分 (001c 六) and 场分 (004d 三(二)) for single matches."""

from __future__ import annotations

import pytest

from bot.league.scoring import BigSmall, MatchPoints, big_small, match_points, points_for_gap, standard_score
from tests.league.sim import match


class TestBigSmall:
    def test_winner_three_and_thirteen_loser_one_and_levels_gained(self) -> None:
        r = match(1, ("A", "B"), ("C", "D"), 0, (12, 5))
        assert big_small(r) == (BigSmall(3, 13), BigSmall(1, 5))

    def test_winner_team_one(self) -> None:
        r = match(1, ("A", "B"), ("C", "D"), 1, (7, 13))
        assert big_small(r) == (BigSmall(1, 7), BigSmall(3, 13))

    def test_loser_that_never_climbed_gets_no_small_points(self) -> None:
        r = match(1, ("A", "B"), ("C", "D"), 0, (13, 0))
        assert big_small(r)[1] == BigSmall(1, 0)

    def test_forfeit_gives_the_forfeiter_nothing(self) -> None:
        r = match(1, ("A", "B"), ("C", "D"), 1, (5, 2), ending="forfeit", forfeit_team=0)
        assert big_small(r) == (BigSmall(0, 0), BigSmall(3, 13))

    def test_abandoned_match_scores_nothing(self) -> None:
        r = match(1, ("A", "B"), ("C", "D"), None, (1, 1), ending="abandoned")
        with pytest.raises(ValueError):
            big_small(r)


class TestMatchPoints:
    @pytest.mark.parametrize(
        ("gap", "standard", "points"),
        [
            (0, (10, 10), (1.5, 1.5)),
            (1, (11, 9), (2.0, 1.0)),
            (2, (12, 8), (2.5, 0.5)),
            (3, (13, 7), (3.0, 0.0)),
            (5, (15, 5), (3.0, 0.0)),
            (12, (20, 0), (3.0, 0.0)),
        ],
    )
    def test_gap_table(self, gap: int, standard: tuple[int, int], points: tuple[float, float]) -> None:
        assert standard_score(gap) == standard
        assert points_for_gap(gap) == points

    def test_match_uses_levels_gained(self) -> None:
        r = match(1, ("A", "B"), ("C", "D"), 1, (6, 8), ending="time_limit")
        assert match_points(r) == (MatchPoints(0.5, 8), MatchPoints(2.5, 12))

    def test_level_tie_on_time_gives_both_one_and_a_half(self) -> None:
        r = match(1, ("A", "B"), ("C", "D"), 0, (6, 6), ending="time_limit")
        assert match_points(r) == (MatchPoints(1.5, 10), MatchPoints(1.5, 10))

    def test_forfeit_gives_two_and_a_half_and_twelve(self) -> None:
        r = match(1, ("A", "B"), ("C", "D"), 0, (1, 9), ending="forfeit", forfeit_team=1)
        assert match_points(r) == (MatchPoints(2.5, 12), MatchPoints(0.0, 0))
