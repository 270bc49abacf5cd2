"""From the host's finished table to a `MatchRecord`: the one place that reads engine results for the league.

The host calls `record(store, table, result)` when a match ends. The
engine's per-hand summaries (`Match.history`, or failing that the
`last_result` of each hand found by replaying the log) give who declared,
the defenders' points and whether the declarers held; levels gained are
counted from the levels after each hand.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, cast

from bot.feature import TableView
from bot.league.commands import record_match
from bot.league.records import Ending, HandSummary, MatchFormat, MatchRecord, SeatPlayer
from bot.league.standings import DEFAULT_METHOD, parse_method, standings
from bot.scene.types import LeagueLine, LeaguePlace
from bot.table.seats import Seat, SeatKind
from bot.table.state import TableMeta
from engine import Match
from engine.cards import level_steps
from engine.views import HandSummary as Summary
from persistence.league_store import LeagueStore


def hand_summaries(match: Match) -> list[Summary]:
    """Each finished hand's summary, in order (hands that were redealt or revolted included)."""
    history = getattr(match, "history", None)
    if isinstance(history, list):
        return [h.copy() for h in history]
    return _replayed_summaries(match)


def _replayed_summaries(match: Match) -> list[Summary]:
    """A match object that keeps no history (an older one) is played again from its log."""
    fresh = type(match).new(match.rules, seed=match.seed)
    out: list[Summary] = []
    seen: set[int] = set()
    for action in match.actions:
        fresh.apply(action)
        if fresh.phase in ("hand_over", "match_over"):
            res = fresh.public_view().get("last_result")
            no = int(fresh.public_view().get("hand_no", 0))
            if res and no not in seen:
                seen.add(no)
                out.append(res.copy())
    return out


def _hand(summary: Summary) -> HandSummary | None:
    """A played hand as the league keeps it; None for a redeal or revolution (nobody won it)."""
    if summary.get("reason", "played") != "played" or "declarer_team" not in summary:
        return None
    team = int(summary["declarer_team"])
    points = int(summary.get("defender_points", 0))
    winner = summary.get("winner")
    if winner not in ("declarers", "defenders"):
        return None  # the engine names the winner of every played hand; nothing to count without it
    return HandSummary(team, points, winner == "declarers")


def levels_gained(start: Sequence[str], summaries: Sequence[Summary]) -> tuple[int, int]:
    """Level steps each team climbed: net rank change per hand, a step down past 2 read as a wrap past A.

    A team that passes the target stays on the target rank, but passing it is a level played
    (004's "打过A"): it counts as one step, so a match won at the target is never a level tie.
    """
    gained = [0, 0]
    before = [str(x) for x in start]
    for s in summaries:
        after_raw = s.get("levels_after")
        if not after_raw:
            continue
        after = [str(x) for x in after_raw]
        hand_winner = _hand_winner_team(s)
        for team in (0, 1):
            gained[team] += level_steps(before[team], after[team], climbed=hand_winner == team)
        if s.get("passed") and hand_winner is not None:
            gained[hand_winner] += 1
        before = after
    return gained[0], gained[1]


def _hand_winner_team(summary: Summary) -> int | None:
    h = _hand(summary)
    return None if h is None else h.winner_team


def _team_or_none(value: object) -> int | None:
    return int(value) if isinstance(value, int) and value in (0, 1) else None


def _seat(seat: int, info: Mapping[str, Any] | Seat) -> SeatPlayer:
    if isinstance(info, Seat):  # an open table's seat (a stored row's is the plain dict)
        info = info.to_json()
    if info.get("kind") == SeatKind.HUMAN and info.get("user_id"):
        return SeatPlayer(seat, str(info["user_id"]), str(info.get("name", "?")))
    return SeatPlayer(seat, "", str(info.get("name", "AI")), is_ai=True)


def _when(value: object, default: datetime) -> datetime:
    if isinstance(value, int | float) and value > 0:
        return datetime.fromtimestamp(float(value), UTC)
    return default


def record_from_table(
    table: TableView,
    result: Mapping[str, object],
    *,
    started_at: datetime,
    ended_at: datetime,
    ending: Ending | None = None,
    forfeit_team: int | None = None,
) -> MatchRecord:
    """A `MatchRecord` for a host table whose engine match is over (or was stopped)."""
    match = table.match
    summaries = hand_summaries(match) if match is not None else []
    hands = tuple(h for h in (_hand(s) for s in summaries) if h is not None)
    told = result.get("levels")
    levels = ((told if isinstance(told, list) else None) or (summaries[-1].get("levels_after") if summaries else None)
              or ["2", "2"])
    start = ["2", "2"]  # every preset starts both teams at 2
    winner = result.get("winner_team")
    reason = ending or cast(Ending, result.get("reason", "target"))
    if reason not in ("target", "time_limit", "abandoned", "forfeit"):
        reason = "target"
    meta = getattr(table, "meta", {}) or {}
    if isinstance(meta, TableMeta):  # an open table's (a stored row's is the plain dict)
        meta = meta.to_json()
    settings = meta.get("settings") or {}
    fmt = meta.get("format") or (settings.get("format", "single") if isinstance(settings, dict) else "single")
    return MatchRecord(
        platform=str(table.platform_name),
        chat_id=str(table.chat_id),
        match_id=int(table.id),
        seats=tuple(_seat(i, s) for i, s in enumerate(table.seats[:4])),
        preset=str(meta.get("preset", "classic")),
        levels=(str(levels[0]), str(levels[1])),
        levels_gained=levels_gained(start, summaries),
        hands=hands,
        started_at=started_at,
        ended_at=ended_at,
        ending=reason,
        winner_team=None if reason == "abandoned" or not isinstance(winner, int) else winner,
        match_format=cast(MatchFormat, fmt if fmt in ("single", "best_of_3", "timed") else "single"),
        forfeit_team=forfeit_team if forfeit_team is not None else _team_or_none(result.get("forfeit_team")),
        on_top_team=hands[-1].declarer_team if hands else None,
    )


async def record(store: object, table: TableView, result: Mapping[str, object]) -> bool:
    """The host's hook: record the finished match of `table` in its chat's league (see `count`)."""
    return (await _record(store, table, result))[0]


async def count(store: object, table: TableView, result: Mapping[str, object]) -> LeagueLine | None:
    """Record a match played to its end and say where its winners stand now in the chat's season,
    ranked as `standings` ranks them (the league's method); None if it did not count (recorded
    before, abandoned, no person at the table)."""
    added, rec = await _record(store, table, result)
    if not added or not rec.counts or rec.winner_team is None:
        return None
    league = LeagueStore.of(store)
    info = await league.league(rec.platform, rec.chat_id)
    records = [MatchRecord.from_dict(d) for d in await league.matches(rec.platform, rec.chat_id, info.season)]
    rows = {s.user_id: s for s in await asyncio.to_thread(standings, records,
                                                         parse_method(info.method) or DEFAULT_METHOD)}
    people = [p for p in rec.team_players(rec.winner_team) if not p.is_ai] or list(rec.humans())
    places = tuple(LeaguePlace(s.name, s.position, s.record.wins, s.record.losses)
                   for s in (rows.get(p.user_id) for p in people) if s is not None)
    return LeagueLine(info.season, places) if places else None


async def _record(store: object, table: TableView, result: Mapping[str, object]) -> tuple[bool, MatchRecord]:
    """The host's hook: record the finished match of `table` in its chat's league.

    `result` is the engine's `Match.result` ({"winner_team", "levels",
    "reason": "target" | "time_limit"}); for a match the host stopped, pass
    {"reason": "abandoned"} or {"reason": "forfeit", "winner_team": w,
    "forfeit_team": 1 - w}.
    """
    now = datetime.now(UTC)
    stored = await store.get_match(table.id) if hasattr(store, "get_match") else None
    started = _when(getattr(stored, "created_at", None), now)
    ended = _when(getattr(stored, "finished_at", None), now)
    rec = record_from_table(table, result, started_at=started, ended_at=ended)
    return await record_match(store, rec), rec
