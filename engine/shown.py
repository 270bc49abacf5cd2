"""Cards as the views show them: a seat's hand in display order, plays as card names.

The host draws every seat's view on every event, and a late trick's public
view names up to a hundred played cards, so what never changes is worked out
once: the display order of the 54 faces per ``Order`` (kept on the order,
which is built once per level, trump and rules), a seat's named cards until
they change (``Hand.named_hand``), and the names of each finished trick
(kept by the hand, whose finished tricks never change). The views
themselves are built fresh from these immutable pieces every time: a caller
may change the lists it is handed without touching anyone else's.
"""

from __future__ import annotations

from collections.abc import Sequence

from .cards import CARD_NAMES, NUM_FACES, SMALL_JOKER
from .order import Order
from .views import TrickPlay, TrickRecord

#: One play as a view names it before it is copied out: ``(seat, card names)``.
ShownPlay = tuple[int, tuple[str, ...]]
#: A finished trick's plays, winner and points, named once.
ShownTrick = tuple[tuple[ShownPlay, ...], int, int]


def sort_key(order: Order | None, face: int) -> tuple[int, int, int]:
    """Hand display order: trumps first (strongest first), then suits S H C D."""
    if order is None:
        if face >= SMALL_JOKER:
            return (0, -face, face)
        return (1 + (0, 1, 3, 2)[face // 13], -(face % 13), face)
    suit = order.suit[face]
    group = 0 if suit == 4 else 1 + (0, 1, 3, 2)[suit]
    return (group, -order.rank[face], face)


def _display(order: Order | None) -> tuple[tuple[int, str], ...]:
    faces = sorted(range(NUM_FACES), key=lambda f: sort_key(order, f))
    return tuple((f, CARD_NAMES[f]) for f in faces)


_UNORDERED = _display(None)


def display_order(order: Order | None) -> tuple[tuple[int, str], ...]:
    """Every face with its name, in display order (``sort_key``), worked out once per ``Order``."""
    if order is None:
        return _UNORDERED
    got: tuple[tuple[int, str], ...] | None = order.__dict__.get("_display")
    if got is None:
        got = _display(order)
        object.__setattr__(order, "_display", got)  # derived from the frozen fields, so never stale
    return got


def hand_names(counts: Sequence[int], order: Order | None) -> list[str]:
    """A hand given as 54 counts, as card names in display order, each copy listed."""
    out: list[str] = []
    for f, name in display_order(order):
        n = counts[f]
        if n > 0:
            out.append(name)
            if n > 1:
                out += (name,) * (n - 1)
    return out


def play_names(faces: Sequence[int]) -> tuple[str, ...]:
    return tuple([CARD_NAMES[f] for f in faces])


def shown_trick(plays: Sequence[tuple[int, Sequence[int]]], winner: int, points: int) -> ShownTrick:
    return tuple([(s, play_names(p)) for s, p in plays]), winner, points


def plays_view(plays: Sequence[ShownPlay]) -> list[TrickPlay]:
    """Named plays as a view holds them: a new list of cards per play."""
    return [(s, list(names)) for s, names in plays]


def tricks_view(shown: Sequence[ShownTrick]) -> list[TrickRecord]:
    """The finished tricks as a view holds them, new lists throughout. A finished trick has four
    plays, so they are unpacked in place rather than copied by a loop of their own (the most
    repeated part of a late public view)."""
    return [
        {"plays": [(s0, [*c0]), (s1, [*c1]), (s2, [*c2]), (s3, [*c3])], "winner": w, "points": pts}
        for ((s0, c0), (s1, c1), (s2, c2), (s3, c3)), w, pts in shown
    ]
