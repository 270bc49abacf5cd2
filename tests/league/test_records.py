"""MatchRecord: validation, derived figures and the JSON round trip."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest

from bot.league.records import MatchRecord, SeatPlayer, gained_between, rank_index
from tests.league.sim import M1_HANDS, match


class TestMatchRecord:
    def test_round_trip_through_json(self) -> None:
        r = match(7, ("张三", "ai"), ("Bob", "李四"), 1, (4, 9), hands=M1_HANDS, ending="time_limit")
        back = MatchRecord.from_dict(json.loads(json.dumps(r.to_dict())))
        assert back == r

    def test_derived_figures(self) -> None:
        r = match(1, ("A", "B"), ("C", "D"), 0, (12, 5), hands=M1_HANDS, minutes=95)
        assert r.duration == timedelta(minutes=95)
        assert r.hands_played == 3
        assert r.declarer_hands_won(0) == 1 and r.declarer_hands_won(1) == 1
        assert r.defender_hands_won(0) == 0 and r.defender_hands_won(1) == 1
        assert r.defender_points(0) == (30,)
        assert r.defender_points(1) == (40, 90)
        assert [p.name for p in r.team_players(0)] == ["A", "B"]

    def test_ai_seats_are_not_humans(self) -> None:
        r = match(1, ("A", "ai"), ("ai", "D"), 0, (12, 5))
        assert [p.name for p in r.humans()] == ["A", "D"]

    def test_only_abandoned_matches_lack_a_winner(self) -> None:
        with pytest.raises(ValueError):
            match(1, ("A", "B"), ("C", "D"), None, (1, 1))

    def test_forfeit_names_the_forfeiter(self) -> None:
        with pytest.raises(ValueError):
            match(1, ("A", "B"), ("C", "D"), 0, (1, 1), ending="forfeit")
        with pytest.raises(ValueError):
            match(1, ("A", "B"), ("C", "D"), 0, (1, 1), ending="forfeit", forfeit_team=0)

    def test_four_seats_needed(self) -> None:
        r = match(1, ("A", "B"), ("C", "D"), 0, (12, 5))
        with pytest.raises(ValueError):
            MatchRecord(**{**r.__dict__, "seats": (SeatPlayer(0, "u", "x"),)})

    def test_ranks(self) -> None:
        assert rank_index("2") == 0 and rank_index("T") == rank_index("10") == 8 and rank_index("a") == 12
        assert gained_between("2", "7") == 5
        with pytest.raises(ValueError):
            rank_index("1")
