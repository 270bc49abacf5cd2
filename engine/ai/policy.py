"""The rule-based play policy: score a few sensible leads or follows, take the best.

Used by the ``basic`` level for its own plays and by ``strong`` as the
playout policy, so it works on counts (a ``Spot``) rather than on a view and
stays cheap: one decision is a few dozen candidate plays scored by hand
rules (cash masters, feed a safe partner, win cheaply, dump low, keep high
trumps, fight for the last trick).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from ..cards import NUM_FACES, POINTS, TRUMP
from ..combos import pair_count, runs_of, tractor_lengths
from ..errors import IllegalAction
from ..order import Order
from ..play import Lead, auto_follow, check_follow, trick_winner

Play = tuple[int, tuple[int, ...]]
LAST_TRICK_STAKE = 25.0  # what winning the last trick is worth: the kitty, doubled


@dataclass(slots=True)
class Spot:
    """A seat about to play: its cards, the trick so far, and what it cannot see."""

    hand: list[int]
    seat: int
    trick: list[Play]
    lead: Lead | None
    order: Order
    declarer_team: int
    left: list[int]  # cards not yet played nor known elsewhere, this seat's own included
    voids: Sequence[set[int]]  # suits each seat is known to lack


_SUIT_FACES: dict[int, tuple[Order, dict[int, tuple[int, ...]]]] = {}


def suit_faces(order: Order) -> dict[int, tuple[int, ...]]:
    """Faces of each effective suit, strongest first (cached per order object: orders are shared)."""
    got = _SUIT_FACES.get(id(order))
    if got is not None and got[0] is order:
        return got[1]
    out: dict[int, list[int]] = {}
    for f in range(NUM_FACES):
        out.setdefault(order.suit[f], []).append(f)
    table = {s: tuple(sorted(fs, key=lambda f: -order.rank[f])) for s, fs in out.items()}
    _SUIT_FACES[id(order)] = (order, table)
    return table


def card_cost(f: int, order: Order) -> float:
    """How much it hurts to spend this card: trumps a lot (the higher the more), aces some."""
    r = order.rank[f]
    return 6.0 + r if order.suit[f] == TRUMP else r * 0.4


def _higher_unseen(f: int, spot: Spot, need: int) -> bool:
    """Could someone else hold ``need`` copies of a face stronger than ``f`` in its suit?"""
    order, left, hand = spot.order, spot.left, spot.hand
    r = order.rank[f]
    for g in suit_faces(order)[order.suit[f]]:
        if order.rank[g] <= r:
            return False
        if left[g] - hand[g] >= need:
            return True
    return False


def is_master(faces: Sequence[int], spot: Spot) -> bool:
    """True when no unseen card (or pair, for a pair or tractor) could beat this one-unit play."""
    order = spot.order
    top = max(faces, key=lambda f: order.rank[f])
    need = 2 if len(faces) >= 2 and faces.count(top) >= 2 else 1
    return not _higher_unseen(top, spot, need)


def choose_play(spot: Spot) -> tuple[int, ...]:
    """The policy's play: the best-scored candidate (the first of equals)."""
    scored = lead_scores(spot) if not spot.trick else follow_scores(spot)
    best = scored[0]
    for sc in scored:
        if sc[0] > best[0]:
            best = sc
    return best[1]


def ranked_plays(spot: Spot) -> list[tuple[float, tuple[int, ...]]]:
    """Candidate plays with their scores, best first (ties keep generation order)."""
    scored = lead_scores(spot) if not spot.trick else follow_scores(spot)
    scored.sort(key=lambda sc: -sc[0])
    return scored


# ----- leading -----
def lead_scores(spot: Spot) -> list[tuple[float, tuple[int, ...]]]:
    hand, order = spot.hand, spot.order
    me = spot.seat
    declarer = me % 2 == spot.declarer_team
    partner = (me + 2) % 4
    opps = ((me + 1) % 4, (me + 3) % 4)
    lengths = Counter[int]()
    for f in range(NUM_FACES):
        if hand[f]:
            lengths[order.suit[f]] += hand[f]
    n_cards = sum(lengths.values())
    last = n_cards == 1
    out: list[tuple[float, tuple[int, ...]]] = []
    for opt in _lead_candidates(hand, order):
        out.append((_lead_score(opt, spot, declarer, partner, opps, lengths, last), opt))
    for throw in _master_throws(spot, lengths):
        pts = sum(POINTS[f] for f in throw)
        out.append((12.0 + 3 * len(throw) + pts * 0.5, throw))
    return out


def _lead_candidates(hand: Sequence[int], order: Order) -> list[tuple[int, ...]]:
    """Per suit: its top card, its lowest card and lowest non-point card, every pair, every tractor."""
    out: list[tuple[int, ...]] = []
    for faces in suit_faces(order).values():
        held = [f for f in faces if hand[f]]
        if not held:
            continue
        singles = {held[0], held[-1]}
        plain = [f for f in held if not POINTS[f]]
        if plain:
            singles.add(plain[-1])
        out += [(f,) for f in held if f in singles]
        pairs = [f for f in held if hand[f] >= 2]
        out += [(f, f) for f in pairs]
        if len(pairs) >= 2:
            for run in runs_of(pairs, order):
                if len(run) >= 2:
                    out.append(tuple(f for f in run for _ in (0, 1)))
                    if len(run) > 2:
                        out.append(tuple(f for f in run[-2:] for _ in (0, 1)))
                        out.append(tuple(f for f in run[:2] for _ in (0, 1)))
    return out


def _lead_score(
    opt: tuple[int, ...],
    spot: Spot,
    declarer: bool,
    partner: int,
    opps: tuple[int, int],
    lengths: Counter[int],
    last: bool,
) -> float:
    order, voids = spot.order, spot.voids
    suit = order.suit[opt[0]]
    pairs = len(opt) // 2 if len(opt) >= 2 else 0
    pts = sum(POINTS[f] for f in opt)
    cost = sum(card_cost(f, order) for f in opt)
    master = is_master(opt, spot)
    bonus = LAST_TRICK_STAKE if last and master else 0.0
    if suit != TRUMP:
        ruff_risk = any(suit in voids[o] for o in opps)
        if master and not ruff_risk:
            return 10.0 + 6 * pairs + pts * 0.5 + bonus
        score = -pts * 1.5 - cost * 0.5 - lengths[suit] * 0.3 - 2.0 * pairs
        if suit in voids[partner] and not ruff_risk:
            score += 4.0
        if master:
            score -= 3.0
        return score
    trumps = lengths[TRUMP]
    if master:
        return 6.0 + 6 * pairs + (2.0 if declarer else 0.0) + bonus - pts * 0.2
    score = -cost * 0.5 - 3.0 - pts * 1.5
    if declarer and trumps >= 8:
        score += 3.0
    return score


def _master_throws(spot: Spot, lengths: Counter[int]) -> list[tuple[int, ...]]:
    """Per plain suit, every held unit nobody can beat, thrown together (2+ units)."""
    hand, order, left = spot.hand, spot.order, spot.left
    out: list[tuple[int, ...]] = []
    for suit, faces in suit_faces(order).items():
        if suit == TRUMP or lengths[suit] < 2:
            continue
        picked: list[int] = []
        units = 0
        for f in faces:  # strongest first: stop at the first unit someone could beat
            n = hand[f]
            if n == 0:
                if left[f] > n:
                    break
                continue
            if _higher_unseen(f, spot, 2 if n >= 2 else 1):
                break
            picked.extend([f] * n)
            units += 1
        if units >= 2:
            out.append(tuple(picked))
    return out


# ----- following -----
def follow_candidates(spot: Spot) -> list[tuple[int, ...]]:
    """A handful of legal follows worth comparing (all of them for one- and two-card leads)."""
    hand, lead, order = spot.hand, spot.lead, spot.order
    assert lead is not None
    n = len(lead.faces)
    have = [f for f in suit_faces(order)[lead.suit] for _ in range(hand[f])]
    checked: list[tuple[int, ...]] = []  # legal by construction
    cands: list[tuple[int, ...]] = []  # to be checked
    if len(have) >= n:
        if n == 1:
            return [(f,) for f in sorted(set(have))]
        pool = Counter(have)
        cands = [_shape_fill(Counter(pool), lead, order, key) for key in _KEYS]
        if n == 2:
            checked = [(f, f) for f, c in pool.items() if c >= 2]
    else:
        rest = [f for f in range(NUM_FACES) for _ in range(hand[f]) if order.suit[f] != lead.suit]
        k = n - len(have)
        cheap = sorted(rest, key=lambda f: (POINTS[f] > 0, card_cost(f, order)))
        feed = sorted(rest, key=lambda f: (-POINTS[f], card_cost(f, order)))
        checked = [tuple(have) + tuple(cheap[:k]), tuple(have) + tuple(feed[:k])]
        if not have and lead.suit != TRUMP:
            trumps = Counter(f for f in rest if order.suit[f] == TRUMP)
            if sum(trumps.values()) >= n:
                if n == 1:
                    checked += [(f,) for f in trumps]
                else:
                    checked += [_shape_fill(Counter(trumps), lead, order, key) for key in _KEYS]
    out: list[tuple[int, ...]] = []
    seen: set[tuple[int, ...]] = set()
    for c, check in [*((c, True) for c in cands), *((c, False) for c in checked)]:
        key = tuple(sorted(c))
        if len(c) != n or key in seen:
            continue
        if check:
            try:
                check_follow(c, hand, lead, order)
            except IllegalAction:
                continue
        seen.add(key)
        out.append(c)
    if not out:
        out.append(auto_follow(hand, lead, order))
    return out


def _key_cheap(f: int, order: Order) -> float:
    return POINTS[f] * 2 + card_cost(f, order)


def _key_feed(f: int, order: Order) -> float:
    return -POINTS[f] * 2 + card_cost(f, order)


def _key_strong(f: int, order: Order) -> float:
    return -order.rank[f]


_KEYS = (_key_cheap, _key_feed, _key_strong)


def _shape_fill(pool: Counter[int], lead: Lead, order: Order, key: object) -> tuple[int, ...]:
    """Answer the lead's shape from ``pool``: its tractors, then pairs, then singles, by ``key``."""
    k = key  # a function (face, order) -> float; lower is picked first
    assert callable(k)
    n = len(lead.faces)
    picked: list[int] = []
    pairs_needed = pair_count(lead.units)
    for need in tractor_lengths(lead.units):
        runs = [r for r in runs_of([f for f, c in pool.items() if c >= 2], order) if len(r) >= need]
        if not runs:
            continue
        run = min(runs, key=lambda r: sum(k(f, order) for f in r[:need]))[:need]
        for f in run:
            picked += [f, f]
            pool[f] -= 2
        pairs_needed -= need
    while pairs_needed > 0:
        pairs = sorted((f for f, c in pool.items() if c >= 2), key=lambda f: k(f, order))
        if not pairs:
            break
        picked += [pairs[0], pairs[0]]
        pool[pairs[0]] -= 2
        pairs_needed -= 1
    singles = sorted((f for f, c in pool.items() for _ in range(c)), key=lambda f: k(f, order))
    picked += singles[: n - len(picked)]
    return tuple(picked)


def _follow_value(
    win: bool, safe: bool, pts: int, table_pts: float, last: bool, partner_winning: bool, partner_safe: bool
) -> float:
    """How good a follow is: take points safely, feed a partner who holds the trick, else shed cheaply."""
    if win:
        gain = table_pts + pts + (LAST_TRICK_STAKE if last else 0.0)
        score = gain + 3.0 if safe else gain * 0.4 - pts * 0.6
        return score - 10.0 if partner_safe else score
    if partner_winning:
        return pts if partner_safe else -pts * 0.6
    return -pts * 1.5


def follow_scores(spot: Spot) -> list[tuple[float, tuple[int, ...]]]:
    lead, order, trick = spot.lead, spot.order, spot.trick
    assert lead is not None
    if len(lead.faces) == 1:
        return _single_follow_scores(spot)
    me = spot.seat
    plays = [p for _, p in trick]
    current = trick[trick_winner(plays, lead, order)]
    partner_winning = current[0] % 2 == me % 2
    table_pts = sum(POINTS[f] for p in plays for f in p)
    after = [(me + i) % 4 for i in range(1, 4 - len(trick))]
    opps_after = [s for s in after if s % 2 != me % 2]
    partner_safe = partner_winning and _holds(current[1], lead, spot, opps_after)
    last = sum(spot.hand) == len(lead.faces)
    out: list[tuple[float, tuple[int, ...]]] = []
    for c in follow_candidates(spot):
        pts = sum(POINTS[f] for f in c)
        cost = sum(card_cost(f, order) for f in c)
        win = trick_winner([*plays, c], lead, order) == len(plays)
        safe = win and _holds(c, lead, spot, opps_after)
        score = _follow_value(win, safe, pts, table_pts, last, partner_winning, partner_safe)
        out.append((score - cost * 0.5, c))
    return out


def _holds(play: Sequence[int], lead: Lead, spot: Spot, opps_after: Sequence[int]) -> bool:
    """Will this (currently winning) play still win once the opponents after us have played?"""
    if not opps_after:
        return True
    order = spot.order
    suit = order.suit[play[0]]
    if lead.suit != TRUMP and suit == lead.suit and any(lead.suit in spot.voids[o] for o in opps_after):
        return False
    top = max(play, key=lambda f: order.rank[f])
    need = 2 if pair_count(lead.units) and len(play) >= 2 else 1
    return not _higher_unseen(top, spot, need)


def _beats(f: int, best: int, order: Order) -> bool:
    """A single card against the best single so far (the lead's suit or a trump)."""
    sf, sb = order.suit[f], order.suit[best]
    return (sf == sb and order.rank[f] > order.rank[best]) or (sf == TRUMP and sb != TRUMP)


def _single_follow_scores(spot: Spot) -> list[tuple[float, tuple[int, ...]]]:
    """``follow_scores`` for a one-card lead, without building plays: the hot path of a playout."""
    lead, order, trick, hand = spot.lead, spot.order, spot.trick, spot.hand
    assert lead is not None
    me = spot.seat
    suit = lead.suit
    best_seat, best = trick[0][0], trick[0][1][0]
    table_pts = POINTS[best]
    for s, p in trick[1:]:
        f = p[0]
        table_pts += POINTS[f]
        if _beats(f, best, order):
            best_seat, best = s, f
    partner_winning = best_seat % 2 == me % 2
    opps_after = [(me + i) % 4 for i in range(1, 4 - len(trick)) if i % 2 == 1]
    osuit = order.suit
    have = [f for f in suit_faces(order)[suit] if hand[f]]
    if have:
        cands = have
    else:
        rest = [f for f in range(NUM_FACES) if hand[f]]
        cheap = min(rest, key=lambda f: (POINTS[f] > 0, card_cost(f, order)))
        feed = min(rest, key=lambda f: (-POINTS[f], card_cost(f, order)))
        cands = [cheap] if feed == cheap else [cheap, feed]
        if suit != TRUMP:
            cands += [f for f in rest if osuit[f] == TRUMP and f != cheap and f != feed]
    partner_safe = partner_winning and _holds((best,), lead, spot, opps_after)
    last = sum(hand) == 1
    out: list[tuple[float, tuple[int, ...]]] = []
    for f in cands:
        pts = POINTS[f]
        win = _beats(f, best, order)
        safe = win and _holds((f,), lead, spot, opps_after)
        score = _follow_value(win, safe, pts, table_pts, last, partner_winning, partner_safe)
        out.append((score - card_cost(f, order) * 0.5, (f,)))
    return out
