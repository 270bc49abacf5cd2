"""Leagues: every finished match feeds its chat's league (seasons, ratings, tournament scores)."""

from bot.league.commands import LeagueReply, league_command, record_match
from bot.league.records import HandSummary, MatchRecord, SeatPlayer

__all__ = ["HandSummary", "LeagueReply", "MatchRecord", "SeatPlayer", "league_command", "record_match"]
