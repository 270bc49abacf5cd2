"""Rules.to_dict is built once per Rules, but every caller gets its own dict."""

from __future__ import annotations

import dataclasses

import engine
from engine.rules import RANKS


def slow_to_dict(r: engine.Rules) -> dict[str, object]:
    d = dataclasses.asdict(r)
    d["start_level"] = RANKS[r.start_level]
    d["target"] = None if r.target is None else RANKS[r.target]
    d["must_play"] = [RANKS[x] for x in r.must_play]
    d.pop("extra")
    if not r.board:
        d.pop("board")  # only a board's rules carry one
    return d


def test_to_dict_is_what_asdict_gave_and_each_call_gets_a_fresh_dict() -> None:
    for name in ("classic", "competition", "chaodipi", "super", "duplicate"):
        r = engine.preset(name)
        assert r.to_dict() == slow_to_dict(r)
        d = r.to_dict()
        d["must_play"].append("Q")
        d["target"] = "2"
        assert r.to_dict() == slow_to_dict(r)
        over = engine.preset(name, target="5")
        assert over.to_dict() == slow_to_dict(over) != r.to_dict()
