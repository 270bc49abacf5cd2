"""Combinations: singles, pairs and tractors, and the shape of a play.

All functions take faces of one effective suit unless they say otherwise.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .cards import TRUMP
from .order import Order

SINGLE, PAIR, TRACTOR = 1, 2, 3


@dataclass(frozen=True, slots=True)
class Unit:
    """One component of a play. ``pairs`` is 0 for a single, 1 for a pair, n for a tractor."""

    pairs: int
    top: int  # order of its strongest card
    faces: tuple[int, ...]

    @property
    def kind(self) -> int:
        return SINGLE if self.pairs == 0 else PAIR if self.pairs == 1 else TRACTOR

    @property
    def size(self) -> int:
        return len(self.faces)


def pair_faces(faces: Iterable[int]) -> list[int]:
    return [f for f, n in Counter(faces).items() if n >= 2]


def runs_of(pairs: Iterable[int], order: Order) -> list[list[int]]:
    """Chains of adjacent pairs, each listed from weakest to strongest.

    A run of one is a lone pair. Where several pair faces share a chain
    position (off-suit level pairs), only one of them can sit in a chain.
    """
    by_pos: dict[int, list[int]] = {}
    for f in pairs:
        by_pos.setdefault(order.chain[f], []).append(f)
    if not by_pos:
        return []
    plain = order.suit[next(iter(by_pos.values()))[0]] != TRUMP
    step = 2 if plain and order.hollow else 1
    runs: list[list[int]] = []
    current: list[int] = []
    last = -10
    for pos in sorted(by_pos):
        faces = sorted(by_pos[pos], key=lambda f: order.rank[f])
        head, extra = faces[-1], faces[:-1]
        if current and pos - last <= step:
            current.append(head)
        else:
            if current:
                runs.append(current)
            current = [head]
        last = pos
        runs.extend([f] for f in extra)
    runs.append(current)
    if plain and order.wrap and len(runs) > 1:
        runs = _wrap(runs, order)
    return runs


def _wrap(runs: list[list[int]], order: Order) -> list[list[int]]:
    """AA22: a run ending at the ace continues into a run starting at the lowest rank."""
    lowest = min(runs, key=lambda r: order.chain[r[0]])
    highest = max(runs, key=lambda r: order.chain[r[-1]])
    if lowest is highest or order.chain[lowest[0]] != 0:
        return runs
    if order.rank[highest[-1]] != 12:
        return runs
    merged = highest + lowest  # the ace sits below the two here
    return [r for r in runs if r is not lowest and r is not highest] + [merged]


def decompose(faces: Sequence[int], order: Order) -> list[Unit]:
    """Split a one-suit play into tractors, pairs and singles (longest tractors first)."""
    if len(faces) == 1:
        return [Unit(0, order.rank[faces[0]], (faces[0],))]
    if len(faces) == 2 and faces[0] == faces[1]:
        return [Unit(1, order.rank[faces[0]], (faces[0], faces[0]))]
    counts: dict[int, int] = {}
    for f in faces:
        counts[f] = counts.get(f, 0) + 1
    units: list[Unit] = []
    for run in runs_of([f for f, n in counts.items() if n >= 2], order):
        units.append(Unit(len(run), order.rank[run[-1]], tuple(f for f in run for _ in (0, 1))))
        for f in run:
            counts[f] -= 2
    for f, n in counts.items():
        for _ in range(n):
            units.append(Unit(0, order.rank[f], (f,)))
    units.sort(key=lambda u: (-u.pairs, -u.top))
    return units


def tractor_lengths(units: Sequence[Unit]) -> list[int]:
    return sorted((u.pairs for u in units if u.pairs >= 2), reverse=True)


def pair_count(units: Sequence[Unit]) -> int:
    return sum(u.pairs for u in units)


def tractor_fit(runs: Sequence[Sequence[int]], lengths: Sequence[int]) -> int:
    """How many of the lead's tractor pairs these runs can answer with tractors."""
    avail = sorted(len(r) for r in runs if len(r) >= 2)
    fitted = 0
    for need in lengths:  # longest first
        for i, have in enumerate(avail):
            if have >= need:
                fitted += need
                rest = have - need
                avail.pop(i)
                if rest >= 2:
                    avail.append(rest)
                    avail.sort()
                break
    return fitted


def primary(units: Sequence[Unit]) -> Unit:
    """The component a play is judged by: its longest tractor, else its best pair, else its best single."""
    return max(units, key=lambda u: (u.pairs, u.top))


def ruff_key(faces: Sequence[int], lead: Sequence[Unit], order: Order) -> int | None:
    """The strength of an all-trump play answering ``lead``, or None if its shape does not match."""
    lengths = tractor_lengths(lead)
    need_pairs = sum(u.pairs for u in lead if u.pairs == 1)
    counts = Counter(faces)
    runs = runs_of([f for f, n in counts.items() if n >= 2], order)
    runs = [list(r) for r in runs]
    key: int | None = None
    main = primary(lead)
    for need in lengths:
        candidates = [r for r in runs if len(r) >= need]
        if not candidates:
            return None
        best = max(candidates, key=lambda r: order.rank[r[-1]])
        used = best[-need:]
        if key is None and main.pairs >= 2:
            key = order.rank[used[-1]]
        runs.remove(best)
        rest = best[:-need]
        if rest:
            runs.append(rest)
    loose = sorted((f for r in runs for f in r), key=lambda f: order.rank[f], reverse=True)
    if len(loose) < need_pairs:
        return None
    if key is None and main.pairs == 1:
        key = order.rank[loose[0]]
    if key is None:
        key = max(order.rank[f] for f in faces)
    return key
