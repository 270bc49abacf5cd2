"""Duplicate team matches in the league (issue 33, item 3): match points in their own columns, ties as ties.

Before, an 8:0 duplicate win went in as a one-level win (levels "3"/"2": 2:1 场分, the loser's 小分
0) and a tie on match points was not recorded at all. Every figure below is worked out by hand from
docs/leagues.md ("Duplicate team matches").
"""

from __future__ import annotations

import csv
import dataclasses
import io

import pytest

from bot.league import league_command, record_match
from bot.league.export import export_csv
from bot.league.ratings import Rating, rate_all
from bot.league.records import MatchRecord
from bot.league.scoring import big_small
from bot.league.standings import player_records, standings
from bot.platform import User, Where
from persistence.league_store import LeagueStore
from tests.league.sim import match


def dup(match_id: int, team0: tuple[str, str], team1: tuple[str, str], mp: tuple[int, int]) -> MatchRecord:
    winner = None if mp[0] == mp[1] else 0 if mp[0] > mp[1] else 1
    base = match(match_id, team0, team1, winner if winner is not None else 0, (0, 0))
    return dataclasses.replace(base, levels=("2", "2"), ending="duplicate", winner_team=winner, dup_points=mp)


LEVEL = match(1, ("A", "B"), ("C", "D"), 0, (12, 5))  # A & B win a level match by 7: 3+13 : 1+5, 3:0 场分
WIN = dup(2, ("A", "B"), ("C", "D"), (8, 0))  # A & B win a duplicate match 8:0
TIE = dup(3, ("A", "C"), ("B", "D"), (5, 5))  # a tie on match points
RECORDS = (LEVEL, WIN, TIE)


def test_a_duplicate_record_must_say_its_match_points_and_agree_with_its_winner() -> None:
    assert TIE.counts and TIE.winner_team is None and TIE.duplicate
    assert MatchRecord.from_dict(TIE.to_dict()) == TIE and MatchRecord.from_dict(WIN.to_dict()) == WIN
    with pytest.raises(ValueError, match="do not give winner"):
        dataclasses.replace(WIN, winner_team=1)
    with pytest.raises(ValueError, match="dup_points"):
        dataclasses.replace(WIN, dup_points=None)
    with pytest.raises(ValueError, match="dup_points"):
        dataclasses.replace(LEVEL, dup_points=(3, 1))
    with pytest.raises(ValueError):
        big_small(WIN)  # no levels: no 大分/小分 made up for it


def test_the_duplicate_columns_and_each_ranking_method() -> None:
    recs = player_records(list(RECORDS))
    a, b, c, d = (recs[f"u{n}"] for n in "ABCD")
    # the level columns hold the level match alone
    assert (a.matches, a.wins, a.big, a.small, a.points, a.standard) == (1, 1, 3, 13, 3.0, 17)  # 7 levels: 17:3
    assert (c.matches, c.wins, c.big, c.small, c.points, c.standard) == (1, 0, 1, 5, 0.0, 3)
    # the duplicate columns: A won 8:0 and tied 5:5; B won 8:0 and tied 5:5 on the other side; C lost and tied
    assert (a.dup_matches, a.dup_wins, a.dup_ties, a.dup_losses, a.dup_for, a.dup_against) == (2, 1, 1, 0, 13, 5)
    assert (b.dup_matches, b.dup_wins, b.dup_ties, b.dup_losses, b.dup_for, b.dup_against) == (2, 1, 1, 0, 13, 5)
    assert (c.dup_matches, c.dup_wins, c.dup_ties, c.dup_losses, c.dup_for, c.dup_against) == (2, 0, 1, 1, 5, 13)
    assert (d.dup_for, d.dup_against) == (5, 13)
    # bigsmall and matchpoints: levels only, the same order as without the duplicate matches
    for method in ("bigsmall", "matchpoints"):
        assert [s.user_id for s in standings(list(RECORDS), method)] == \
            [s.user_id for s in standings([LEVEL], method)]
    # plain: a win is a win, a tie half: A and B 2.5 of 3, C and D 0.5 of 3
    plain = standings(list(RECORDS), "plain")
    assert [(s.user_id, s.record.all_wins) for s in plain] == [("uA", 2.5), ("uB", 2.5), ("uC", 0.5), ("uD", 0.5)]
    # rating: the duplicate win moves it like any win, the tie as a tie (both sides' mu meet, σ shrinks)
    after_win = rate_all([WIN])
    assert after_win["uA"].mu > Rating().mu > after_win["uC"].mu
    tie_only = rate_all([TIE])
    assert tie_only["uA"].mu == pytest.approx(Rating().mu) and tie_only["uA"].sigma < Rating().sigma
    assert all(rate_all(list(RECORDS))[f"u{n}"].matches == 3 for n in "ABCD")


def test_export_has_the_match_points_and_no_level_scores_for_a_duplicate_match() -> None:
    rows = list(csv.DictReader(io.StringIO(export_csv(list(RECORDS), {}))))
    assert [(r["ending"], r["team0_dup_points"], r["team1_dup_points"]) for r in rows] == [
        ("target", "", ""), ("duplicate", "8", "0"), ("duplicate", "5", "5")]
    assert rows[1]["team0_big"] == rows[1]["team0_match_points"] == "" and rows[1]["winner_team"] == "0"
    assert rows[2]["winner_team"] == ""


async def test_standings_history_and_stats_show_them(store: LeagueStore) -> None:
    for r in RECORDS:
        assert await record_match(store, r)
    where, alice = Where("telegram", "g1"), User("telegram", "uA", "A")
    reply = await league_command(store, where, alice, "standings", ("plain",), "en", False)
    lines = reply.text.splitlines()
    assert lines[1].endswith("Dup W-T-L MP")
    assert lines[2] == "1. A (new) — 1 · 1 · 100% · 1-1-0 13:5", lines
    assert any(line.startswith("Duplicate team matches (002) are scored in match points") for line in lines)
    history = (await league_command(store, where, alice, "history", (), "en", False)).text
    assert "· 8:0 · A & B won on match points (duplicate) ·" in history
    assert "· 5:5 · a tie on match points (duplicate) ·" in history
    stats = (await league_command(store, where, alice, "stats", (), "en", False)).text
    assert "  duplicate: 2 matches, 1 won, 1 tied, 0 lost · match points 13:5" in stats
