"""Compare a few choices on the same sampled deals, and leave the default only on evidence.

Every searched decision (a play, a bury, a bid) is a list of choices whose
first is ``basic``'s. Each sampled deal plays every still-active choice out;
a choice is judged by its gain over the default on the same deals, so the
luck of the deal cancels. Choices clearly worse are dropped after a few
deals; the default is left only for a choice whose mean gain stays positive
after ``CONFIDENCE`` standard errors, so a small budget plays like ``basic``
rather than like noise.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import TypeVar

RACE_AFTER = 3  # deals before clearly worse choices stop being played out
CONFIDENCE = 0.75  # standard errors a choice must clear to replace the default
MIN_DEALS = 2

D = TypeVar("D")


def deadline_for(budget_s: float, deals: int | None) -> float | None:
    """The CPU-time guard: three times the budget from now (none when the deal count is fixed)."""
    return time.thread_time() + max(budget_s, 0.01) * 3 if deals is None else None


def race(
    k: int,
    deals: int,
    playouts: int,
    draw: Callable[[], D],
    value: Callable[[D, int], float],
    deadline: float | None,
) -> tuple[int, list[float], list[int]]:
    """The chosen index, and per choice its mean gain over the default and the deals it was played on.

    ``draw`` samples a deal, ``value(deal, j)`` plays choice j out on it.
    At most ``deals`` deals and about ``playouts`` playouts; ``deadline``
    (thread CPU time) stops the search on a machine far slower than planned.
    """
    sums, squares, counts = [0.0] * k, [0.0] * k, [0] * k
    active = list(range(1, k))
    used = 0
    for i in range(deals):
        if i >= MIN_DEALS and used >= playouts:
            break
        used += 1 + len(active)
        deal = draw()
        base = value(deal, 0)
        for j in active:
            d = value(deal, j) - base
            sums[j] += d
            squares[j] += d * d
            counts[j] += 1
        if i + 1 >= RACE_AFTER:
            active = [j for j in active if bound(sums[j], squares[j], counts[j], -CONFIDENCE * 2) >= 0.0]
            if not active:
                break
        if deadline is not None and i >= 1 and time.thread_time() > deadline:
            break
    means = [s / n if n else 0.0 for s, n in zip(sums, counts, strict=True)]
    return pick(sums, squares, counts), means, counts


def bound(total: float, square: float, n: int, z: float) -> float:
    """The mean gain over the default, moved ``z`` standard errors (down for z > 0)."""
    if n == 0:
        return 0.0
    mean = total / n
    if n == 1:
        return mean - z * 100.0
    var = max(0.0, square / n - mean * mean)
    return mean - z * math.sqrt(var / (n - 1))


def pick(sums: list[float], squares: list[float], counts: list[int]) -> int:
    """The default (index 0) unless a choice beats it by ``CONFIDENCE`` standard errors; then the surest."""
    best, best_bound = 0, 0.0
    for j in range(1, len(sums)):
        b = bound(sums[j], squares[j], counts[j], CONFIDENCE)
        if b > best_bound:
            best, best_bound = j, b
    return best
