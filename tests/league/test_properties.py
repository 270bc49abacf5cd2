"""Invariants over random seasons (hypothesis): what every scoring must keep."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.league.ratings import rate_match
from bot.league.records import MatchRecord
from bot.league.scoring import big_small, match_points
from bot.league.standings import METHODS, player_records, standings
from tests.league.sim import match

NAMES = ("A", "B", "C", "D", "E", "F", "ai")


@st.composite
def records(draw: st.DrawFn, match_id: int = 1) -> MatchRecord:
    four = draw(st.permutations(NAMES).map(lambda p: p[:4]))
    winner = draw(st.sampled_from((0, 1)))
    ending = draw(st.sampled_from(("target", "time_limit", "forfeit", "abandoned")))
    gained = [draw(st.integers(0, 12)), draw(st.integers(0, 12))]
    if ending == "target":
        gained[winner] = 13
    elif ending == "time_limit":
        gained[winner] = max(gained)
    return match(
        match_id,
        (four[0], four[2]),
        (four[1], four[3]),
        None if ending == "abandoned" else winner,
        (gained[0], gained[1]),
        ending=ending,
        forfeit_team=1 - winner if ending == "forfeit" else None,
    )


@st.composite
def seasons(draw: st.DrawFn) -> list[MatchRecord]:
    n = draw(st.integers(1, 12))
    return [draw(records(match_id=i + 1)) for i in range(n)]


class TestInvariants:
    @settings(max_examples=150, deadline=None)
    @given(records())
    def test_one_match(self, r: MatchRecord) -> None:
        if not r.counts:
            return
        w = r.winner_team
        assert w is not None
        bs, mp = big_small(r), match_points(r)
        assert bs[w].big == 3 and bs[w].small == 13
        if r.ending == "forfeit":
            assert (mp[w].points, mp[w].standard, mp[1 - w].points, mp[1 - w].standard) == (2.5, 12, 0.0, 0)
        else:
            assert mp[0].points + mp[1].points == 3.0
            assert mp[0].standard + mp[1].standard == 20
            assert mp[w].points >= mp[1 - w].points

    @settings(max_examples=100, deadline=None)
    @given(records())
    def test_ratings_move_the_right_way(self, r: MatchRecord) -> None:
        after = rate_match({}, r)
        if r.ending not in ("target", "time_limit"):
            assert after == {}
            return
        for p in r.humans():
            assert (after[p.user_id].mu > 25) == (p.team == r.winner_team)

    @settings(max_examples=60, deadline=None)
    @given(seasons())
    def test_every_table_ranks_every_human_once(self, season: list[MatchRecord]) -> None:
        humans = set(player_records(season))
        for method in METHODS:
            table = standings(season, method)
            assert [s.position for s in table] == list(range(1, len(table) + 1))
            assert {s.user_id for s in table} == humans
        recs = player_records(season)
        assert sum(p.matches for p in recs.values()) == sum(len(r.humans()) for r in season if r.counts)
