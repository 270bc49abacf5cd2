"""The strength of every face for one hand, computed once per (level, trump).

For each face: its effective suit (trumps form one suit, TRUMP), its order
inside that suit (higher is stronger; equal orders tie and the first played
wins) and its chain position, which decides which pairs form tractors (two
pairs are adjacent when their positions differ by one; a gap of two is left
where the rules break a chain).
"""

from __future__ import annotations

from dataclasses import dataclass

from .cards import BIG_JOKER, NO_TRUMP, NUM_FACES, SMALL_JOKER, TRUMP
from .rules import Rules


@dataclass(frozen=True)
class Order:
    level: int
    trump: int  # suit index, or NO_TRUMP
    suit: tuple[int, ...]  # effective suit per face
    rank: tuple[int, ...]  # order inside the effective suit
    chain: tuple[int, ...]  # tractor position inside the effective suit
    wrap: bool  # AA22 wrap allowed in plain suits
    hollow: bool  # 5533 allowed in plain suits
    members: tuple[tuple[int, ...], ...]  # faces of each effective suit (0-3 plain, 4 trump)


_CACHE: dict[tuple[int, int, Rules], Order] = {}


def order_for(level: int, trump: int, rules: Rules) -> Order:
    key = (level, trump, rules)
    got = _CACHE.get(key)
    if got is None:
        got = _build(level, trump, rules)
        _CACHE[key] = got
    return got


def _gap(linked: bool) -> int:
    return 1 if linked else 2


def _build(level: int, trump: int, rules: Rules) -> Order:
    suit = [0] * NUM_FACES
    rank = [0] * NUM_FACES
    chain = [0] * NUM_FACES
    for s in range(4):
        is_trump_suit = s == trump
        pos = 0
        for r in range(13):
            f = s * 13 + r
            if r == level:
                continue
            suit[f] = TRUMP if is_trump_suit else s
            rank[f] = r
            if not rules.bridge_level_gap and r == level + 1 and level > 0:
                pos += 1  # the removed level rank leaves a hole
            chain[f] = pos
            pos += 1
    top = chain[12 if level != 12 else 11]  # the highest plain rank's position
    # level cards
    if trump == NO_TRUMP:
        off_pos = 100
        for s in range(4):
            f = s * 13 + level
            suit[f] = TRUMP
            rank[f] = 14
            chain[f] = off_pos
        sj_pos = off_pos + _gap(rules.nt_joker_level_chain)
    else:
        off_pos = top + _gap(rules.offlevel_ace_chain)
        main_pos = off_pos + _gap(rules.level_offlevel_chain)
        for s in range(4):
            f = s * 13 + level
            suit[f] = TRUMP
            if s == trump:
                rank[f] = 14
                chain[f] = main_pos
            else:
                rank[f] = 13
                chain[f] = off_pos
        sj_pos = main_pos + _gap(rules.small_joker_level_chain)
    suit[SMALL_JOKER] = TRUMP
    suit[BIG_JOKER] = TRUMP
    rank[SMALL_JOKER] = 15
    rank[BIG_JOKER] = 16
    chain[SMALL_JOKER] = sj_pos
    chain[BIG_JOKER] = sj_pos + _gap(rules.joker_pair_chain)
    return Order(
        level=level,
        trump=trump,
        suit=tuple(suit),
        rank=tuple(rank),
        chain=tuple(chain),
        wrap=rules.wrap_ace_two,
        hollow=rules.hollow_pairs,
        members=tuple(tuple(f for f in range(NUM_FACES) if suit[f] == s) for s in range(5)),
    )
