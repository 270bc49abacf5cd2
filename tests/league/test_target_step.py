"""A match won at the target is never scored as a level tie (issue 19, item 0).

Hand-computed: target 6, both teams climb 2 -> 6 (four steps each); team 0 then
passes 6 (the engine leaves it on 6 and marks the hand `passed`). Team 0 played
five levels, team 1 four: gap 1, so 004's table gives 11:9 and 场分 2:1, and 001's
大分/小分 give 3 + 13 to the winner, 1 + 4 to the loser. Before the fix this was
4:4, scored 10:10 and 1.5:1.5 — the winner earning what the loser did.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime
from typing import Any

from bot.league.bridge import levels_gained, record_from_table
from bot.league.records import MatchRecord
from bot.league.scoring import big_small, match_points
from engine import Match, preset
from engine.randplay import play_random_hand
from tests.league.sim import match
from tests.league.test_bridge import FakeMatch, FakeTable, summary

T0 = datetime(2026, 3, 1, 20, 0, tzinfo=UTC)

FOUR_ALL = [
    summary(1, 0, 0, "declarers", ["5", "2"]),
    summary(2, 0, 90, "defenders", ["5", "3"]),
    summary(3, 1, 0, "declarers", ["5", "6"]),
    summary(4, 1, 100, "defenders", ["6", "6"]),
    summary(5, 0, 20, "declarers", ["6", "6"], passed=True),
]


def test_passing_the_target_is_a_level_played() -> None:
    assert levels_gained(["2", "2"], FOUR_ALL) == (5, 4)


def test_four_all_at_the_target_scores_two_to_one() -> None:
    table = FakeTable(FakeMatch(FOUR_ALL))
    r = record_from_table(table, {"winner_team": 0, "levels": ["6", "6"], "reason": "target"},
                          started_at=T0, ended_at=T0)
    assert r.levels == ("6", "6") and r.levels_gained == (5, 4)
    won, lost = match_points(r)
    assert (won.points, won.standard, lost.points, lost.standard) == (2.0, 11, 1.0, 9)
    big = big_small(r)
    assert (big[0].big, big[0].small, big[1].big, big[1].small) == (3, 13, 1, 4)


def test_a_stored_version_one_record_gets_its_missing_step() -> None:
    old = match(7, ("A", "B"), ("C", "D"), 1, (4, 4)).to_dict()
    del old["v"]  # written before the fix
    r = MatchRecord.from_dict(old)
    assert r.levels_gained == (4, 5)
    assert [m.points for m in match_points(r)] == [1.0, 2.0]
    fresh = MatchRecord.from_dict(match(8, ("A", "B"), ("C", "D"), 1, (4, 5)).to_dict())
    assert fresh.levels_gained == (4, 5)  # a current record is read as written


def test_a_tie_on_the_clock_is_still_one_and_a_half_each() -> None:
    r = match(9, ("A", "B"), ("C", "D"), 0, (4, 4), ending="time_limit")
    assert [(m.points, m.standard) for m in match_points(r)] == [(1.5, 10), (1.5, 10)]


def test_real_engine_matches_won_at_the_target_are_decided() -> None:
    """Random legal play to a short target: every winner is ahead on levels gained."""
    for seed in range(6):
        m = Match.new(preset("classic", target="4"), seed=seed)
        rng = random.Random(seed)
        while m.result is None:
            play_random_hand(m, rng)
            if m.result is None and m.phase == "hand_over":
                m.apply({"t": "next"})
        result: dict[str, Any] = dict(m.result)
        got = levels_gained(["2", "2"], [dict(h) for h in m.history])
        w = int(result["winner_team"])
        assert got[w] > got[1 - w], (seed, got, result)
