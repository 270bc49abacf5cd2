"""Drive a ``Match`` with AI seats, as the host and the arena do."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from engine import Match, preset
from engine.actions import SeatAction
from engine.ai import choose


def drive(
    preset_name: str,
    seed: int,
    levels: Sequence[str],
    *,
    hands: int = 1,
    deals: int | None = 1,
    on_decision: Callable[[Match, int, SeatAction], None] | None = None,
) -> Match:
    """Play ``hands`` hands (or to the match's end); every AI action must pass ``Match.check``."""
    m = Match.new(preset(preset_name), seed)
    while m.phase != "match_over" and m.hand_no <= hands:
        if m.hand_no == hands and m.phase == "hand_over":
            break
        to_act = m.to_act()
        if not to_act:
            sys_action = m.system_action()
            assert sys_action is not None, m.phase
            m.apply(sys_action)
            continue
        s = to_act[0]
        view = m.view(s)
        a = choose(view, levels[s], seed * 7919 + m.version, 0.05, deals=deals)
        if on_decision is not None:
            on_decision(m, s, a)
        err = m.check(a)
        assert err is None, (a, err.code, m.phase, view["hand"])
        m.apply(a)
    return m


def step(m: Match, level: str) -> None:
    """One move: the system's (deal, close, next) when no seat is to act, else ``level``'s choice for
    the first seat to act, seeded by the match's version.

    The tests that walk a match to a moment worth checking all move it this way.
    """
    to_act = m.to_act()
    if not to_act:
        sa = m.system_action()
        assert sa is not None
        m.apply(sa)
    else:
        m.apply(choose(m.view(to_act[0]), level, m.version))


def seat_plays(m: Match) -> bool:
    """Whether the next move is a seat's card play (the playing phase, and a seat is to act)."""
    return m.phase == "playing" and bool(m.to_act())
