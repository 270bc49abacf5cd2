"""The league's CSV export: one row per match, the columns a spreadsheet needs to recount everything."""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence

from bot.league.records import MatchRecord
from bot.league.scoring import big_small, match_points
from bot.league.tables import fmt_number

EXPORT_COLUMNS = (
    "match_id", "season", "started_at", "ended_at", "minutes", "preset", "format", "ending",
    "seat0_id", "seat0_name", "seat1_id", "seat1_name", "seat2_id", "seat2_name", "seat3_id", "seat3_name",
    "team0_level", "team1_level", "team0_gained", "team1_gained", "hands",
    "team0_declarer_hands_won", "team1_declarer_hands_won", "team0_defender_hands_won", "team1_defender_hands_won",
    "winner_team", "forfeit_team", "team0_big", "team0_small", "team1_big", "team1_small",
    "team0_match_points", "team0_standard", "team1_match_points", "team1_standard",
    "team0_dup_points", "team1_dup_points",
)  # fmt: skip


def _cell(text: str) -> str:
    """Defuse a player name a spreadsheet would run as a formula (=, +, -, @ first)."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def export_csv(records: Sequence[MatchRecord], seasons: dict[int, int]) -> str:
    """One CSV row per match (AI seats have an empty id and the name "AI"); a duplicate team match
    has its match points in the dup columns and no 大分/场分 (it has no levels)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(EXPORT_COLUMNS)
    for r in records:
        seats: list[str] = []
        for p in r.seats:
            seats += ["" if p.is_ai else p.user_id, "AI" if p.is_ai else _cell(p.name)]
        if r.counts and not r.duplicate:
            bs, mp = big_small(r), match_points(r)
            scores: list[object] = [bs[0].big, bs[0].small, bs[1].big, bs[1].small]
            scores += [fmt_number(mp[0].points), mp[0].standard, fmt_number(mp[1].points), mp[1].standard]
        else:
            scores = [""] * 8
        writer.writerow(
            [
                r.match_id, seasons.get(r.match_id, ""), r.started_at.isoformat(), r.ended_at.isoformat(),
                round(r.duration.total_seconds() / 60), r.preset, r.match_format, r.ending,
                *seats, r.levels[0], r.levels[1], r.levels_gained[0], r.levels_gained[1], r.hands_played,
                r.declarer_hands_won(0), r.declarer_hands_won(1), r.defender_hands_won(0), r.defender_hands_won(1),
                "" if r.winner_team is None else r.winner_team, "" if r.forfeit_team is None else r.forfeit_team,
                *scores, *(r.dup_points if r.dup_points is not None else ("", "")),
            ]
        )  # fmt: skip
    return out.getvalue()
