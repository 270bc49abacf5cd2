"""Best of three and the time-limit adjudication of the documents."""

from __future__ import annotations

import pytest

from engine.formats import adjudicate_time_limit, best_of_three_winner, games_needed


class TestBestOfThree:
    def test_two_straight_wins(self) -> None:
        assert best_of_three_winner([1, 1]) == 1
        assert games_needed([1, 1]) == 0

    def test_decider(self) -> None:
        assert best_of_three_winner([0, 1]) is None
        assert games_needed([0, 1]) == 1
        assert best_of_three_winner([0, 1, 0]) == 0

    def test_open_series(self) -> None:
        assert best_of_three_winner([]) is None
        assert games_needed([]) == 3

    def test_no_game_after_the_decision(self) -> None:
        with pytest.raises(ValueError):
            best_of_three_winner([0, 0, 1])

    def test_bad_team(self) -> None:
        with pytest.raises(ValueError):
            best_of_three_winner([2])


class TestTimeLimit:
    def test_side_ahead_wins(self) -> None:
        a = adjudicate_time_limit(("9", "J"), on_top_team=0)
        assert a.is_over and a.winner_team == 1 and a.reason == "ahead"

    def test_tie_goes_to_the_side_on_top(self) -> None:
        a = adjudicate_time_limit(("8", "8"), on_top_team=1)
        assert a.winner_team == 1 and a.reason == "tie_on_top"

    def test_levels_gained_override_ranks_for_wrapping_presets(self) -> None:
        a = adjudicate_time_limit(("3", "K"), on_top_team=1, levels_gained=(14, 11))
        assert a.winner_team == 0

    def test_competition_sends_both_to_a_and_goes_on(self) -> None:
        a = adjudicate_time_limit(("Q", "9"), on_top_team=1, rule="both_to_a")
        assert not a.is_over
        assert a.continue_at == ("A", "A")
        assert a.first_dealer_team == 0 and a.reason == "ahead"

    def test_competition_tie_first_to_reach_deals(self) -> None:
        a = adjudicate_time_limit(("K", "K"), on_top_team=0, rule="both_to_a", reached_first_team=1)
        assert a.first_dealer_team == 1 and a.reason == "tie_first_reached"
        b = adjudicate_time_limit(("K", "K"), on_top_team=0, rule="both_to_a")
        assert b.first_dealer_team == 0 and b.reason == "tie_on_top"

    def test_bad_input(self) -> None:
        with pytest.raises(ValueError):
            adjudicate_time_limit(("2", "3"), on_top_team=2)
        with pytest.raises(ValueError):
            adjudicate_time_limit(("2", "3"), on_top_team=0, rule="coin")  # type: ignore[arg-type]
