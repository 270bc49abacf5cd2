"""`engine.trick_leader`: who wins the trick on the table so far, read from the public view, is
the engine's own decision: at every play of the frozen matches (failed throws, throws, ruffs,
every preset) it names the seat the engine's comparison names with the hand's own lead, and on a
trick's last play the seat that took it."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from engine import Match, Rules, action_from_json, trick_leader
from engine.hand import PLAYING
from engine.leading import leader_of
from engine.play import trick_winner

FIXTURE = Path(__file__).with_name("fixtures") / "frozen_log.json"


@cache
def _matches() -> list[dict[str, Any]]:
    data: dict[str, Any] = json.loads(FIXTURE.read_text())
    return data["matches"]


def test_the_trick_leader_is_the_engines_winner_at_every_play() -> None:
    partial = completed = after_throws = 0
    for frozen in _matches():
        m = Match.new(Rules.from_dict(frozen["rules"]), frozen["seed"])
        thrown = False  # the trick on the table began with a failed throw (its forced part leads)
        for text in frozen["actions_json"]:
            events = m.apply(action_from_json(json.loads(text)))
            h = m.hand
            if h.phase != PLAYING and not events:  # dealing, declaring, burying: no trick (the view is not read)
                continue
            pub = m.public_view()
            thrown = any(e["e"] == "throw_failed" for e in events) or (thrown and bool(h.trick))
            if h.trick:
                assert h.lead is not None and h.order is not None
                want = h.trick[trick_winner([p for _, p in h.trick], h.lead, h.order)][0]
                assert trick_leader(pub) == want
                partial += 1
                after_throws += thrown
            else:
                assert trick_leader(pub) is None
            for e in events:
                if e["e"] == "trick":  # the whole trick, as it lay: the seat that took it
                    assert leader_of(pub["last_trick"], level=pub["level"], trump=pub["trump"],
                                     rules=pub["rules_options"]) == e["winner"]
                    completed += 1
    assert partial > 1000 and completed > 300 and after_throws > 0, (partial, completed, after_throws)


def test_no_trick_no_leader() -> None:
    m = Match.new(Rules(), 1)
    assert trick_leader(m.public_view()) is None
