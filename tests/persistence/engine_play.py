"""Drive a real engine match the way the host does (auto actions, the system clock), for storage tests."""

from __future__ import annotations

from typing import Any

import engine


def rules_dict(name: str = "classic") -> dict[str, Any]:
    return dict(engine.preset(name).to_dict())


def new(rules: dict[str, Any], seed: int) -> Any:
    return engine.Match.new(engine.Rules.from_dict(rules), seed=seed)


def next_action(match: Any) -> dict[str, Any] | None:
    """The action the host would apply next with every seat on auto-play; None when the match is over."""
    seats = match.to_act()
    if seats:
        return match.auto_action(seats[0], rng_seed=match.seed * 1000 + match.version).to_json()
    action = match.system_action()
    return None if action is None else action.to_json()


def play(rules: dict[str, Any], seed: int, n: int) -> list[dict[str, Any]]:
    """The first n actions (fewer if the match ends) of a fully automatic match."""
    match = new(rules, seed)
    log: list[dict[str, Any]] = []
    while len(log) < n:
        action = next_action(match)
        if action is None:
            break
        match.apply(action)
        log.append(action)
    return log


def rebuild(rules: dict[str, Any], seed: int, actions: list[dict[str, Any]]) -> Any:
    """What the host passes to replay: the engine's Match.replay on stored data."""
    return engine.Match.replay(engine.Rules.from_dict(rules), seed, actions)
