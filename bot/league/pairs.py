"""The pair table: fixed partnerships ranked as teams, for chats where the same two always sit together.

A pair is two people who sat opposite each other (AI partners make no pair).
Its figures are the team's over the matches they played together; the
ranking follows the league's method, with the `rating` method using the
two partners' mean conservative rating (the same individual ratings the
player table shows, so the two tables never disagree about who is strong).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bot.league.ratings import Rating, rate_all
from bot.league.records import MatchRecord
from bot.league.scoring import big_small, match_points
from bot.league.standings import Method
from bot.league.tables import Table, method_headers
from bot.league.texts import t

PairKey = tuple[str, str]


@dataclass
class PairRecord:
    """A partnership's figures over the matches its two people played as partners."""

    key: PairKey
    names: tuple[str, str]
    matches: int = 0
    wins: int = 0
    big: int = 0
    small: int = 0
    points: float = 0.0
    standard: int = 0
    rating: float = 0.0

    @property
    def win_rate(self) -> float:
        return self.wins / self.matches if self.matches else 0.0

    @property
    def name(self) -> str:
        return " & ".join(self.names)


def _pair(record: MatchRecord, team: int) -> tuple[PairKey, tuple[str, str]] | None:
    a, b = record.team_players(team)
    if a.is_ai or b.is_ai:
        return None
    first, second = sorted((a, b), key=lambda p: p.user_id)
    return (first.user_id, second.user_id), (first.name, second.name)


def pair_records(records: Sequence[MatchRecord]) -> dict[PairKey, PairRecord]:
    out: dict[PairKey, PairRecord] = {}
    for r in records:
        if not r.counts or r.winner_team is None or r.duplicate:
            continue  # a duplicate match has no levels to score; `standings` shows it per player
        bs, mp = big_small(r), match_points(r)
        for team in (0, 1):
            found = _pair(r, team)
            if found is None:
                continue
            key, names = found
            rec = out.setdefault(key, PairRecord(key, names))
            rec.names = names  # the latest spelling
            rec.matches += 1
            rec.wins += int(team == r.winner_team)
            rec.big += bs[team].big
            rec.small += bs[team].small
            rec.points += mp[team].points
            rec.standard += mp[team].standard
    return out


def _pair_wins(records: Sequence[MatchRecord], pair: PairKey, rivals: set[PairKey]) -> int:
    """Head-to-head: matches `pair` won against one of `rivals`."""
    wins = 0
    for r in records:
        if not r.counts or r.winner_team is None:
            continue
        teams = [_pair(r, 0), _pair(r, 1)]
        w = r.winner_team
        mine, theirs = teams[w], teams[1 - w]
        if mine is not None and theirs is not None and mine[0] == pair and theirs[0] in rivals:
            wins += 1
    return wins


def pair_standings(records: Sequence[MatchRecord], method: Method) -> list[PairRecord]:
    """Pairs ranked by the method's figures, then head-to-head among the tied, then by name."""
    recs = pair_records(records)
    if method == "rating":
        rates = rate_all(records)
        for rec in recs.values():
            rec.rating = sum(rates.get(uid, Rating()).ordinal for uid in rec.key) / 2

    def key(p: PairRecord) -> tuple[float, ...]:
        if method == "rating":
            return (round(p.rating, 9),)
        if method == "bigsmall":
            return (p.big, p.small)
        if method == "matchpoints":
            return (p.points, p.standard)
        return (p.wins, p.win_rate)

    groups: dict[tuple[float, ...], list[PairRecord]] = {}
    for p in recs.values():
        groups.setdefault(key(p), []).append(p)
    ordered: list[PairRecord] = []
    for k in sorted(groups, reverse=True):
        group = groups[k]
        keys = {p.key for p in group}
        group.sort(key=lambda p: (-_pair_wins(records, p.key, keys - {p.key}), p.name))
        ordered.extend(group)
    return ordered


def pairs_table(rows: Sequence[PairRecord], method: Method, lang: str, *, title: str) -> Table:
    """Columns: place, (no movement), pair, matches, wins, then the method's figures."""
    headers = [t("col_pos", lang), "", t("col_pair", lang), t("col_matches", lang), t("col_wins", lang),
               *method_headers(method, lang)]
    out: list[tuple[str, ...]] = []
    for i, p in enumerate(rows):
        line = [str(i + 1), "", p.name, str(p.matches), str(p.wins)]
        if method == "rating":
            line.append(f"{p.rating:.1f}")
        elif method == "bigsmall":
            line += [str(p.big), str(p.small)]
        elif method == "matchpoints":
            line += [f"{p.points:.1f}", str(p.standard)]
        else:
            line.append(f"{round(100 * p.win_rate)}%")
        out.append(tuple(line))
    return Table(title, tuple(headers), tuple(out))
