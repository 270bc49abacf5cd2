"""Skill ratings for two-player teams, built from individual ratings.

We use OpenSkill's Plackett-Luce model (the `openskill` package, MIT,
actively maintained): each player has (mu, sigma); a team is the sum of
its two players, so a rating follows the player through any partnership.
A match updates all four players at once. The shown figure is the
conservative ordinal mu - 3*sigma, and a player with fewer than
`PROVISIONAL_MATCHES` rated matches is marked provisional.

What counts: matches won at the target or on the time limit. Abandoned and
forfeited matches say nothing about skill and are not rated. AI seats play
with a fixed default rating that is never updated, so partnering an AI
neither helps nor hurts beyond what the match result says.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce

from bot.league.records import MatchRecord

PROVISIONAL_MATCHES = 5

_MODEL = PlackettLuce()
DEFAULT_MU: float = _MODEL.mu
DEFAULT_SIGMA: float = _MODEL.sigma


@dataclass(frozen=True)
class Rating:
    """One player's skill estimate after `matches` rated matches."""

    mu: float = DEFAULT_MU
    sigma: float = DEFAULT_SIGMA
    matches: int = 0

    @property
    def ordinal(self) -> float:
        """The conservative figure shown in standings: mu - 3 sigma."""
        return self.mu - 3.0 * self.sigma

    @property
    def provisional(self) -> bool:
        return self.matches < PROVISIONAL_MATCHES


def is_rated(record: MatchRecord) -> bool:
    """Only matches decided at the table move ratings (a duplicate match too, a tie as a tie)."""
    return record.counts and record.ending in ("target", "time_limit", "duplicate")


def rate_match(ratings: dict[str, Rating], record: MatchRecord) -> dict[str, Rating]:
    """Ratings after one match (a new dict; the input is left alone).

    Unknown players start at the model's default; AI seats use the default
    and are not stored.
    """
    if not is_rated(record) or (record.winner_team is None and not record.duplicate):
        return dict(ratings)
    teams = []
    keys: list[list[str | None]] = []
    for team in (0, 1):
        members = []
        member_keys: list[str | None] = []
        for p in record.team_players(team):
            r = Rating() if p.is_ai else ratings.get(p.user_id, Rating())
            members.append(_MODEL.rating(mu=r.mu, sigma=r.sigma))
            member_keys.append(None if p.is_ai else p.user_id)
        teams.append(members)
        keys.append(member_keys)
    ranks = [0.0 if team == record.winner_team or record.winner_team is None else 1.0 for team in (0, 1)]
    result = _MODEL.rate(teams, ranks=ranks)
    out = dict(ratings)
    for team_keys, team_result in zip(keys, result, strict=True):
        for key, new in zip(team_keys, team_result, strict=True):
            if key is None:
                continue
            old = ratings.get(key, Rating())
            out[key] = Rating(mu=new.mu, sigma=new.sigma, matches=old.matches + 1)
    return out


def rate_all(records: Iterable[MatchRecord]) -> dict[str, Rating]:
    """Ratings after a sequence of matches, in the order given (oldest first)."""
    ratings: dict[str, Rating] = {}
    for record in records:
        ratings = rate_match(ratings, record)
    return ratings


def win_probability(team_a: Sequence[Rating], team_b: Sequence[Rating]) -> float:
    """The model's chance that team_a beats team_b."""
    a = [_MODEL.rating(mu=r.mu, sigma=r.sigma) for r in team_a]
    b = [_MODEL.rating(mu=r.mu, sigma=r.sigma) for r in team_b]
    return float(_MODEL.predict_win([a, b])[0])
