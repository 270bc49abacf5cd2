"""A stand-in for the engine in storage tests: a tiny deterministic game with a strict turn order.

Rules {"seats": 4}; every action is {"t": "draw", "seat": s} and seat s must be
next in turn (version % seats), otherwise the stand-in refuses it, as the
real engine refuses an illegal action.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


class StandInRefusal(ValueError):
    def __init__(self, code: str, **params: Any) -> None:
        super().__init__(f"{code} {params}")
        self.code = code


@dataclass
class StandInMatch:
    seats: int
    seed: int
    actions: list[dict[str, Any]] = field(default_factory=list)
    total: int = 0

    @property
    def version(self) -> int:
        return len(self.actions)

    def next_action(self) -> dict[str, Any]:
        return {"t": "draw", "seat": self.version % self.seats, "card": (self.seed + self.version) % 108}

    def apply(self, action: dict[str, Any]) -> None:
        if action.get("t") != "draw":
            raise StandInRefusal("bad_action", action=action)
        if action.get("seat") != self.version % self.seats:
            raise StandInRefusal("not_your_turn", seat=action.get("seat"))
        self.total += int(action.get("card", 0))
        self.actions.append(action)


def rebuild(rules: dict[str, Any], seed: int, actions: list[dict[str, Any]]) -> StandInMatch:
    """Replay a log into a StandInMatch (the signature replay_all expects)."""
    match = StandInMatch(int(rules["seats"]), seed)
    for action in actions:
        match.apply(action)
    return match


def play(seed: int, n: int) -> list[dict[str, Any]]:
    """The first n actions of a stand-in match."""
    match = StandInMatch(4, seed)
    for _ in range(n):
        match.apply(match.next_action())
    return match.actions
