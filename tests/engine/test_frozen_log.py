"""Logs written before the typed API (issue 14) still load and replay to the very same states.

`fixtures/frozen_log.json` was written once by the engine as it was then
(`fixtures/make_frozen_log.py`): eight matches over the four presets with
declarations, passes, closes, burials, 炒底, a revolution, failed throws and
the clock running out, each action stored as the store stores it.
"""

from __future__ import annotations

import hashlib
import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from engine import Match, Rules, action_from_json, to_json

FIXTURE = Path(__file__).with_name("fixtures") / "frozen_log.json"


def _dumps(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


def _digest(value: object) -> str:
    return hashlib.sha256(_dumps(value).encode()).hexdigest()[:16]


def _plain(value: object) -> object:
    """As JSON gives it back (a trick play is a tuple in a view, a list in JSON)."""
    return json.loads(_dumps(value))


#: Keys events gained after the log was frozen, each only added, never changing one it had: a failed
#: throw names who beats it and with what (issue 31).
ADDED_LATER = {"throw_failed": ("beaten_by", "beater")}


def _as_frozen(event: dict[str, Any]) -> dict[str, Any]:
    added = ADDED_LATER.get(str(event.get("e")), ())
    return {k: v for k, v in event.items() if k not in added}


@cache
def _matches() -> list[dict[str, Any]]:
    data: dict[str, Any] = json.loads(FIXTURE.read_text())
    return data["matches"]


def _ids() -> list[str]:
    return [f"{m['rules']['name']}-{m['seed']}" for m in _matches()]


@pytest.mark.parametrize("index", range(len(_matches())), ids=_ids())
def test_frozen_log_replays_to_the_same_states(index: int) -> None:
    frozen = _matches()[index]
    rules = Rules.from_dict(frozen["rules"])
    actions = [action_from_json(json.loads(text)) for text in frozen["actions_json"]]
    m = Match.new(rules, frozen["seed"])
    refusals = {(r["version"], _dumps(r["action"])): r["code"] for r in frozen["refusals"]}
    probes_at: dict[int, list[tuple[str, str]]] = {}
    for (at, probe), code in refusals.items():
        probes_at.setdefault(at, []).append((probe, code))
    checked = 0
    for v, (action, step) in enumerate(zip(actions, frozen["steps"], strict=True)):
        for probe, code in probes_at.get(v, ()):
            exc = m.check(json.loads(probe))
            assert (None if exc is None else exc.code) == code, (v, probe)
            checked += 1
        if str(v) in frozen["legal"]:
            for seat, want in frozen["legal"][str(v)].items():
                got = sorted(_dumps(a.to_json()) for a in m.legal_actions(int(seat)))
                assert got == want, (v, seat)
        events = m.apply(action)
        assert _digest([_as_frozen(e) for e in events]) == step["events"], v
        assert _digest(to_json(m.public_view())) == step["public"], v
        assert _digest([to_json(m.view(s)) for s in range(4)]) == step["views"], v
        full = frozen["full_views"].get(str(m.version))
        if full is not None:
            assert _plain(m.public_view()) == full["public"]
            assert [_plain(m.view(s)) for s in range(4)] == full["views"]
    assert checked == len(refusals)
    assert [json.dumps(a.to_json(), ensure_ascii=False, separators=(",", ":")) for a in m.actions] == frozen[
        "actions_json"
    ]
    final = frozen["final"]
    assert m.phase == final["phase"]
    assert m.result == final["result"]
    assert m.history == final["history"]
    assert m.levels == final["levels"]


@pytest.mark.parametrize("index", range(len(_matches())), ids=_ids())
def test_frozen_log_replays_in_one_call(index: int) -> None:
    frozen = _matches()[index]
    actions = [json.loads(text) for text in frozen["actions_json"]]  # the store's dicts, as they are
    m = Match.replay(Rules.from_dict(frozen["rules"]), frozen["seed"], actions)
    last = frozen["full_views"][str(len(actions))]
    assert _plain(m.public_view()) == last["public"]
    assert [_plain(m.view(s)) for s in range(4)] == last["views"]
