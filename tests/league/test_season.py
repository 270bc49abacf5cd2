"""A simulated season (tests/league/sim.py SEASON) against figures worked out by hand.

    M1  A&B beat C&D   gained 12:5   target      (3 hands, see M1_HANDS)
    M2  E&F beat A&C   gained 4:12   target
    M3  B&D beat E&F   gained 6:5    time limit
    M4  A&F beat C&E   C&E forfeit
    M5  D&F vs B&C     abandoned: counts nowhere

大分/小分:  A 3/13+1/4+3/13 = 7/30   B 3/13+3/13 = 6/26   C 1/5+1/4+0/0 = 2/9
           D 1/5+3/13 = 4/18        E 3/13+1/5+0/0 = 4/18  F 3/13+1/5+3/13 = 7/31
           D and E tie on 4/18; D's side beat E's in M3, so D ranks first.
场分 (std): A 3(17)+0(2)+2.5(12) = 5.5 (31)   B 3(17)+2(11) = 5 (28)   C 0 (3+2+0 = 5)
           D 0(3)+2(11) = 2 (14)   E 3(18)+1(9)+0 = 4 (27)   F 3(18)+1(9)+2.5(12) = 6.5 (39)
Wins:      A 2/3  B 2/2  C 0/3  D 1/2  E 1/3  F 2/3; A and F tie on 2 and 2/3, F beat A in M2.
"""

from __future__ import annotations

import math

import pytest

from bot.league.ratings import PROVISIONAL_MATCHES, Rating, rate_all, rate_match, win_probability
from bot.league.standings import movement, player_records, standings
from tests.league.sim import SEASON, match


def order(method: str) -> list[str]:
    return [s.name for s in standings(SEASON, method)]  # type: ignore[arg-type]


class TestSeasonStandings:
    def test_big_small_ranking_with_head_to_head(self) -> None:
        assert order("bigsmall") == ["F", "A", "B", "D", "E", "C"]
        recs = player_records(SEASON)
        assert {n: (recs[f"u{n}"].big, recs[f"u{n}"].small) for n in "ABCDEF"} == {
            "A": (7, 30), "B": (6, 26), "C": (2, 9), "D": (4, 18), "E": (4, 18), "F": (7, 31),
        }  # fmt: skip

    def test_head_to_head_decides_either_way(self) -> None:
        # Swap M3's result: now E's side beat D's, and E must rank above D.
        season = list(SEASON)
        season[2] = match(3, ("B", "D"), ("E", "F"), 1, (5, 6), ending="time_limit")
        recs = player_records(season)
        assert (recs["uD"].big, recs["uD"].small) == (2, 10)
        names = [s.name for s in standings(season, "bigsmall")]
        assert names.index("E") < names.index("B")

    def test_match_points_ranking(self) -> None:
        assert order("matchpoints") == ["F", "A", "B", "E", "D", "C"]
        recs = player_records(SEASON)
        assert {n: (recs[f"u{n}"].points, recs[f"u{n}"].standard) for n in "ABCDEF"} == {
            "A": (5.5, 31), "B": (5.0, 28), "C": (0.0, 5), "D": (2.0, 14), "E": (4.0, 27), "F": (6.5, 39),
        }  # fmt: skip

    def test_plain_ranking(self) -> None:
        assert order("plain") == ["B", "F", "A", "D", "E", "C"]

    def test_plain_records(self) -> None:
        recs = player_records(SEASON)
        a, c = recs["uA"], recs["uC"]
        assert (a.matches, a.wins, a.losses) == (3, 2, 1)
        assert (a.declarer_hands_won, a.defender_hands_won, a.average_defender_points) == (1, 0, 30.0)
        assert (c.declarer_hands_won, c.defender_hands_won, c.average_defender_points) == (1, 1, 65.0)
        assert recs["uE"].average_defender_points is None  # E never played a recorded hand
        best = a.best_partner()
        assert best is not None and best[0] == "uB" and (best[1].matches, best[1].wins) == (1, 1)
        assert recs["uC"].best_partner() is None  # C never won

    def test_abandoned_match_is_nowhere(self) -> None:
        assert sum(r.matches for r in player_records(SEASON).values()) == 4 * 4

    def test_ai_seats_are_left_out(self) -> None:
        recs = player_records([match(1, ("A", "ai"), ("ai", "D"), 0, (12, 5))])
        assert set(recs) == {"uA", "uD"}
        assert recs["uA"].best_partner() is None

    def test_movement(self) -> None:
        first = standings(SEASON[:1], "plain")
        now = standings(SEASON, "plain")
        before = {s.user_id: s.position for s in first}
        moves = movement(now, before)
        # After M1: A, B (2 wins... 1 win each, by name), then C, D. Now: B F A D E C.
        assert [s.name for s in first] == ["A", "B", "C", "D"]
        assert moves["uB"] == 1 and moves["uA"] == -2 and moves["uC"] == -3 and moves["uD"] == 0
        assert moves["uF"] is None and moves["uE"] is None


class TestRatings:
    def test_first_match_by_hand(self) -> None:
        # Plackett-Luce, two teams of two fresh players (mu 25, sigma 25/3, beta 25/6);
        # the model first adds the dynamics factor tau = 25/300 to each sigma:
        #   team variance s2 = 2 sigma^2, c^2 = 2 (s2 + beta^2), p(win) = 1/2
        #   mu' = mu +/- (s2 / c) * (1 - p) * sigma^2 / s2
        #   sigma'^2 = sigma^2 (1 - sigma^2 / s2 * (sqrt(s2) / c) * (s2 / c^2) * p (1 - p))
        sigma2 = (25 / 3) ** 2 + (25 / 300) ** 2
        s2 = 2 * sigma2
        c = math.sqrt(2 * (s2 + (25 / 6) ** 2))
        dmu = s2 / c * 0.5 * sigma2 / s2
        sigma_new = math.sqrt(sigma2 * (1 - sigma2 / s2 * (math.sqrt(s2) / c) * (s2 / c**2) * 0.25))
        r = rate_all(SEASON[:1])
        assert r["uA"].mu == pytest.approx(25 + dmu) == pytest.approx(26.9643, abs=1e-4)
        assert r["uC"].mu == pytest.approx(25 - dmu)
        for p in "ABCD":
            assert r[f"u{p}"].sigma == pytest.approx(sigma_new) == pytest.approx(8.1780, abs=1e-4)
            assert r[f"u{p}"].matches == 1 and r[f"u{p}"].provisional

    def test_forfeit_and_abandoned_do_not_move_ratings(self) -> None:
        r = rate_all(SEASON)
        assert r == rate_all(SEASON[:3])
        assert r["uA"].matches == 2 and r["uE"].matches == 2

    def test_ai_is_not_rated_and_input_is_left_alone(self) -> None:
        before: dict[str, Rating] = {}
        after = rate_match(before, match(1, ("A", "ai"), ("ai", "D"), 0, (12, 5)))
        assert before == {} and set(after) == {"uA", "uD"}
        assert after["uA"].mu > 25 > after["uD"].mu

    def test_a_strong_pair_rises_to_the_top(self) -> None:
        # X&Y beat every other pairing ten times; the rest trade wins.
        others = [("P", "Q"), ("R", "S"), ("P", "R"), ("Q", "S")]
        season = [match(i + 1, ("X", "Y"), others[i % 4], 0, (12, 6)) for i in range(10)]
        season += [
            match(11, ("P", "Q"), ("R", "S"), 0, (12, 10)),
            match(12, ("P", "R"), ("Q", "S"), 1, (9, 12)),
        ]
        table = standings(season, "rating")
        assert {s.name for s in table[:2]} == {"X", "Y"}
        assert not table[0].rating.provisional
        q_matches = table[[s.name for s in table].index("Q")].rating.matches
        assert q_matches == 7 and q_matches >= PROVISIONAL_MATCHES
        ratings = rate_all(season)
        assert win_probability([ratings["uX"], ratings["uY"]], [ratings["uP"], ratings["uQ"]]) > 0.7

    def test_provisional_mark_below_the_threshold(self) -> None:
        season = [match(i + 1, ("A", "B"), ("C", "D"), i % 2, (12, 6)) for i in range(PROVISIONAL_MATCHES)]
        assert rate_all(season[:-1])["uA"].provisional
        assert not rate_all(season)["uA"].provisional
