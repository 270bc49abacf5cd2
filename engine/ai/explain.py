"""Why a suggested move is good, as codes and cards the host can put into one sentence.

Only the seat's own view is read, as the AI itself does: the reason never
names a card someone else holds. Besides the kind of move (``code``) it may
name the cards the move keeps back (``keeps``: the strongest ones it does
not spend) and one thing it expects of the opponents (``expect``): a seat
known to be void in the suit played, a seat that probably holds nothing
above some card (``infer``'s guesses), or the strongest card of the suit
still out.

Every claim must be true of the view (tests/ai/test_explain.py checks each code against it): "nothing
beats it" is said only when no card of the suit still out is higher *and* no seat still to play is
known to lack the suit while it may still hold trumps; otherwise a lead of the suit's top cards is
``lead_top``, which names the seat that may trump.
"""

from __future__ import annotations

from typing import Any

from ..actions import Action, Play
from ..cards import NUM_FACES, POINTS, SUITS, TRUMP, card_str
from ..combos import decompose
from ..order import Order
from ..play import trick_winner
from ..views import SeatView
from .basic import spot_of
from .infer import Beliefs, beliefs
from .policy import is_master
from .seen import Seen, faces, read_view

KEEP_AT = 9  # ranks in a suit at or above which a card is worth naming as kept (Q and up in a side suit)


def reason(view: SeatView, action: Action) -> tuple[str, dict[str, Any]]:
    """(code, params) for a suggested action; codes: lead_master, lead_top, lead_safe (a lead that can be
    beaten, keeping strong cards of its suit back), lead_low (one that can be beaten with no strong card
    of its suit left to keep), takes, partner_winning, cannot_beat, and the action's own type for
    anything but a play. Params: ``seat``
    (who holds the trick, or for lead_top who may trump), ``keeps`` (card strings), ``expect`` with
    ``expect_seat``, ``expect_card``, ``expect_suit``."""
    t = action.t
    seen = read_view(view)
    if not isinstance(action, Play) or seen.order is None or seen.dealer is None:
        return t, {}
    play = faces(list(action.cards))
    params: dict[str, Any] = {}
    kept = keeps(seen, play)
    if kept:
        params["keeps"] = [card_str(f) for f in kept]
    params.update(expect(seen, play, beliefs(seen)))
    if not seen.trick:
        if not all_master(seen, play):
            return ("lead_safe" if kept else "lead_low"), params
        ruffer = may_trump(seen, play)
        if ruffer is None:
            return "lead_master", params
        params["seat"] = ruffer
        params["suit"] = SUITS[seen.order.suit[play[0]]]
        if params.get("expect") == "void" and params.get("expect_seat") == ruffer:  # said by the code already
            for k in ("expect", "expect_seat", "expect_suit"):
                params.pop(k)
        return "lead_top", params
    if seen.lead is None:
        return t, params
    plays = [p for _, p in seen.trick]
    now = seen.trick[trick_winner(plays, seen.lead, seen.order)][0]
    params["seat"] = now
    if trick_winner([*plays, play], seen.lead, seen.order) == len(plays):
        return "takes", params
    if params.get("expect") == "none_higher":  # the play is beaten already: "nothing beats it" is untrue
        params.pop("expect")
    if now % 2 == seen.seat % 2:
        return "partner_winning", params
    return "cannot_beat", params


def all_master(seen: Seen, play: tuple[int, ...]) -> bool:
    """No card (or pair) still out in the suit beats any part of the play, from the seat's view."""
    assert seen.order is not None
    spot = spot_of(seen)
    return all(is_master(u.faces, spot) for u in decompose(play, seen.order))


def may_trump(seen: Seen, play: tuple[int, ...], after: int = 3) -> int | None:
    """The first of the next ``after`` seats known to lack the side suit played that is not known to
    lack trumps too: it may beat the play by trumping. None for a trump play or when no such seat."""
    assert seen.order is not None
    suit = seen.order.suit[play[0]]
    if suit == TRUMP:
        return None
    for i in range(1, after + 1):
        s = (seen.seat + i) % 4
        if suit in seen.voids[s] and TRUMP not in seen.voids[s]:
            return s
    return None


def _strength(f: int, order: Order) -> int:
    return order.rank[f] + (100 if order.suit[f] == TRUMP else 0)


def keeps(seen: Seen, play: tuple[int, ...]) -> list[int]:
    """Up to two of the seat's strongest cards in the suit it plays that the move does not spend
    (high cards, trumps, points), when it spends weaker ones."""
    order = seen.order
    assert order is not None
    left = list(seen.hand)
    for f in play:
        left[f] -= 1
    top = max((_strength(f, order) for f in play), default=0)
    suit = order.suit[play[0]]
    strong = [
        f
        for f in range(NUM_FACES)
        if left[f]
        and order.suit[f] == suit
        and _strength(f, order) > top
        and (suit == TRUMP or order.rank[f] >= KEEP_AT or POINTS[f])
    ]
    strong.sort(key=lambda f: -_strength(f, order))
    return strong[:2]


def expect(seen: Seen, play: tuple[int, ...], guesses: Beliefs) -> dict[str, Any]:
    """One thing the move counts on about the opponents' hands, read from the seat's view only."""
    order = seen.order
    assert order is not None
    suit = order.suit[play[0]] if seen.lead is None else seen.lead.suit
    me = seen.seat
    opponents = [(me + 1) % 4, (me + 3) % 4]
    if suit != TRUMP:
        for o in opponents:
            if suit in seen.voids[o]:
                return {"expect": "void", "expect_seat": o, "expect_suit": SUITS[suit]}
    top = max(play, key=lambda f: order.rank[f]) if order.suit[play[0]] == suit else None
    for o in opponents:
        lacked = [f for f in guesses.lacks[o] if order.suit[f] == suit]
        if lacked:
            low = min(lacked, key=lambda f: order.rank[f])
            return {"expect": "lacks", "expect_seat": o, "expect_card": card_str(low)}
    if top is None:
        return {}
    unseen = seen.unseen()
    higher = [
        f for f in range(NUM_FACES) if unseen[f] and order.suit[f] == suit and order.rank[f] > order.rank[top]
    ]
    if higher:
        return {"expect": "out", "expect_card": card_str(max(higher, key=lambda f: order.rank[f]))}
    if not all_master(seen, play) or may_trump(seen, play, 3 - len(seen.trick)) is not None:
        return {}
    return {"expect": "none_higher"}
