"""Leading, following and winning a trick, from hand counts.

A hand is a list of 54 counts. Nothing here copies game state; callers
pass the hands in and get answers back.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from .cards import NUM_FACES, TRUMP
from .combos import (
    Unit,
    decompose,
    pair_count,
    pair_faces,
    primary,
    ruff_key,
    runs_of,
    tractor_fit,
    tractor_lengths,
)
from .errors import IllegalAction, IllegalCode
from .order import Order


@dataclass(frozen=True, slots=True)
class Lead:
    """An accepted lead: the cards on the table and their components."""

    faces: tuple[int, ...]
    suit: int
    units: tuple[Unit, ...]
    attempted: tuple[int, ...]  # the cards the leader tried to play (a failed throw plays fewer)

    @property
    def failed(self) -> bool:
        return len(self.attempted) != len(self.faces)


def holds(hand: Sequence[int], faces: Sequence[int]) -> bool:
    need: dict[int, int] = {}
    for f in faces:
        if not 0 <= f < NUM_FACES:
            return False
        n = need.get(f, 0) + 1
        if hand[f] < n:
            return False
        need[f] = n
    return True


def suit_cards(hand: Sequence[int], suit: int, order: Order) -> list[int]:
    out: list[int] = []
    for f in order.members[suit]:
        n = hand[f]
        if n:
            out.append(f)
            if n == 2:
                out.append(f)
    return out


def _beats_unit(unit: Unit, cards: Sequence[int], order: Order) -> bool:
    """Could someone holding ``cards`` (of the unit's suit) beat this unit of a throw?

    The rule stated one seat at a time; ``check_lead`` asks ``_failing_units``,
    which the tests hold to this.
    """
    if unit.pairs == 0:
        return any(order.rank[f] > unit.top for f in cards)
    pairs = pair_faces(cards)
    if unit.pairs == 1:
        return any(order.rank[f] > unit.top for f in pairs)
    return any(len(r) >= unit.pairs and order.rank[r[-1]] > unit.top for r in runs_of(pairs, order))


def _failing_units(units: Sequence[Unit], suit: int, others: Sequence[Sequence[int]], order: Order) -> list[Unit]:
    """The units of a throw some other seat could beat (what ``_beats_unit`` asks of every seat),
    reading each other hand's cards of the suit once: its best single, its pairs, its tractors."""
    rank = order.rank
    members = order.members[suit]
    best_single = best_pair = -1
    pair_lists: list[list[int]] = []
    for other in others:
        pairs: list[int] = []
        for f in members:
            n = other[f]
            if n:
                r = rank[f]
                if r > best_single:
                    best_single = r
                if n >= 2:
                    pairs.append(f)
                    if r > best_pair:
                        best_pair = r
        pair_lists.append(pairs)
    runs: list[list[int]] | None = None
    failing: list[Unit] = []
    for u in units:
        if u.pairs == 0:
            beaten = best_single > u.top
        elif u.pairs == 1:
            beaten = best_pair > u.top
        else:
            if runs is None:
                runs = [r for pairs in pair_lists for r in runs_of(pairs, order)]
            beaten = any(len(r) >= u.pairs and rank[r[-1]] > u.top for r in runs)
        if beaten:
            failing.append(u)
    return failing


def beater(unit: Unit, others: Sequence[tuple[int, Sequence[int]]], order: Order) -> tuple[int, tuple[int, ...]] | None:
    """Who shows what when a throw fails: the first seat (in `others`' order, the order of play)
    that can beat `unit`, with the weakest of its cards that do. Only asked on a failed throw: the
    table is told which card forced the smaller play, as players are at a real table."""
    rank = order.rank
    members = order.members[order.suit[unit.faces[0]]]
    for seat, cards in others:
        if unit.pairs == 0:
            higher = [f for f in members if cards[f] and rank[f] > unit.top]
            if higher:
                return seat, (min(higher, key=lambda f: rank[f]),)
            continue
        pairs = [f for f in members if cards[f] >= 2]
        if unit.pairs == 1:
            higher = [f for f in pairs if rank[f] > unit.top]
            if higher:
                f = min(higher, key=lambda f: rank[f])
                return seat, (f, f)
            continue
        windows = [r[i:i + unit.pairs] for r in runs_of(pairs, order)
                   for i in range(len(r) - unit.pairs + 1) if rank[r[i + unit.pairs - 1]] > unit.top]
        if windows:
            best = min(windows, key=lambda w: rank[w[-1]])
            return seat, tuple(f for f in best for _ in range(2))
    return None


def check_lead(
    faces: Sequence[int], hand: Sequence[int], others: Sequence[Sequence[int]], order: Order
) -> Lead:
    if not faces:
        raise IllegalAction(IllegalCode.WRONG_COUNT)
    if not holds(hand, faces):
        raise IllegalAction(IllegalCode.NOT_IN_HAND)
    suit = order.suit[faces[0]]
    if any(order.suit[f] != suit for f in faces):
        raise IllegalAction(IllegalCode.MIXED_SUITS)
    units = decompose(faces, order)
    if len(units) == 1:
        return Lead(tuple(faces), suit, tuple(units), tuple(faces))
    failing = _failing_units(units, suit, others, order)
    if not failing:
        return Lead(tuple(faces), suit, tuple(units), tuple(faces))
    worst = min(failing, key=lambda u: (u.size, u.top))
    return Lead(worst.faces, suit, (worst,), tuple(faces))


def check_follow(faces: Sequence[int], hand: Sequence[int], lead: Lead, order: Order) -> None:
    n = len(lead.faces)
    if len(faces) != n:
        raise IllegalAction(IllegalCode.WRONG_COUNT, count=n)
    if not holds(hand, faces):
        raise IllegalAction(IllegalCode.NOT_IN_HAND)
    if n == 1:  # the common case: a single
        if order.suit[faces[0]] != lead.suit and any(hand[f] for f in order.members[lead.suit]):
            raise IllegalAction(IllegalCode.MUST_FOLLOW_SUIT)
        return
    have = suit_cards(hand, lead.suit, order)
    played = [f for f in faces if order.suit[f] == lead.suit]
    if len(played) < min(n, len(have)):
        raise IllegalAction(IllegalCode.MUST_FOLLOW_SUIT)
    need_pairs = pair_count(lead.units)
    if need_pairs == 0 or len(have) <= n:
        return  # singles only, or every card of the suit goes anyway
    have_pairs = pair_faces(have)
    played_pairs = pair_faces(played)
    lengths = tractor_lengths(lead.units)
    if lengths:
        want = tractor_fit(runs_of(have_pairs, order), lengths)
        if tractor_fit(runs_of(played_pairs, order), lengths) < want:
            raise IllegalAction(IllegalCode.MUST_FOLLOW_TRACTOR)
    if len(played_pairs) < min(need_pairs, len(have_pairs)):
        raise IllegalAction(IllegalCode.MUST_FOLLOW_PAIRS)


def trick_winner(plays: Sequence[Sequence[int]], lead: Lead, order: Order) -> int:
    """Index (in play order) of the winning play. Equal cards: the first played wins."""
    if len(lead.faces) == 1:  # singles: the best card of the led suit, or the best trump
        osuit, orank = order.suit, order.rank
        best = 0
        bf = plays[0][0]
        for i in range(1, len(plays)):
            f = plays[i][0]
            if (osuit[f] == osuit[bf] and orank[f] > orank[bf]) or (osuit[f] == TRUMP and osuit[bf] != TRUMP):
                best, bf = i, f
        return best
    single = len(lead.units) == 1
    shape = lead.units[0]
    best = 0
    best_key = primary(lead.units).top
    ruffed = False
    for i in range(1, len(plays)):
        faces = plays[i]
        suits = {order.suit[f] for f in faces}
        if suits == {lead.suit}:
            if not single or ruffed:
                continue
            if shape.pairs == 0:
                if order.rank[faces[0]] > best_key:
                    best, best_key = i, order.rank[faces[0]]
                continue
            units = decompose(faces, order)
            if len(units) == 1 and units[0].pairs == shape.pairs and units[0].top > best_key:
                best, best_key = i, units[0].top
        elif suits == {TRUMP} and lead.suit != TRUMP:
            key = ruff_key(faces, lead.units, order)
            if key is not None and (not ruffed or key > best_key):
                best, best_key, ruffed = i, key, True
    return best


def lead_options(hand: Sequence[int], order: Order) -> list[tuple[int, ...]]:
    """Every single, pair and tractor the hand can lead (throws are not listed)."""
    out: list[tuple[int, ...]] = []
    by_suit: dict[int, list[int]] = {}
    for f in range(NUM_FACES):
        if hand[f]:
            out.append((f,))
            if hand[f] >= 2:
                out.append((f, f))
                by_suit.setdefault(order.suit[f], []).append(f)
    for pairs in by_suit.values():
        for run in runs_of(pairs, order):
            for length in range(2, len(run) + 1):
                for start in range(len(run) - length + 1):
                    out.append(tuple(f for f in run[start : start + length] for _ in (0, 1)))
    return out


def iter_follows(hand: Sequence[int], lead: Lead, order: Order) -> Iterator[tuple[int, ...]]:
    """Every legal follow, distinct as multisets, lazily."""
    for combo in _candidate_follows(hand, lead, order):
        try:
            check_follow(combo, hand, lead, order)
        except IllegalAction:
            continue
        yield combo


def follow_options(hand: Sequence[int], lead: Lead, order: Order, limit: int = 500) -> list[tuple[int, ...]]:
    """Legal follows, distinct as multisets, at most ``limit`` of them (for the AI's search width)."""
    return list(itertools.islice(iter_follows(hand, lead, order), limit))


def _multiset_combos(cards: Sequence[int], k: int) -> Iterator[tuple[int, ...]]:
    seen: set[tuple[int, ...]] = set()
    for combo in itertools.combinations(sorted(cards), k):
        if combo not in seen:
            seen.add(combo)
            yield combo


def _candidate_follows(hand: Sequence[int], lead: Lead, order: Order) -> Iterator[tuple[int, ...]]:
    n = len(lead.faces)
    have = suit_cards(hand, lead.suit, order)
    if len(have) >= n:
        yield from _multiset_combos(have, n)
        return
    rest = [f for f in range(NUM_FACES) for _ in range(hand[f]) if order.suit[f] != lead.suit]
    for extra in _multiset_combos(rest, n - len(have)):
        yield tuple(sorted(tuple(have) + extra))


def auto_follow(hand: Sequence[int], lead: Lead, order: Order) -> tuple[int, ...]:
    """One legal follow built directly (no search): structure first, then the weakest cards."""
    n = len(lead.faces)
    have = suit_cards(hand, lead.suit, order)
    rank = order.rank
    if len(have) <= n:
        rest = sorted(
            (f for f in range(NUM_FACES) for _ in range(hand[f]) if order.suit[f] != lead.suit),
            key=lambda f: (order.suit[f] == TRUMP, rank[f]),
        )
        return tuple(have) + tuple(rest[: n - len(have)])
    picked: list[int] = []
    pool = Counter(have)
    lengths = tractor_lengths(lead.units)
    pairs_needed = pair_count(lead.units)
    for need in lengths:
        runs = [r for r in runs_of([f for f, c in pool.items() if c >= 2], order) if len(r) >= need]
        if not runs:
            continue
        run = min(runs, key=lambda r: (len(r), rank[r[-1]]))[:need]
        for f in run:
            picked += [f, f]
            pool[f] -= 2
        pairs_needed -= need
    while pairs_needed > 0:
        pairs = sorted((f for f, c in pool.items() if c >= 2), key=lambda f: rank[f])
        if not pairs:
            break
        picked += [pairs[0], pairs[0]]
        pool[pairs[0]] -= 2
        pairs_needed -= 1
    singles = sorted((f for f, c in pool.items() for _ in range(c)), key=lambda f: rank[f])
    picked += singles[: n - len(picked)]
    return tuple(picked)
