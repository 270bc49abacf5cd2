"""The rarer decisions: 炒底 bids, revolutions and the compulsory declaration stay legal."""

from __future__ import annotations

from collections.abc import Callable

from engine import Match, preset
from engine.ai import LEVELS, choose
from tests.ai.drive import step


def _run_until(m: Match, stop: Callable[[Match], bool], limit: int = 2000) -> bool:
    """Basic moves for everyone until ``stop(m)`` or the second hand ends."""
    for _ in range(limit):
        if stop(m):
            return True
        if m.phase == "match_over" or (m.hand_no > 2 and m.phase == "hand_over"):
            return False
        step(m, "basic")
    return False


def _all_levels_legal(m: Match, seat: int) -> set[str]:
    kinds: set[str] = set()
    for level in LEVELS:
        for seed in range(8):
            a = choose(m.view(seat), level, seed, 0.05, deals=2)
            assert m.check(a) is None, (level, a)
            kinds.add(a.t)
    return kinds


def test_chao_bids_are_legal_and_random_makes_them() -> None:
    def chao_open(m: Match) -> bool:
        return m.phase == "chao" and any(a.t == "chao" for a in m.legal_actions(m.to_act()[0]))

    found = 0
    for seed in range(40):
        m = Match.new(preset("chaodipi"), seed)
        if _run_until(m, chao_open):
            kinds = _all_levels_legal(m, m.to_act()[0])
            assert "chao" in kinds and "pass" in kinds
            found += 1
            if found >= 2:
                break
    assert found


def test_revolution_is_legal_and_random_sometimes_revolts() -> None:
    def revolt_open(m: Match) -> bool:
        return m.phase == "playing" and bool(m.view(m.to_act()[0]).get("can_revolt"))

    for seed in range(60):
        m = Match.new(preset("classic"), seed)
        if _run_until(m, revolt_open):
            kinds = _all_levels_legal(m, m.to_act()[0])
            assert "revolt" in kinds and "play" in kinds
            return
    raise AssertionError("no seat could revolt in 60 deals")


def test_compulsory_declaration_is_a_declaration() -> None:
    for seed in range(40):
        m = Match.new(preset("competition"), seed)
        if not _run_until(m, lambda m: m.hand_no == 2 and m.phase == "declaring"):
            continue
        for s in range(4):  # everyone passes: the dealer's side must show a level card
            m.apply({"t": "pass", "seat": s})
        if m.phase != "declaring" or not m.view(0).get("forced"):
            continue
        for s in m.to_act():
            if any(a.t == "declare" for a in m.legal_actions(s)):
                assert _all_levels_legal(m, s) == {"declare"}
                return
    raise AssertionError("no compulsory declaration came up")
