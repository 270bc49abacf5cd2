"""What one seat knows, read from its view and nothing else.

The AI never touches a ``Match``: every decision starts from ``Match.view(seat)``
(a JSON dict). ``Seen`` turns that dict into counts and the trump order once,
so the levels can reason with integers.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..cards import FULL_DECK, NUM_FACES, counts_of, parse_card, parse_rank, parse_trump
from ..combos import decompose
from ..order import Order, order_for
from ..play import Lead
from ..rules import PRESETS, Rules

Play = tuple[int, tuple[int, ...]]


@dataclass
class Seen:
    """One seat's knowledge: its cards, the public tricks and what they reveal."""

    rules: Rules
    seat: int
    phase: str
    hand: list[int]  # counts per face
    level: int
    trump: int | None
    order: Order | None
    dealer: int | None
    trick: list[Play]
    lead: Lead | None
    played: list[int]  # counts of every card seen played this hand
    played_by: list[list[int]]  # the same per seat
    voids: list[set[int]]  # effective suits each seat has shown it lacks
    hand_counts: list[int]
    kitty: list[int] | None  # the kitty this seat holds or buried, when it knows it
    defender_points: int
    tricks_played: int
    view: Mapping[str, Any] = field(repr=False)

    @property
    def team(self) -> int:
        return self.seat % 2

    def shown(self) -> list[tuple[int, int]]:
        """(seat, face) for each card another seat showed as its trump bid and has not played since."""
        d = self.view.get("declaration")
        if not d or self.phase not in ("chao", "playing"):
            return []
        seat = int(d["seat"])
        cards = faces(d.get("cards"))
        if seat == self.seat or not cards or (self.order and self.order.suit[cards[0]] in self.voids[seat]):
            return []
        left = len(cards) - self.played_by[seat][cards[0]]
        return [(seat, cards[0])] * max(0, left)

    def unseen(self) -> list[int]:
        """Counts of the cards this seat cannot place: in other hands or the kitty."""
        out = list(_FULL)
        for f in range(NUM_FACES):
            out[f] -= self.hand[f] + self.played[f]
        if self.kitty is not None and self.phase != "burying":
            for f in self.kitty:
                out[f] -= 1
        return [max(0, n) for n in out]


_FULL = counts_of(FULL_DECK)


def rules_of(view: Mapping[str, Any]) -> Rules:
    """The rules in play: the view's full options when present, else the preset it names."""
    options = view.get("rules_options")
    if isinstance(options, dict):
        # few distinct rule sets are ever in play: comparing with those costs a tenth of
        # serialising the options for the key, which was most of a `basic` declaration's time
        for known, rules in _RECENT:
            if known == options:
                return rules
        key = json.dumps(options, sort_keys=True)
        got = _RULES.get(key)
        if got is None:
            got = _RULES[key] = Rules.from_dict(options)
        _RECENT.insert(0, (json.loads(key), got))  # a copy: the caller may change its dict later
        del _RECENT[8:]
        return got
    return PRESETS.get(str(view.get("rules", "classic")), PRESETS["classic"])


_RULES: dict[str, Rules] = {}
_RECENT: list[tuple[dict[str, Any], Rules]] = []


def faces(cards: Any) -> tuple[int, ...]:
    return tuple(parse_card(c) for c in cards) if isinstance(cards, list) else ()


def read_view(view: Mapping[str, Any]) -> Seen:
    """Parse a seat view into counts; the view itself is never changed."""
    rules = rules_of(view)
    seat = int(view["seat"])
    level = parse_rank(str(view.get("level", "2")))
    trump = parse_trump(view.get("trump"))
    order = order_for(level, trump, rules) if trump is not None else None
    hand = counts_of(faces(view.get("hand", [])))
    trick: list[Play] = [(int(s), faces(c)) for s, c in view.get("trick") or []]
    played = [0] * NUM_FACES
    played_by = [[0] * NUM_FACES for _ in range(4)]
    voids: list[set[int]] = [set(), set(), set(), set()]
    for t in view.get("tricks") or []:
        plays = [(int(s), faces(c)) for s, c in t.get("plays", [])]
        _note(plays, played, played_by, voids, order)
    _note(trick, played, played_by, voids, order)
    lead: Lead | None = None
    if trick and order is not None:
        lf = trick[0][1]
        lead = Lead(lf, order.suit[lf[0]], tuple(decompose(lf, order)), lf)
    kitty_cards = view.get("kitty") if view.get("kitty") is not None else view.get("buried")
    kitty = list(faces(kitty_cards)) if kitty_cards is not None else None
    dealer = view.get("dealer")
    return Seen(
        rules=rules,
        seat=seat,
        phase=str(view.get("phase")),
        hand=hand,
        level=level,
        trump=trump,
        order=order,
        dealer=int(dealer) if dealer is not None else None,
        trick=trick,
        lead=lead,
        played=played,
        played_by=played_by,
        voids=voids,
        hand_counts=[int(n) for n in view.get("hand_counts", [0, 0, 0, 0])],
        kitty=kitty,
        defender_points=int(view.get("defender_points", 0)),
        tricks_played=int(view.get("tricks_played", 0)),
        view=view,
    )


def _note(
    plays: list[Play],
    played: list[int],
    played_by: list[list[int]],
    voids: list[set[int]],
    order: Order | None,
) -> None:
    """Count the cards and mark a seat void in the led suit when it followed short."""
    for s, cards in plays:
        for f in cards:
            played[f] += 1
            played_by[s][f] += 1
    if not plays or order is None:
        return
    lead = plays[0][1]
    suit = order.suit[lead[0]]
    for s, cards in plays[1:]:
        if sum(1 for f in cards if order.suit[f] == suit) < len(lead):
            voids[s].add(suit)
