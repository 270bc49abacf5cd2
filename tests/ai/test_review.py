"""The hand review (复盘, engine.ai.review): each decision judged from the seat's own view at that moment.

Small sample counts (``deals=``) keep these fast; benchmarks/review_accuracy.py measures how well the
review finds planted mistakes over hundreds of decisions (docs/ai.md).
"""

from __future__ import annotations

import copy

import pytest

from engine import Match, preset
from engine.actions import Play
from engine.ai import choose
from engine.ai.explain import reason
from engine.ai.options import play_options
from engine.ai.review import Moment, judge, moments, review_hand
from engine.ai.seen import faces, read_view
from engine.cards import POINTS, cards_str
from engine.play import trick_winner
from tests.ai.drive import drive, step

from .test_no_peeking import _swap_hidden


def _feeding(seed: int) -> tuple[Match, Moment, Play]:
    """The first moment of a basic hand where the last seat of a trick the opponents hold plays a
    card worth nothing but holds a 10 or K it could give away instead: (match, that gift, basic's play)."""
    m = Match.new(preset("classic"), seed)
    while m.phase != "hand_over":
        if m.phase == "playing" and m.to_act():
            s = m.to_act()[0]
            view = m.view(s)
            seen = read_view(view)
            if len(seen.trick) == 3 and seen.lead is not None and seen.order is not None:
                now = seen.trick[trick_winner([p for _, p in seen.trick], seen.lead, seen.order)][0]
                own = choose(view, "basic", m.version)
                assert isinstance(own, Play)
                gifts = [o for o in play_options(seen) if len(o) == 1 and POINTS[o[0]] >= 10]
                if now % 2 != s % 2 and not any(POINTS[f] for f in faces(list(own.cards))) and gifts:
                    gift = Play(s, tuple(cards_str(gifts[0])))
                    hands = [list(h) for h in m.hand.hands]
                    return m, Moment(m.version, copy.deepcopy(view), gift, hands, list(m.hand.kitty)), own
        step(m, "basic")
    raise AssertionError("no such moment")


def test_a_point_card_given_to_the_opponents_is_flagged_with_the_hints_reason() -> None:
    m, mo, own = _feeding(1)
    got = judge(mo, 1, 1, deals=12)
    assert got is not None and got.kind == "play" and got.trick == len(m.view(mo.made.seat)["tricks"]) + 1
    assert got.made == mo.made and got.better == own and got.flagged
    assert got.saved >= 10 and got.error < got.saved
    assert (got.code, got.params) == reason(mo.view, own)  # a hint for this move gives the same reason
    assert got.code == "cannot_beat"


def test_a_decision_is_judged_from_the_seats_view_only() -> None:
    m, mo, _ = _feeding(2)
    twin = _swap_hidden(m, mo.made.seat)
    other = Moment(mo.index, copy.deepcopy(twin.view(mo.made.seat)), mo.made, [list(h) for h in twin.hand.hands],
                   list(twin.hand.kitty))
    assert other.view == mo.view
    a, b = judge(mo, 5, 1, deals=6), judge(other, 5, 1, deals=6)
    assert a is not None and b is not None
    assert (a.better, a.saved, a.error, a.code) == (b.better, b.saved, b.error, b.code)


def test_a_hand_review_lists_the_seats_decisions_in_order() -> None:
    m = drive("classic", 3, ["basic"] * 4, deals=1)
    for seat in (0, 1):
        r = review_hand(m.rules, m.seed, m.actions, 1, seat, deals=2)
        assert r.seat == seat and r.hand == 1 and r.decisions
        idx = [d.index for d in r.decisions]
        assert idx == sorted(idx)
        for d in r.decisions:
            assert m.actions[d.index] == d.made and d.made.seat == seat
            assert (d.trick is not None) == (d.kind == "play")
        assert r.cost == pytest.approx(sum(d.saved for d in r.decisions if d.flagged))
        assert r.costliest is None or r.costliest.saved == max(d.saved for d in r.flagged)
    plays = [d for d in review_hand(m.rules, m.seed, m.actions, 1, 0, deals=2).decisions if d.kind == "play"]
    assert len(plays) >= 5


def test_only_a_finished_hand_is_reviewed() -> None:
    m = drive("classic", 3, ["basic"] * 4, deals=1)
    with pytest.raises(ValueError, match="not finished"):
        moments(m.rules, m.seed, m.actions[:-5], 1, 0)
    with pytest.raises(ValueError, match="not finished"):
        moments(m.rules, m.seed, m.actions, 2, 0)
    assert moments(m.rules, m.seed, m.actions_json(), 1, 2)  # the store's JSON dicts work too


def test_the_accuracy_benchmark_runs_and_reports(capsys: pytest.CaptureFixture[str]) -> None:
    """The measurement itself (benchmarks/review_accuracy.py) runs outside the suite; a tiny one here."""
    from benchmarks.review_accuracy import main

    report = main(["--hands", "1", "--plants", "6", "--budget", "0.005", "--judge", "4"])
    assert report["hands"] == 1 and isinstance(report["planted"], int) and report["planted"] > 0
    assert isinstance(report["cpu_max_s"], float) and report["own_decisions"]
    assert '"recall"' in capsys.readouterr().out
