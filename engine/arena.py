"""``python -m engine.arena``: two AI levels play duplicate deals against each other.

Each deal is played twice with the same cards and the same decision seeds,
once with side A in seats 0 and 2 and once with A in seats 1 and 3, so the
luck of the cards cancels. A deal is the first hand of a fresh match
(declaring decides the dealer), or with ``--hand N`` its N-th hand after
``basic`` played the earlier ones (a dealer fixed, 炒底 possible). Prints hands won, levels gained, A's win
rate with a 95% confidence interval, and decision times per level.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import statistics
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

from .ai import LEVELS, choose
from .match import Match
from .rules import PRESETS, preset


@dataclass
class Game:
    """One hand: who won it (side "A"/"B", or None for a revolution or a redeal) and the decision times."""

    winner: str | None
    levels: int
    points: int
    times: dict[str, list[float]] = field(default_factory=dict)  # wall clock per decision
    cpu: dict[str, list[float]] = field(default_factory=dict)  # the deciding thread's CPU time
    phase_cpu: dict[str, list[float]] = field(default_factory=dict)  # the same by "level phase" (bids, bury, play)
    actions: str = ""  # a digest of every action applied: two builds that decide alike give the same digest


def decision_seed(deal_seed: int, version: int, seat: int) -> int:
    return (deal_seed * 1_000_003 + version * 31 + seat) & 0x7FFFFFFF


def play_game(
    preset_name: str,
    deal_seed: int,
    seats: Sequence[str],
    sides: Sequence[str],
    budget: float,
    deals: int | None = None,
    hand: int = 1,
) -> Game:
    """Play hand ``hand`` of a match seeded ``deal_seed``; ``seats[s]`` names the level in seat s.

    Earlier hands are played by ``basic`` in every seat (the same for both games of a deal), so a
    later hand, with a dealer fixed and 炒底 possible, can be measured in duplicate too."""
    m = Match.new(preset(preset_name), deal_seed)
    while m.hand_no < hand and m.phase != "match_over":
        to_act = m.to_act()
        if to_act:
            a = choose(m.view(to_act[0]), "basic")
            m.apply(a if m.check(a) is None else m.auto_action(to_act[0]) or a)
        else:
            sa = m.system_action()
            if sa is None:
                break
            m.apply(sa)
    times: dict[str, list[float]] = {lvl: [] for lvl in set(seats)}
    cpu: dict[str, list[float]] = {lvl: [] for lvl in set(seats)}
    phase_cpu: dict[str, list[float]] = {}
    log = hashlib.sha256()
    while m.phase not in ("hand_over", "match_over"):
        to_act = m.to_act()
        if not to_act:
            sys_action = m.system_action()
            if sys_action is None:
                break
            m.apply(sys_action)
            log.update(json.dumps(sys_action.to_json(), sort_keys=True).encode())
            continue
        s = to_act[0]
        view = m.view(s)
        t0, c0 = time.perf_counter(), time.thread_time()
        a = choose(view, seats[s], decision_seed(deal_seed, m.version, s), budget, deals=deals)
        times[seats[s]].append(time.perf_counter() - t0)
        cpu[seats[s]].append(time.thread_time() - c0)
        phase_cpu.setdefault(f"{seats[s]} {m.phase}", []).append(cpu[seats[s]][-1])
        if m.check(a) is not None:  # never expected: fall back so one bug does not stop the arena
            fallback = m.auto_action(s)
            assert fallback is not None, (a, view)
            a = fallback
        m.apply(a)
        log.update(json.dumps(a, sort_keys=True, default=str).encode())
    r = m.hand.result
    digest = log.hexdigest()[:16]
    if r is None or r.outcome is None:
        return Game(None, 0, 0, times, cpu, phase_cpu, digest)
    dteam = r.declarer_team
    team = dteam if r.outcome.winner == "declarers" else 1 - dteam
    return Game(sides[team], r.outcome.levels, r.defender_points, times, cpu, phase_cpu, digest)


def play_deal(args: tuple[str, int, str, str, float, int | None, int]) -> tuple[Game, Game]:
    preset_name, deal_seed, a, b, budget, deals, hand = args
    g1 = play_game(preset_name, deal_seed, [a, b, a, b], ["A", "B"], budget, deals, hand)
    g2 = play_game(preset_name, deal_seed, [b, a, b, a], ["B", "A"], budget, deals, hand)
    return g1, g2


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% confidence interval for a win rate (Wilson score interval)."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    den = 1 + z * z / n
    mid = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return mid - half, mid + half


def percentile(xs: Sequence[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))] if s else 0.0


def report(
    games: Sequence[Game], a: str, b: str, deals: int, preset_name: str, budget: float, hand: int = 1
) -> str:
    won = {"A": 0, "B": 0}
    levels = {"A": 0, "B": 0}
    void = 0
    times: dict[str, list[float]] = {}
    cpu: dict[str, list[float]] = {}
    by_phase: dict[str, list[float]] = {}
    for g in games:
        if g.winner is None:
            void += 1
        else:
            won[g.winner] += 1
            levels[g.winner] += g.levels
        for lvl, ts in g.times.items():
            times.setdefault(lvl, []).extend(ts)
        for lvl, ts in g.cpu.items():
            cpu.setdefault(lvl, []).extend(ts)
        for key, ts in g.phase_cpu.items():
            by_phase.setdefault(key, []).extend(ts)
    pairs = {"A": 0, "B": 0, "split": 0}
    for g1, g2 in zip(games[::2], games[1::2], strict=True):
        if g1.winner is not None and g1.winner == g2.winner:
            pairs[g1.winner] += 1
        else:
            pairs["split"] += 1
    n = won["A"] + won["B"]
    lo, hi = wilson(won["A"], n)
    rate = won["A"] / n if n else 0.0
    lines = [
        f"arena: A={a} vs B={b}, preset {preset_name}, hand {hand}, {deals} duplicate deals ({len(games)} hands), "
        f"budget {budget} s",
        f"hands won: A {won['A']}, B {won['B']}, no result {void} (revolution or redeal)",
        f"levels gained: A {levels['A']}, B {levels['B']}",
        f"deals won both times: A {pairs['A']}, B {pairs['B']}; split or no result {pairs['split']}",
        f"A win rate: {rate:.1%} (95% CI {lo:.1%} - {hi:.1%})",
    ]
    for lvl in sorted(times):
        for what, table in (("decision time", times), ("decision CPU", cpu)):
            ts = table.get(lvl) or [0.0]
            lines.append(
                f"{what} {lvl}: median {statistics.median(ts) * 1000:.2f} ms, "
                f"p95 {percentile(ts, 0.95) * 1000:.2f} ms, max {max(ts) * 1000:.1f} ms over {len(ts)} decisions"
            )
    for key in sorted(by_phase):
        ts = by_phase[key]
        if key.split()[0] in ("strong", "expert"):
            lines.append(
                f"decision CPU {key}: median {statistics.median(ts) * 1000:.2f} ms, "
                f"p95 {percentile(ts, 0.95) * 1000:.2f} ms, max {max(ts) * 1000:.1f} ms over {len(ts)} decisions"
            )
    return "\n".join(lines)


def _progress(games: list[Game], ns: argparse.Namespace) -> None:
    """With --progress: a line every 10 deals, the whole report every 20 (a long run can be read early)."""
    done = len(games) // 2
    if not ns.progress or done % 10:
        return
    print(f"{done}/{ns.deals} deals", file=sys.stderr, flush=True)
    if done % 20 == 0 and done < ns.deals:
        print(report(games, ns.a, ns.b, done, ns.preset, ns.budget, ns.hand), file=sys.stderr, flush=True)


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m engine.arena", description=__doc__)
    p.add_argument("--a", default="strong", choices=LEVELS, help="level of side A")
    p.add_argument("--b", default="basic", choices=LEVELS, help="level of side B")
    p.add_argument("--deals", type=int, default=400, help="duplicate deals (each is played twice)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--preset", default="classic", choices=sorted(PRESETS))
    p.add_argument("--budget", type=float, default=0.3, help="seconds of CPU per strong decision")
    p.add_argument(
        "--jobs", type=int, default=1, help="worker processes (each plays whole deals on one core)"
    )
    p.add_argument(
        "--samples", type=int, default=None, help="strong: sampled deals per decision instead of --budget"
    )
    p.add_argument(
        "--hand", type=int, default=1, help="measure this hand of the match (earlier ones: basic everywhere)"
    )
    p.add_argument(
        "--progress",
        action="store_true",
        help="report progress on stderr, and the figures so far every 20 deals",
    )
    p.add_argument("--first", type=int, default=0, help="index of the first deal (deal i is seeded seed*100000+i)")
    p.add_argument(
        "--out",
        type=Path,
        default=None,
        help="keep each finished deal in this JSON-lines file; deals already in it are not played again",
    )
    ns = p.parse_args(argv)
    wanted = range(ns.first, ns.first + ns.deals)
    done = _load(ns.out, set(wanted)) if ns.out else {}
    work = [
        (ns.preset, ns.seed * 100_000 + i, ns.a, ns.b, ns.budget, ns.samples, ns.hand) for i in wanted if i not in done
    ]
    games: list[Game] = [g for i in sorted(done) for g in done[i]]
    if ns.jobs > 1:
        with ProcessPoolExecutor(ns.jobs) as pool:
            for w, pair in zip(work, pool.map(play_deal, work, chunksize=1), strict=True):
                games += pair
                _keep(ns.out, w[1] - ns.seed * 100_000, pair)
                _progress(games, ns)
    else:
        for w in work:
            pair = play_deal(w)
            games += pair
            _keep(ns.out, w[1] - ns.seed * 100_000, pair)
            _progress(games, ns)
    print(report(games, ns.a, ns.b, ns.deals, ns.preset, ns.budget, ns.hand))
    return 0


def _keep(out: Path | None, i: int, pair: tuple[Game, Game]) -> None:
    if out is not None:
        with out.open("a", encoding="utf-8") as f:
            f.write(json.dumps({"deal": i, "games": [asdict(g) for g in pair]}) + "\n")


def _load(out: Path, wanted: set[int]) -> dict[int, tuple[Game, Game]]:
    """The deals a file already holds (a run stopped early goes on where it stopped)."""
    done: dict[int, tuple[Game, Game]] = {}
    if out.exists():
        for line in out.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            if row["deal"] in wanted:
                g1, g2 = (Game(**g) for g in row["games"])
                done[row["deal"]] = (g1, g2)
    return done


if __name__ == "__main__":
    raise SystemExit(main())
