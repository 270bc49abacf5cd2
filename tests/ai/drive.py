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
