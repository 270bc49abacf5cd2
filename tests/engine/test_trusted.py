"""The trusted path reaches exactly the states the checked path reaches, and logs the same actions."""

from __future__ import annotations

import random

import pytest

from engine import Match, Play, preset
from engine.bench import (
    Tally,
    bench_hands,
    bench_validation,
    play_hand_checked,
    play_hand_trusted,
    to_first_lead,
)
from engine.cards import cards_str, parse_card
from engine.randplay import random_follow, random_lead

PRESETS = ["classic", "competition", "chaodipi", "super"]


def _play(path: str, name: str, seed: int, hands: int) -> tuple[Match, Tally]:
    rng = random.Random(seed)
    tally = Tally()
    m = Match.new(preset(name), seed)
    play = play_hand_trusted if path == "trusted" else play_hand_checked
    while tally.hands < hands and m.result is None:
        play(m, rng, tally)
        if m.phase == "hand_over":
            if path == "trusted":
                m.next_trusted()
            else:
                m.apply({"t": "next"})
    return m, tally


@pytest.mark.parametrize("name", PRESETS)
@pytest.mark.parametrize("seed", [1, 7])
def test_trusted_and_checked_paths_agree(name: str, seed: int) -> None:
    fast, tally = _play("trusted", name, seed, 6)
    slow, _ = _play("checked", name, seed, 6)
    assert tally.throws > 0 and tally.declarations > 0  # the hands tried throws and declared
    assert fast.version == slow.version
    assert fast.actions_json() == slow.actions_json()
    assert fast.history == slow.history
    assert fast.public_view() == slow.public_view()
    for seat in range(4):
        assert fast.view(seat) == slow.view(seat)
    # every action the trusted path logged is accepted by the checked path, to the same state
    again = Match.replay(preset(name), seed, fast.actions_json())
    assert again.public_view() == fast.public_view()
    assert again.history == fast.history


def test_compact_log_reads_as_value_types_and_grows_after_reading() -> None:
    m, _ = _play("trusted", "classic", 3, 1)
    n = m.version
    assert all(type(a).__name__ in {"Deal", "Declare", "Pass", "Bury", "Play", "Next", "Close", "Chao"} for a in m.actions)
    m.deal_trusted(4)
    assert m.version == n + 1 and m.actions[-1].to_json() == {"t": "deal", "n": 4}


def trusted_to_first_lead(m: Match) -> None:
    """Through the trusted calls (unlike `engine.bench.to_first_lead`): deals, passes (declaring when the deal forces it) and buries, then stops at the first lead."""
    while m.phase != "playing":
        h = m.hand
        if h.phase == "dealing":
            m.deal_trusted(4)
        elif h.phase == "declaring" and h.forced:
            seat = next(s for s in h.to_act() if h.declare_options(s))
            m.declare_trusted(seat, h.declare_options(seat)[0])
        elif h.phase == "declaring":
            m.pass_trusted(h.to_act()[0])
        elif h.phase == "burying":
            seat = h.to_act()[0]
            m.bury_trusted(seat, tuple(f for f in range(54) for _ in range(h.hands[seat][f]))[:8])
        else:
            m.next_trusted()


def test_failed_throw_is_logged_as_attempted_and_corrected() -> None:
    """A throw the others can beat is logged as tried, played as its weakest failing unit, penalised."""
    rng = random.Random(5)
    m = Match.new(preset("competition"), 5)  # 10 points a card thrown
    trusted_to_first_lead(m)
    h = m.hand
    while m.phase == "playing":
        turn = h.turn
        assert turn is not None and h.order is not None
        seat = turn
        if h.trick:
            assert h.lead is not None
            m.play_trusted(seat, random_follow(h.hands[seat], h.lead, rng, h.order))
            continue
        faces = random_lead(h.hands[seat], h.order, rng, 1.0)
        before = h.defender_points
        m.play_trusted(seat, faces)
        assert h.lead is not None
        if h.lead.failed:
            assert m.actions[-1] == Play(seat, tuple(cards_str(faces)))
            assert len(h.lead.faces) < len(faces) and h.lead.attempted == faces
            assert h.defender_points == before + (10 if h.is_defender((seat + 1) % 4) else -10) * len(faces)
            return
    pytest.fail("no failed throw in a whole hand of throws")


def test_bench_reports_a_rate_and_validation_time() -> None:
    rate, tally = bench_hands("chaodipi", 3, 2, "trusted")
    assert rate > 0 and tally.hands == 3 and tally.declare_decisions >= 300 and tally.chao_rounds > 0
    assert all(t > 0 for t in bench_validation(200, 2).values())
    assert parse_card("AS") >= 0


@pytest.mark.parametrize("name", PRESETS)
def test_a_hand_set_up_mid_trick_plays_on_like_the_match(name: str) -> None:
    """``Hand.at_trick`` with a trick begun, then ``Hand.play_trusted``: the same points as the match."""
    from engine.hand import Hand

    rng = random.Random(11)
    m = Match.new(preset(name), 11)
    to_first_lead(m, rng, Tally())
    h = m.hand
    assert h.order is not None and h.dealer is not None
    for _ in range(6):  # into the second trick, one card led
        seat = h.turn
        assert seat is not None
        if h.trick:
            assert h.lead is not None
            m.play_trusted(seat, random_follow(h.hands[seat], h.lead, rng, h.order))
        else:
            m.play_trusted(seat, random_lead(h.hands[seat], h.order, rng, 0.0))
    assert h.trick
    copy = Hand.at_trick(
        h.rules, h.level, h.order.trump, [h.dealer, (h.dealer + 2) % 4], h.hands, h.trick[0][0], h.kitty,
        h.defender_points, h.team_levels[1 - h.dealer % 2], trick=h.trick, lead=h.lead,
    )
    assert copy.turn == h.turn
    while m.phase == "playing":
        seat = h.turn
        assert seat is not None
        if h.trick:
            assert h.lead is not None
            faces = random_follow(h.hands[seat], h.lead, rng, h.order)
        else:
            faces = random_lead(h.hands[seat], h.order, rng, 0.3)
        copy.play_trusted(seat, faces)
        m.play_trusted(seat, faces)
    assert copy.result is not None and h.result is not None
    assert copy.defender_points == h.defender_points and copy.result.outcome == h.result.outcome


@pytest.mark.parametrize("name", PRESETS)
def test_throw_check_agrees_with_the_rule_seat_by_seat(name: str) -> None:
    """``check_lead``'s one pass over the other hands fails exactly the units some seat can beat."""
    from engine.combos import decompose
    from engine.play import _beats_unit, _failing_units, suit_cards

    rng = random.Random(3)
    checked = 0
    for seed in range(12):
        m = Match.new(preset(name), seed)
        to_first_lead(m, rng, Tally())
        h = m.hand
        if m.phase != "playing":
            continue
        assert h.order is not None
        for seat in range(4):
            others = [h.hands[s] for s in range(4) if s != seat]
            for suit in range(5):
                have = suit_cards(h.hands[seat], suit, h.order)
                for _ in range(8):
                    if len(have) < 2:
                        break
                    units = decompose(rng.sample(have, rng.randint(2, min(len(have), 8))), h.order)
                    want = [u for u in units if any(_beats_unit(u, suit_cards(o, suit, h.order), h.order) for o in others)]
                    assert _failing_units(units, suit, others, h.order) == want
                    checked += 1
    assert checked > 500


def test_a_failed_throw_names_who_beats_it_and_with_what() -> None:
    """The event of a failed throw names the first seat after the leader that can beat the unit the
    leader was held to, and the weakest cards of that seat that do: the table is told why."""
    from engine.combos import decompose
    from engine.play import _beats_unit

    rng = random.Random(11)
    seen = 0
    for seed in range(1, 40):
        m = Match.new(preset("competition"), seed)
        trusted_to_first_lead(m)
        h = m.hand
        while m.phase == "playing" and seen < 12:
            turn = h.turn
            assert turn is not None and h.order is not None
            seat = turn
            if h.trick:
                assert h.lead is not None
                m.play_trusted(seat, random_follow(h.hands[seat], h.lead, rng, h.order))
                continue
            faces = random_lead(h.hands[seat], h.order, rng, 1.0)
            hands = [list(h.hands[s]) for s in range(4)]
            events = h.play(seat, faces)
            failed = [e for e in events if e["e"] == "throw_failed"]
            if not failed:
                continue
            seen += 1
            e = failed[0]
            forced = decompose([parse_card(c) for c in e["played"]], h.order)[0]
            by = e["beaten_by"]
            beater = [parse_card(c) for c in e["beater"]]
            between = [(seat + i) % 4 for i in range(1, 4)]
            members = h.order.members[h.order.suit[forced.faces[0]]]
            of_suit = {s: [f for f in members for _ in range(hands[s][f])] for s in between}
            assert by in between and _beats_unit(forced, of_suit[by], h.order)
            assert all(not _beats_unit(forced, of_suit[s], h.order) for s in between[:between.index(by)])
            shown = decompose(beater, h.order)
            assert len(shown) == 1 and shown[0].pairs == forced.pairs and shown[0].top > forced.top
            assert all(hands[by][f] >= beater.count(f) for f in set(beater))
        if seen >= 12:
            return
    pytest.fail(f"only {seen} failed throws")
