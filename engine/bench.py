"""``python -m engine.bench``: complete hands per second the way other engines' benchmarks play them.

A hand here is what the peers' benchmarks count: the deal with a
declare-or-not decision for every seat each time a card reaches it, the
declaring window, the bury (and the 炒底 round where the preset has one),
every trick with random throws tried on a share of the leads (a failed
throw is corrected and penalised as the rules say) and the score. The
random player's own choices are part of the time. ``--path checked``
plays the same hands through ``Match.apply`` with value types (what a
host does: every action validated, events built); the default
``--path trusted`` uses the trusted path playouts use. Then the median
time to validate one play and to draw one state's views.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time
from dataclasses import dataclass

from .actions import Bury, Chao, Deal, Declare, Next, Pass, Play
from .cards import cards_str
from .hand import BURYING, CHAO, DEALING, DECLARING, PLAYING
from .match import Match
from .play import Lead, check_follow, check_lead
from .randplay import (
    DECLARE_SHARE,
    THROW_SHARE,
    declare_options,
    random_action,
    random_bury,
    random_follow,
    random_lead,
)
from .rules import preset

PRESETS = ("classic", "competition", "chaodipi", "super")


@dataclass
class Tally:
    """What the hands included, to print beside the rate."""

    hands: int = 0
    declare_decisions: int = 0
    declarations: int = 0
    leads: int = 0
    throws: int = 0
    failed_throws: int = 0
    plays: int = 0
    chao_rounds: int = 0

    def per_hand(self) -> str:
        n = max(1, self.hands)
        return (
            f"{self.declare_decisions / n:.0f} declare decisions, {self.declarations / n:.1f} declarations, "
            f"bury, {self.chao_rounds / n:.1f} 炒底 decisions, {self.plays / n:.0f} plays in {self.leads / n:.1f} tricks, "
            f"{self.throws / n:.1f} throws tried ({self.failed_throws / n:.1f} failed), score"
        )


def play_hand_checked(m: Match, rng: random.Random, tally: Tally) -> None:
    """One hand through ``Match.apply`` with value types, as a host drives it."""
    h = m.hand
    while True:
        ph = h.phase
        if ph == DEALING:
            m.apply(Deal(4))
            h = m.hand
            for seat in range(4):
                tally.declare_decisions += 1
                if m.can_declare(seat) and rng.random() < DECLARE_SHARE:
                    opts = [a for a in m.legal_actions(seat) if isinstance(a, Declare)]
                    if opts:
                        m.apply(rng.choice(opts))
                        tally.declarations += 1
        elif ph == DECLARING:
            seats = h.to_act()
            seat = seats[0]
            tally.declare_decisions += 1
            opts = [a for a in m.legal_actions(seat) if isinstance(a, Declare)]
            if h.forced and not opts:  # the forced side: the partner holding a level card shows it
                opts = [a for a in m.legal_actions(seats[-1]) if isinstance(a, Declare)]
            if opts and (h.forced or rng.random() < DECLARE_SHARE):
                m.apply(rng.choice(opts))
                tally.declarations += 1
            else:
                m.apply(Pass(seat))
        elif ph == BURYING:
            seat = h.to_act()[0]
            m.apply(Bury(seat, tuple(cards_str(random_bury(h.hands[seat], rng)))))
        elif ph == CHAO:
            seat = h.to_act()[0]
            tally.chao_rounds += 1
            chao = [a for a in m.legal_actions(seat) if isinstance(a, Chao)]
            m.apply(rng.choice(chao) if chao and rng.random() < DECLARE_SHARE else Pass(seat))
        elif ph == PLAYING:
            turn = h.turn
            assert turn is not None and h.order is not None
            seat = turn
            if not h.trick:
                faces = random_lead(h.hands[seat], h.order, rng, THROW_SHARE)
                tally.leads += 1
                m.apply(Play(seat, tuple(cards_str(faces))))
                _count_lead(h.lead, tally)
            else:
                assert h.lead is not None
                m.apply(Play(seat, tuple(cards_str(random_follow(h.hands[seat], h.lead, rng, h.order)))))
            tally.plays += 1
        else:
            tally.hands += 1
            return


def play_hand_trusted(m: Match, rng: random.Random, tally: Tally) -> None:
    """The same hand on the trusted path: card integers, nothing re-checked, the compact log."""
    h = m.hand
    rand = rng.random
    while True:
        ph = h.phase
        if ph == PLAYING:
            seat = h.turn
            assert seat is not None and h.order is not None
            if not h.trick:
                m.play_trusted(seat, random_lead(h.hands[seat], h.order, rng, THROW_SHARE))
                tally.leads += 1
                _count_lead(h.lead, tally)
            else:
                assert h.lead is not None
                m.play_trusted(seat, random_follow(h.hands[seat], h.lead, rng, h.order))
            tally.plays += 1
        elif ph == DEALING:
            m.deal_trusted(4)
            for seat in range(4):
                tally.declare_decisions += 1
                opts = h.declare_options(seat)
                if opts and rand() < DECLARE_SHARE:
                    m.declare_trusted(seat, rng.choice(opts))
                    tally.declarations += 1
        elif ph == DECLARING:
            seats = h.to_act()
            seat = seats[0]
            tally.declare_decisions += 1
            opts = h.declare_options(seat)
            if h.forced and not opts:
                seat = seats[-1]
                opts = h.declare_options(seat)
            if opts and (h.forced or rand() < DECLARE_SHARE):
                m.declare_trusted(seat, rng.choice(opts))
                tally.declarations += 1
            else:
                m.pass_trusted(seat)
        elif ph == BURYING:
            seat = h.to_act()[0]
            m.bury_trusted(seat, tuple(random_bury(h.hands[seat], rng)))
        elif ph == CHAO:
            seat = h.to_act()[0]
            tally.chao_rounds += 1
            opts = h.declare_options(seat)
            if opts and rand() < DECLARE_SHARE:
                m.declare_trusted(seat, rng.choice(opts))
            else:
                m.pass_trusted(seat)
        else:
            tally.hands += 1
            return


def _count_lead(lead: Lead | None, tally: Tally) -> None:
    assert lead is not None
    if lead.failed:
        tally.throws += 1
        tally.failed_throws += 1
    elif len(lead.units) > 1:
        tally.throws += 1


def bench_hands(name: str, hands: int, seed: int, path: str = "trusted") -> tuple[float, Tally]:
    """Hands per second of CPU time for one preset, and what they included."""
    rng = random.Random(seed)
    tally = Tally()
    play = play_hand_trusted if path == "trusted" else play_hand_checked
    s = seed
    start = time.process_time()
    while tally.hands < hands:
        m = Match.new(preset(name), s)
        s += 1
        while tally.hands < hands:
            play(m, rng, tally)
            if m.phase == "match_over":
                break
            if path == "trusted":
                m.next_trusted()
            else:
                m.apply(Next())
    return tally.hands / (time.process_time() - start), tally


REPEAT = 20  # each play is validated this many times in a row and the mean taken (the clock's own cost)


def bench_validation(samples: int, seed: int) -> dict[str, float]:
    """Median CPU time to validate one proposed play (lead or follow) in microseconds, at three doors:
    ``rules`` (``check_lead`` / ``check_follow`` on faces), ``hand`` (``Hand.check_play``: phase, turn and
    the rules) and ``match`` (``Match.validate`` of a ``Play`` value type, card names parsed)."""
    rng = random.Random(seed)
    times: dict[str, list[float]] = {"rules": [], "hand": [], "match": []}
    tally = Tally()
    m = Match.new(preset("classic"), seed)
    clock = time.process_time
    reps = range(REPEAT)
    while len(times["rules"]) < samples:
        h = m.hand
        if h.phase == PLAYING and m.result is None:
            assert h.turn is not None and h.order is not None
            seat = h.turn
            hand = h.hands[seat]
            if h.trick:
                lead = h.lead
                assert lead is not None
                faces = random_follow(hand, lead, rng, h.order)
                t0 = clock()
                for _ in reps:
                    check_follow(faces, hand, lead, h.order)
            else:
                faces = random_lead(hand, h.order, rng, THROW_SHARE)
                t0 = clock()
                for _ in reps:
                    check_lead(faces, hand, [h.hands[x] for x in range(4) if x != seat], h.order)
            t1 = clock()
            for _ in reps:
                h.check_play(seat, faces)
            t2 = clock()
            play = Play(seat, tuple(cards_str(faces)))
            for _ in reps:
                m.validate(play)
            t3 = clock()
            times["rules"].append(t1 - t0)
            times["hand"].append(t2 - t1)
            times["match"].append(t3 - t2)
            m.apply(play)
        elif m.phase == "match_over":
            m = Match.new(preset("classic"), rng.randrange(10**9))
        elif m.phase == "hand_over":
            m.apply(Next())
        else:
            to_first_lead(m, rng, tally)
    return {k: statistics.median(v) / REPEAT * 1e6 for k, v in times.items()}


def bench_views(samples: int, seed: int) -> dict[str, float]:
    """Median CPU time in microseconds to draw one state's views once, right after its action, as the
    host does after every event (``all``: the public view, then each seat's view built on it), and a
    public view alone, over the states of random classic hands (``randplay.random_action``)."""
    rng = random.Random(seed)
    times: dict[str, list[float]] = {"all": [], "public": []}
    clock = time.process_time
    m = Match.new(preset("classic"), seed)
    while len(times["all"]) < samples:
        if m.phase == "match_over":
            m = Match.new(preset("classic"), rng.randrange(10**9))
        m.apply(random_action(m, rng, 0.3))
        t0 = clock()
        pub = m.public_view()
        for seat in range(4):
            m.view(seat, pub)
        t1 = clock()
        m.public_view()
        t2 = clock()
        times["all"].append(t1 - t0)
        times["public"].append(t2 - t1)
    return {k: statistics.median(v) * 1e6 for k, v in times.items()}


def to_first_lead(m: Match, rng: random.Random, tally: Tally) -> None:
    """Deal, declare and bury at random until the first lead."""
    h = m.hand
    while h.phase not in (PLAYING, "hand_over") and m.result is None:
        ph = h.phase
        if ph == DEALING:
            m.apply(Deal(4))
        elif ph == DECLARING:
            seat = h.to_act()[0]
            if h.forced:
                seat = next(s for s in h.to_act() if declare_options(h, s))
                m.apply(Declare(seat, tuple(cards_str(declare_options(h, seat)[0]))))
            else:
                m.apply(Pass(seat))
        elif ph == BURYING:
            seat = h.to_act()[0]
            m.apply(Bury(seat, tuple(cards_str(random_bury(h.hands[seat], rng)))))
        elif ph == CHAO:
            seat = h.to_act()[0]
            m.apply(Pass(seat))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hands", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--presets", default=",".join(PRESETS))
    ap.add_argument("--path", choices=("trusted", "checked"), default="trusted")
    ap.add_argument("--samples", type=int, default=20000, help="plays timed for the validation median")
    ap.add_argument("--view-samples", type=int, default=5000, help="states timed for the views' median")
    args = ap.parse_args()
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}; CPU time, one core; --path {args.path}")
    for name in args.presets.split(","):
        rate, tally = bench_hands(name, args.hands, args.seed, args.path)
        print(f"{name:12s} {rate:8.1f} hands/s  a hand: deal with {tally.per_hand()}")
    v = bench_validation(args.samples, args.seed)
    print(
        f"validate one play, median: {v['rules']:.2f} µs (rules: check_lead / check_follow), "
        f"{v['hand']:.2f} µs (Hand.check_play), {v['match']:.2f} µs (Match.validate of a Play with card names)"
    )
    w = bench_views(args.view_samples, args.seed)
    print(f"draw one state's views, median: {w['all']:.1f} µs (public view and four seat views on it), "
          f"{w['public']:.1f} µs (the public view alone)")


if __name__ == "__main__":
    main()
