"""Who wins the trick on the table so far, read from a public view.

Players of the game watch the current winner of a trick as it is played (it decides whether to
beat it, or to give points to a partner who holds it). It is the engine's own comparison
(`play.trick_winner`, the one that decides a completed trick) of the plays laid so far, so no
front door works it out for itself; read from the public view alone, it is the same for a live
table, a replica on another worker and a replay.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from functools import lru_cache

from .cards import parse_cards, parse_rank, parse_trump
from .combos import decompose
from .order import order_for
from .play import Lead, trick_winner
from .rules import Rules
from .views import PublicView, TrickPlay


@lru_cache(maxsize=64)
def _rules(options: str) -> Rules:
    return Rules.from_dict(json.loads(options))


def trick_leader(pub: PublicView) -> int | None:
    """The seat whose play wins `pub["trick"]` as it stands (None: no card on the table yet).

    The lead is what lies on the table: a failed throw's forced part, a throw its whole, as the
    engine laid it, so it reads the way the engine will decide the trick once all four played."""
    level = pub.get("level")
    if level is None:
        return None
    return leader_of(pub.get("trick") or (), level=level, trump=pub.get("trump"),
                     rules=pub.get("rules_options") or {})


def leader_of(trick: Sequence[TrickPlay], *, level: str, trump: str | None,
              rules: Mapping[str, object]) -> int | None:
    """`trick_leader` for a trick given apart (a completed one: its winner)."""
    if not trick:
        return None
    trump_index = parse_trump(trump)
    if trump_index is None:  # no trick is played before the trump is decided
        return None
    order = order_for(parse_rank(level), trump_index, _rules(json.dumps(rules, sort_keys=True)))
    plays = [tuple(parse_cards(cards)) for _, cards in trick]
    first = plays[0]
    lead = Lead(first, order.suit[first[0]], tuple(decompose(first, order)), first)
    return int(trick[trick_winner(plays, lead, order)][0])
