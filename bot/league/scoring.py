"""The rule documents' tournament scoring, as pure functions of match records.

- 大分/小分 (document 001, part c, item 六): the winner takes 3 大分 and
  13 小分; the loser 1 大分 and one 小分 per level it gained. Ranking is by
  大分, then 小分, then the head-to-head result between the tied.
- 场分 (document 004, part d, 三(二)): the level gap becomes a "20:0"
  standard score (>= 3 levels: 13:7 or more, 2: 12:8, 1: 11:9, 0: 10:10),
  then 场分 3:0 / 2.5:0.5 / 2:1 / 1.5:1.5. A forfeit gives the other side
  2.5 场分 and 12 standard points and the forfeiting side nothing.

Choices where the documents are silent (listed in the README): a forfeit
in the 大分 system gives the winner 3 + 13 and the forfeiter 0 + 0; a match
won on the time limit scores like any other win; abandoned matches score
nothing; 场分 ties are broken by standard points, then head-to-head.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from bot.league.records import MatchRecord

WINNER_BIG = 3
WINNER_SMALL = 13
LOSER_BIG = 1
FORFEIT_MATCH_POINTS = 2.5
FORFEIT_STANDARD = 12


@dataclass(frozen=True)
class BigSmall:
    """大分 and 小分 one team took from one match."""

    big: int
    small: int


@dataclass(frozen=True)
class MatchPoints:
    """场分 and the "20:0" standard points one team took from one match."""

    points: float
    standard: int


def big_small(record: MatchRecord) -> tuple[BigSmall, BigSmall]:
    """大分/小分 per team (index = team) for a counted match.

    :raises ValueError: for an abandoned match (it scores nothing) or a duplicate one (no levels).
    """
    winner = _winner(record)
    loser = 1 - winner
    out = [BigSmall(0, 0), BigSmall(0, 0)]
    out[winner] = BigSmall(WINNER_BIG, WINNER_SMALL)
    if record.ending == "forfeit":
        out[loser] = BigSmall(0, 0)
    else:
        out[loser] = BigSmall(LOSER_BIG, max(0, record.levels_gained[loser]))
    return out[0], out[1]


def standard_score(gap: int) -> tuple[int, int]:
    """The "20:0" standard score for a level gap, winner first (10+gap : 10-gap, capped at 20:0)."""
    gap = min(abs(gap), 10)
    return 10 + gap, 10 - gap


def points_for_gap(gap: int) -> tuple[float, float]:
    """场分 for a level gap, winner first."""
    gap = abs(gap)
    if gap >= 3:
        return 3.0, 0.0
    return {2: (2.5, 0.5), 1: (2.0, 1.0), 0: (1.5, 1.5)}[gap]


def match_points(record: MatchRecord) -> tuple[MatchPoints, MatchPoints]:
    """场分 and standard points per team (index = team) for a counted match.

    The gap is taken from the levels each team gained, so it stays right
    for presets that wrap past A.

    :raises ValueError: for an abandoned match, or a duplicate one (no levels).
    """
    winner = _winner(record)
    loser = 1 - winner
    out = [MatchPoints(0.0, 0), MatchPoints(0.0, 0)]
    if record.ending == "forfeit":
        out[winner] = MatchPoints(FORFEIT_MATCH_POINTS, FORFEIT_STANDARD)
        out[loser] = MatchPoints(0.0, 0)
    else:
        gap = max(0, record.levels_gained[winner] - record.levels_gained[loser])
        std_w, std_l = standard_score(gap)
        pts_w, pts_l = points_for_gap(gap)
        out[winner] = MatchPoints(pts_w, std_w)
        out[loser] = MatchPoints(pts_l, std_l)
    return out[0], out[1]


def _winner(record: MatchRecord) -> int:
    if not record.counts or record.winner_team is None or record.duplicate:
        raise ValueError(f"match {record.match_id} has no level result (abandoned, or duplicate)")
    return record.winner_team


# -- ranking ---------------------------------------------------------------


def head_to_head_wins(records: Iterable[MatchRecord], player: str, others: Iterable[str]) -> int:
    """How many times `player`'s team beat a team holding one of `others` (each match once)."""
    rivals = set(others) - {player}
    wins = 0
    for r in records:
        if not r.counts or r.winner_team is None:
            continue
        mine = [p for p in r.seats if p.user_id == player and not p.is_ai]
        if not mine:
            continue
        team = mine[0].team
        if team != r.winner_team:
            continue
        if any(p.user_id in rivals and not p.is_ai for p in r.team_players(1 - team)):
            wins += 1
    return wins


def rank_keys(
    players: Sequence[str],
    key: Callable[[str], tuple[float, ...]],
    records: Sequence[MatchRecord],
    *,
    name: Callable[[str], str] = str,
) -> list[str]:
    """Order players by `key` (higher first), breaking exact ties by head-to-head.

    Within a group tied on `key`, each player's wins against the others of
    that group decide (the winner of the direct meeting ranks higher); a
    tie that survives that is ordered by name, so the order is stable.
    """
    by_key: dict[tuple[float, ...], list[str]] = {}
    for p in players:
        by_key.setdefault(key(p), []).append(p)
    ordered: list[str] = []
    for k in sorted(by_key, reverse=True):
        group = by_key[k]
        if len(group) > 1:
            h2h = {p: head_to_head_wins(records, p, group) for p in group}
            group = sorted(group, key=lambda p: (-h2h[p], name(p), p))
        ordered.extend(group)
    return ordered
