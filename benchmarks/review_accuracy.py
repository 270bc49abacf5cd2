"""`python -m benchmarks.review_accuracy`: does the hand review (复盘) find planted mistakes, and only those?

Each hand is the first hand of a classic match played by `basic` in every seat, except that some plays
of one seat (the reviewed one, a different seat each hand) are replaced by a random legal play that
differs from `basic`'s: the planted mistakes. What a planted play lost is measured two ways:

- *expected loss* (the yardstick): from the seat's own view at that moment, `basic`'s play and the
  planted one are each played out on `JUDGE_DEALS` deals of the hidden cards (sampled as `strong` and
  the review sample them, but from a generator of their own), with `basic` for every seat afterwards;
  the mean difference is what the planted play cost on average, with what the seat could know;
- *realized loss*: the same two plays played out once on the real cards. This one is mostly the luck
  of the deal (one deal's difference swings by 10-35 points either way), which no review from the
  seat's view can see; it is reported beside, not aimed at.

The review of that seat's hand (`engine.ai.review`, from the seat's view only) then flags a decision
or not. The report:

- of the planted mistakes that cost 10 points or more (expected), the share flagged (aim: 80% or more);
- of `basic`'s own decisions in the same hands (unplanted, with a choice), the share flagged as costing
  10 or more (aim: 10% or less), and the share flagged at all;
- the CPU of one hand's review (thread time; aim: 10 s at most).

docs/ai.md has the figures and the command that produced them.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from dataclasses import dataclass, field

from engine import Match, preset
from engine.actions import Play
from engine.ai import choose, rand
from engine.ai.infer import beliefs
from engine.ai.options import play_options
from engine.ai.review import play_points, review_hand
from engine.ai.sampling import Deal, sample
from engine.ai.seen import faces, read_view

COSTLY = 10.0  # points: a planted play costing this much should be flagged; a flag of basic's at this is false
JUDGE_DEALS = 200
PLAYS = 16  # about how many plays a seat makes in a hand (a pair or a throw is one play)


@dataclass
class Tally:
    planted: list[tuple[float, float, bool]] = field(default_factory=list)  # (expected, realized loss, flagged)
    own: list[tuple[bool, float]] = field(default_factory=list)  # basic's unplanted decisions: (flagged, saved)
    cpu: list[float] = field(default_factory=list)
    rows: list[dict[str, object]] = field(default_factory=list)  # every judged decision, for --out

    def report(self) -> dict[str, object]:
        big = [f for loss, _, f in self.planted if loss >= COSTLY]
        lucky = [f for _, real, f in self.planted if real >= COSTLY]
        costly = [f and saved >= COSTLY for f, saved in self.own]
        return {
            "hands": len(self.cpu),
            "planted": len(self.planted),
            "planted_cost_10": len(big),
            "flagged_of_those": sum(big),
            "recall": sum(big) / len(big) if big else None,
            "planted_small_flagged": sum(f for loss, _, f in self.planted if loss < COSTLY),
            "planted_realized_10": len(lucky),
            "recall_realized": sum(lucky) / len(lucky) if lucky else None,
            "own_decisions": len(self.own),
            "own_flagged_10": sum(costly),
            "false_flag_rate_10": sum(costly) / len(costly) if costly else None,
            "own_flagged_any": sum(f for f, _ in self.own),
            "cpu_median_s": statistics.median(self.cpu) if self.cpu else None,
            "cpu_max_s": max(self.cpu) if self.cpu else None,
        }


def losses(m: Match, seat: int, own: tuple[int, ...], planted: tuple[int, ...], seed: int,
           judge_deals: int = JUDGE_DEALS) -> tuple[float, float]:
    """What playing ``planted`` instead of ``own`` cost the seat's side: expected from the seat's view
    (``JUDGE_DEALS`` sampled deals), and realized on the real cards."""
    seen = read_view(m.view(seat))
    rng = random.Random(f"judge:{seed}:{m.version}")
    guesses = beliefs(seen)
    diffs = []
    for _ in range(judge_deals):
        deal = sample(seen, rng, guesses)
        diffs.append(play_points(seen, deal, own) - play_points(seen, deal, planted))
    real = Deal([list(h) for h in m.hand.hands], list(m.hand.kitty), True)
    return statistics.fmean(diffs), play_points(seen, real, own) - play_points(seen, real, planted)


def one_hand(seed: int, seat: int, plants: int, tally: Tally, budget_s: float, judge_deals: int = JUDGE_DEALS) -> None:
    m = Match.new(preset("classic"), seed)
    rng = random.Random(f"plant:{seed}")
    planted: dict[int, tuple[float, float]] = {}
    while m.phase not in ("hand_over", "match_over"):
        to_act = m.to_act()
        if not to_act:
            sa = m.system_action()
            assert sa is not None
            m.apply(sa)
            continue
        s = to_act[0]
        view = m.view(s)
        a = choose(view, "basic", m.version)
        if s == seat and isinstance(a, Play) and rng.random() < plants / PLAYS:
            seen = read_view(view)
            if any(sorted(o) != sorted(faces(list(a.cards))) for o in play_options(seen)):
                bad = rand.decide(seen, rng)
                while not isinstance(bad, Play) or sorted(faces(list(bad.cards))) == sorted(faces(list(a.cards))):
                    bad = rand.decide(seen, rng)
                planted[m.version] = losses(m, seat, faces(list(a.cards)), faces(list(bad.cards)), seed, judge_deals)
                a = bad
        m.apply(a)
    t0 = time.thread_time()
    review = review_hand(m.rules, m.seed, m.actions, 1, seat, budget_s=budget_s)
    tally.cpu.append(time.thread_time() - t0)
    flagged = {d.index for d in review.flagged}
    for d in review.decisions:
        tally.rows.append({"seed": seed, "seat": seat, "index": d.index, "kind": d.kind, "saved": d.saved,
                           "error": d.error, "deals": d.deals, "planted": d.index in planted,
                           "loss": planted.get(d.index), "hindsight": d.hindsight_saved})
        if d.index in planted:
            tally.planted.append((*planted[d.index], d.index in flagged))
        else:
            tally.own.append((d.index in flagged, d.saved))
    for index, loss in planted.items():  # a planted play the review did not weigh (a single choice)
        if index not in {d.index for d in review.decisions}:
            tally.planted.append((*loss, False))


def main(argv: list[str] | None = None) -> dict[str, object]:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--hands", type=int, default=70)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--plants", type=int, default=3, help="planted mistakes per hand")
    p.add_argument("--budget", type=float, default=None, help="CPU per decision (default: the review's)")
    p.add_argument("--judge", type=int, default=JUDGE_DEALS, help="deals judging each planted play's cost")
    p.add_argument("--progress", action="store_true")
    p.add_argument("--out", help="write every judged decision here (JSON lines), to weigh other thresholds")
    args = p.parse_args(argv)
    from engine.ai.review import DECISION_BUDGET_S

    budget = args.budget if args.budget is not None else DECISION_BUDGET_S
    tally = Tally()
    for i in range(args.hands):
        one_hand(args.seed * 100_000 + i, i % 4, args.plants, tally, budget, args.judge)
        if args.progress and (i + 1) % 10 == 0:
            print(json.dumps(tally.report()), file=sys.stderr, flush=True)
    report = tally.report()
    print(json.dumps(report, indent=1))
    if args.out:
        with open(args.out, "w") as f:
            f.writelines(json.dumps(r) + "\n" for r in tally.rows)
    return report


if __name__ == "__main__":
    main()
