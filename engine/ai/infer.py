"""What a seat can guess about the hidden hands from how the others played and bid.

Voids are facts (``Seen.voids``); these are likelier-than-not guesses that
make sampled deals look like the real one, read from the public tricks and
the declaration only:

- a seat that followed a pair lead in suit but split its cards has no pair
  left in that suit (the rules make it play one it holds);
- a seat playing last that followed suit under an opponent's winning card
  with points on the table, rather than taking them, holds no card of that
  suit above the winning one;
- a seat playing last whose partner had already won the trick and that
  followed suit with a card worth nothing holds no 5, 10 or K of that suit
  (a player feeds points to a partner's certain trick);
- the seat whose trump bid stands is likely long in trumps.

A guess that the seat's later plays contradict is dropped. ``sampling``
honours the guesses when it can and falls back to the facts alone.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from ..cards import NUM_FACES, POINTS
from ..combos import decompose, pair_count
from ..order import Order
from ..play import Lead, trick_winner
from .seen import Play, Seen, faces

BIDDER_TRUMP_WEIGHT = 2.0  # how much likelier a trump is to sit with the seat whose bid stands


@dataclass
class Beliefs:
    """Per seat: faces it probably lacks, suits it has no pair in, and a weight for trumps."""

    lacks: list[set[int]] = field(default_factory=lambda: [set(), set(), set(), set()])
    no_pair: list[set[int]] = field(default_factory=lambda: [set(), set(), set(), set()])
    trump_weight: list[float] = field(default_factory=lambda: [1.0, 1.0, 1.0, 1.0])

    def empty(self) -> bool:
        return not any(self.lacks) and not any(self.no_pair) and all(w == 1.0 for w in self.trump_weight)


def beliefs(seen: Seen) -> Beliefs:
    """Read the guesses from the seat's view (never about the seat itself)."""
    out = Beliefs()
    order = seen.order
    if order is None:
        return out
    tricks: list[list[Play]] = [
        [(int(s), faces(c)) for s, c in t.get("plays", [])] for t in seen.view.get("tricks") or []
    ]
    if seen.trick:
        tricks.append(list(seen.trick))
    for plays in tricks:
        _read_trick(plays, order, out)
    for b in (out.lacks, out.no_pair):
        b[seen.seat].clear()
    d = seen.view.get("declaration")
    if d and seen.phase == "playing":
        bidder = int(d["seat"])
        if bidder != seen.seat:
            out.trump_weight[bidder] = BIDDER_TRUMP_WEIGHT
    return out


def _read_trick(plays: list[Play], order: Order, out: Beliefs) -> None:
    """Drop the guesses this trick refutes, then add the ones it suggests."""
    for s, cards in plays:
        wrong = {order.suit[f] for f in cards if f in out.lacks[s]}
        if wrong:
            out.lacks[s] = {f for f in out.lacks[s] if order.suit[f] not in wrong}
        for f, n in Counter(cards).items():
            if n >= 2:
                out.no_pair[s].discard(order.suit[f])
    if len(plays) < 2:
        return
    lead_faces = plays[0][1]
    suit = order.suit[lead_faces[0]]
    units = tuple(decompose(lead_faces, order))
    lead = Lead(lead_faces, suit, units, lead_faces)
    need_pairs = pair_count(units)
    for i in range(1, len(plays)):
        s, cards = plays[i]
        if any(order.suit[f] != suit for f in cards):
            continue  # short: a void, already a fact
        if need_pairs and sum(1 for n in Counter(cards).values() if n >= 2) < need_pairs:
            out.no_pair[s].add(suit)
        if len(lead_faces) != 1 or i != 3:
            continue
        before = [p for _, p in plays[:i]]
        w = trick_winner(before, lead, order)
        best_seat, best = plays[w][0], plays[w][1][0]
        f = cards[0]
        if best_seat % 2 != s % 2:
            table = sum(POINTS[g] for p in before for g in p) + POINTS[f]
            if table and order.suit[best] == suit and order.rank[f] < order.rank[best]:
                out.lacks[s].update(
                    g for g in range(NUM_FACES) if order.suit[g] == suit and order.rank[g] > order.rank[best]
                )
        elif not POINTS[f]:
            out.lacks[s].update(g for g in range(NUM_FACES) if order.suit[g] == suit and POINTS[g])
