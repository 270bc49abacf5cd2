"""``python -m engine.bench``: complete hands per second with random legal play, and validation time."""

from __future__ import annotations

import argparse
import random
import statistics
import time

from .actions import Next, Play
from .cards import parse_card
from .match import Match
from .play import check_follow, check_lead
from .randplay import play_random_hand, random_action
from .rules import preset


def bench_hands(name: str, hands: int, seed: int) -> float:
    rng = random.Random(seed)
    done = 0
    start = time.process_time()
    s = seed
    while done < hands:
        m = Match.new(preset(name), s)
        s += 1
        while done < hands:
            play_random_hand(m, rng)
            done += 1
            if m.phase == "match_over":
                break
            m.apply(Next())
    return done / (time.process_time() - start)


def bench_validation(samples: int, seed: int) -> float:
    """Median time to validate one proposed play (lead or follow), in microseconds."""
    rng = random.Random(seed)
    times: list[float] = []
    m = Match.new(preset("classic"), seed)
    while len(times) < samples:
        if m.phase == "playing":
            h = m.hand
            assert h.turn is not None and h.order is not None
            a = random_action(m, rng)
            assert isinstance(a, Play)
            faces = [parse_card(c) for c in a.cards]
            seat = h.turn
            t0 = time.process_time()
            if h.trick:
                assert h.lead is not None
                check_follow(faces, h.hands[seat], h.lead, h.order)
            else:
                check_lead(faces, h.hands[seat], [h.hands[x] for x in range(4) if x != seat], h.order)
            times.append(time.process_time() - t0)
            m.apply(a)
        elif m.phase == "match_over":
            m = Match.new(preset("classic"), rng.randrange(10**9))
        else:
            m.apply(random_action(m, rng))
    return statistics.median(times) * 1e6


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--hands", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--presets", default="classic,competition,chaodipi,super")
    args = ap.parse_args()
    for name in args.presets.split(","):
        rate = bench_hands(name, args.hands, args.seed)
        print(f"{name:12s} {rate:8.1f} hands/s (deal, declarations, bury, 25 tricks, score; random legal play)")
    print(f"validate one play: median {bench_validation(20000, args.seed):.1f} µs (CPU time, one core)")


if __name__ == "__main__":
    main()
