"""Legal choices computed from a seat's view alone (no ``Match`` at hand).

Mirrors ``Match.legal_actions`` for the decisions an AI is asked to make,
using only what ``Seen`` holds: declarations and 炒底 bids are checked with
``engine.declare.validate``, plays with ``engine.play``.
"""

from __future__ import annotations

from ..actions import Bury, Chao, Declare, Pass, Play, Revolt, SeatAction
from ..cards import NUM_FACES, SMALL_JOKER, parse_card, parse_rank, rank_of
from ..declare import Declaration
from ..declare import validate as validate_declaration
from ..errors import IllegalAction
from ..play import follow_options, lead_options
from .seen import Seen


def current_declaration(seen: Seen) -> Declaration | None:
    d = seen.view.get("declaration")
    if not d:
        return None
    cards = d.get("cards") or []
    return Declaration(int(d["seat"]), parse_card(cards[0]), len(cards)) if cards else None


def seat_level(seen: Seen) -> int:
    """The rank this seat may show: in an open hand (no dealer yet), its own side's level."""
    if seen.dealer is None and seen.phase in ("dealing", "declaring"):
        levels = seen.view.get("levels") or []
        if len(levels) == 2:
            return parse_rank(str(levels[seen.team]))
    return seen.level


def declare_options(seen: Seen, *, chao: bool = False) -> list[Declaration]:
    """Every declaration (or 炒底 bid) this seat could make now."""
    current = current_declaration(seen)
    level = seen.level if chao else seat_level(seen)
    out: list[Declaration] = []
    for f in range(NUM_FACES):
        held = seen.hand[f]
        if not held or (f < SMALL_JOKER and rank_of(f) != level):
            continue
        for count in (1, 2):
            if held < count:
                continue
            try:
                d = validate_declaration(seen.rules, current, seen.seat, [f] * count, held, level)
            except IllegalAction:
                continue
            if chao and d.count < 2:
                continue
            if all((o.face, o.count) != (d.face, d.count) for o in out):
                out.append(Declaration(d.seat, f, count))
    return out


def can_pass(seen: Seen) -> bool:
    if seen.phase == "chao":
        return bool(seen.view.get("chao_turn") == seen.seat)
    return seen.phase == "declaring" and not seen.view.get("forced", False)


def play_options(seen: Seen, limit: int = 200) -> list[tuple[int, ...]]:
    """Every single, pair and tractor lead, or the legal follows (up to ``limit``)."""
    assert seen.order is not None
    if seen.lead is None:
        return lead_options(seen.hand, seen.order)
    return follow_options(seen.hand, seen.lead, seen.order, limit)


def action(t: str, seat: int, cards: list[str] | None = None) -> SeatAction:
    """The value type for an AI's choice (cards already in the engine's notation)."""
    c = tuple(cards or ())
    if t == "play":
        return Play(seat, c)
    if t == "bury":
        return Bury(seat, c)
    if t == "declare":
        return Declare(seat, c)
    if t == "chao":
        return Chao(seat, c)
    if t == "pass":
        return Pass(seat)
    if t == "revolt":
        return Revolt(seat)
    raise ValueError(f"not a seat's action: {t!r}")
