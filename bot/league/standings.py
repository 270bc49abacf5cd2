"""Per-player tables for a league: plain records and standings by the chosen method.

All of it is a pure fold over `MatchRecord`s (oldest first), so a season,
the all-time table and a player's career across chats are the same code
run over different record lists.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from bot.league.ratings import Rating, rate_all
from bot.league.records import MatchRecord
from bot.league.scoring import big_small, match_points, rank_keys

Method = Literal["rating", "bigsmall", "matchpoints", "plain"]
METHODS: tuple[Method, ...] = ("rating", "bigsmall", "matchpoints", "plain")
DEFAULT_METHOD: Method = "rating"

#: Other spellings people type for a method.
METHOD_ALIASES: dict[str, Method] = {
    "rating": "rating",
    "skill": "rating",
    "openskill": "rating",
    "bigsmall": "bigsmall",
    "大分": "bigsmall",
    "大分小分": "bigsmall",
    "001": "bigsmall",
    "matchpoints": "matchpoints",
    "场分": "matchpoints",
    "004": "matchpoints",
    "plain": "plain",
    "wins": "plain",
}


def parse_method(text: str) -> Method | None:
    return METHOD_ALIASES.get(text.strip().lower())


@dataclass
class PartnerRecord:
    matches: int = 0
    wins: int = 0


@dataclass
class PlayerRecord:
    """Plain figures for one player over some matches."""

    user_id: str
    name: str
    matches: int = 0
    wins: int = 0
    declarer_hands_won: int = 0
    defender_hands_won: int = 0
    hands_played: int = 0
    defended_hands: int = 0
    defender_points_total: int = 0
    big: int = 0
    small: int = 0
    points: float = 0.0
    standard: int = 0
    # duplicate team matches (002): their own columns, in match points
    dup_matches: int = 0
    dup_wins: int = 0
    dup_ties: int = 0
    dup_for: int = 0
    dup_against: int = 0
    partners: dict[str, PartnerRecord] = field(default_factory=dict)
    partner_names: dict[str, str] = field(default_factory=dict)

    @property
    def losses(self) -> int:
        return self.matches - self.wins

    @property
    def win_rate(self) -> float:
        return self.wins / self.matches if self.matches else 0.0

    @property
    def dup_losses(self) -> int:
        return self.dup_matches - self.dup_wins - self.dup_ties

    @property
    def all_wins(self) -> float:
        """Wins over every kind of match, a duplicate tie as half (the `plain` method's count)."""
        return self.wins + self.dup_wins + self.dup_ties / 2

    @property
    def all_win_rate(self) -> float:
        played = self.matches + self.dup_matches
        return self.all_wins / played if played else 0.0

    @property
    def average_defender_points(self) -> float | None:
        """Mean points this player's side took per hand it defended."""
        if not self.defended_hands:
            return None
        return self.defender_points_total / self.defended_hands

    def best_partner(self) -> tuple[str, PartnerRecord] | None:
        """The human partner with the most wins together (then the better rate, then name)."""
        if not self.partners:
            return None
        best = min(
            self.partners.items(),
            key=lambda kv: (-kv[1].wins, -(kv[1].wins / kv[1].matches), self.partner_names.get(kv[0], kv[0])),
        )
        return best if best[1].wins > 0 else None


def player_records(records: Sequence[MatchRecord]) -> dict[str, PlayerRecord]:
    """Plain records and tournament scores per human player over counted matches; a duplicate
    match goes into the duplicate columns only (it has no levels to score)."""
    out: dict[str, PlayerRecord] = {}
    for r in records:
        if r.dup_points is not None:
            _add_duplicate(out, r, r.dup_points)
            continue
        if not r.counts or r.winner_team is None:
            continue
        bs = big_small(r)
        mp = match_points(r)
        for p in r.humans():
            rec = out.get(p.user_id)
            if rec is None:
                rec = out[p.user_id] = PlayerRecord(p.user_id, p.name)
            rec.name = p.name
            team = p.team
            won = team == r.winner_team
            rec.matches += 1
            rec.wins += int(won)
            rec.hands_played += r.hands_played
            rec.declarer_hands_won += r.declarer_hands_won(team)
            rec.defender_hands_won += r.defender_hands_won(team)
            defended = r.defender_points(team)
            rec.defended_hands += len(defended)
            rec.defender_points_total += sum(defended)
            rec.big += bs[team].big
            rec.small += bs[team].small
            rec.points += mp[team].points
            rec.standard += mp[team].standard
            partner = r.seat((p.seat + 2) % 4)
            if not partner.is_ai:
                pr = rec.partners.setdefault(partner.user_id, PartnerRecord())
                pr.matches += 1
                pr.wins += int(won)
                rec.partner_names[partner.user_id] = partner.name
    return out


def _add_duplicate(out: dict[str, PlayerRecord], r: MatchRecord, mp: tuple[int, int]) -> None:
    for p in r.humans():
        rec = out.get(p.user_id)
        if rec is None:
            rec = out[p.user_id] = PlayerRecord(p.user_id, p.name)
        rec.name = p.name
        team = p.team
        rec.dup_matches += 1
        rec.dup_wins += int(r.winner_team == team)
        rec.dup_ties += int(r.winner_team is None)
        rec.dup_for += mp[team]
        rec.dup_against += mp[1 - team]


@dataclass(frozen=True)
class Standing:
    """One line of a league table (`rating` is filled in only for the rating method)."""

    position: int
    record: PlayerRecord
    rating: Rating

    @property
    def user_id(self) -> str:
        return self.record.user_id

    @property
    def name(self) -> str:
        return self.record.name


def standings(records: Sequence[MatchRecord], method: Method) -> list[Standing]:
    """The league table for these matches (oldest first), ranked by `method`.

    rating: by the ordinal mu - 3 sigma (provisional players included);
    bigsmall: 大分, 小分, head-to-head; matchpoints: 场分, standard points,
    head-to-head; plain: wins, then win rate, then head-to-head. Duplicate
    matches move ratings and count in `plain` (a tie as half a win); 大分 and
    场分 are made of levels, which they do not have (docs/leagues.md).
    """
    recs = player_records(records)
    rates = rate_all(records) if method == "rating" else {}
    counted = [r for r in records if r.counts]

    def key(uid: str) -> tuple[float, ...]:
        p = recs[uid]
        if method == "rating":
            return (round(rates.get(uid, Rating()).ordinal, 9),)
        if method == "bigsmall":
            return (p.big, p.small)
        if method == "matchpoints":
            return (p.points, p.standard)
        return (p.all_wins, p.all_win_rate)

    order = rank_keys(list(recs), key, counted, name=lambda uid: recs[uid].name)
    return [Standing(i + 1, recs[uid], rates.get(uid, Rating())) for i, uid in enumerate(order)]


def movement(current: Sequence[Standing], previous: dict[str, int]) -> dict[str, int | None]:
    """Places moved since the positions last shown (positive = up; None = new in the table)."""
    out: dict[str, int | None] = {}
    for s in current:
        before = previous.get(s.user_id)
        out[s.user_id] = None if before is None else before - s.position
    return out
