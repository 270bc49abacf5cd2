"""Resume = replay: rebuild every unfinished match from its log, setting aside only the broken ones.

The engine is passed in as a callable (the host passes a wrapper around
`engine.Match.replay`), so this module stays free of rules and of the engine.
One match whose log is damaged (bad JSON, a gap, an action the engine
refuses) is reported and set aside; every other match still resumes.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from persistence.store import BROKEN, Store, StoredMatch

T = TypeVar("T")

#: rebuild(rules, seed, actions) -> state; raises when the engine refuses the log.
Rebuild = Callable[[dict[str, Any], int, list[dict[str, Any]]], T]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Broken:
    """A match that could not be rebuilt, and why, in words an operator can act on."""

    match_id: int
    reason: str


@dataclass
class ReplayReport(Generic[T]):
    """The outcome of a resume: rebuilt states by match id, and the matches set aside."""

    states: dict[int, tuple[StoredMatch, T]] = field(default_factory=dict)
    broken: list[Broken] = field(default_factory=list)


def replay_one(stored: StoredMatch, rebuild: Rebuild[T]) -> T:
    """Rebuild one match; raises ValueError with a clear reason when its log is damaged.

    When the engine refuses the log, the first refused action is found by
    bisecting (replays of prefixes, only on this failure path) and named.
    """
    if stored.error:
        raise ValueError(stored.error)
    try:
        return rebuild(stored.rules, stored.seed, list(stored.actions))
    except Exception as exc:
        first_bad = _first_refused(stored, rebuild)
        if first_bad is None:
            raise ValueError(f"match {stored.id}: the engine refused its log: {_describe(exc)}") from exc
        seq, refusal = first_bad
        action = json.dumps(stored.actions[seq], ensure_ascii=False)[:120]
        raise ValueError(
            f"match {stored.id}: action seq {seq} {action} refused by the engine: {_describe(refusal)}"
        ) from exc


def replay_all(stored: Iterable[StoredMatch], rebuild: Rebuild[T]) -> ReplayReport[T]:
    """Rebuild every match; a damaged one lands in `broken` and never stops the others."""
    report: ReplayReport[T] = ReplayReport()
    for match in stored:
        try:
            report.states[match.id] = (match, replay_one(match, rebuild))
        except Exception as exc:  # one match's damage must not stop the rest
            reason = str(exc) if isinstance(exc, ValueError) else _describe(exc)
            report.broken.append(Broken(match.id, reason))
    return report


async def resume_all(store: Store, rebuild: Rebuild[T],
                     keep: Callable[[StoredMatch], bool] | None = None,
                     ids: Collection[int] | None = None) -> ReplayReport[T]:
    """Load every unfinished match, rebuild it, and mark the broken ones (status "broken", reason in meta).

    The one resume path (the host starts with it). `keep`: which matches to resume (the host's
    own platforms; `ids`, the tables a worker took over); the others are left alone. Matches set aside at an earlier start stay aside;
    a match set aside stays in the database untouched apart from its status, `db check` reports
    it and `db export` shows its log.
    """
    loaded = await store.load_unfinished(include_broken=True, ids=ids)
    pending = [m for m in loaded if m.status != BROKEN and (keep is None or keep(m))]
    # Replays are CPU work: keep the event loop free while they run.
    report = await asyncio.to_thread(replay_all, pending, rebuild)
    for broken in report.broken:
        log.error("match %s set aside: %s", broken.match_id, broken.reason)
        await store.mark_broken(broken.match_id, broken.reason)
    return report


def _first_refused(stored: StoredMatch, rebuild: Rebuild[T]) -> tuple[int, Exception] | None:
    """The seq of the first action the engine refuses, by bisecting on prefix length."""
    actions = stored.actions

    def fails(n: int) -> Exception | None:
        try:
            rebuild(stored.rules, stored.seed, list(actions[:n]))
        except Exception as exc:
            return exc
        return None

    if fails(0) is not None:
        return None  # the rules or seed themselves are refused, not an action
    low, high = 0, len(actions)  # prefix `low` replays; prefix `high` fails
    refusal = fails(high)
    if refusal is None:
        return None
    while high - low > 1:
        mid = (low + high) // 2
        exc = fails(mid)
        if exc is None:
            low = mid
        else:
            high, refusal = mid, exc
    return high - 1, refusal


def _describe(exc: BaseException) -> str:
    code = getattr(exc, "code", None)
    text = str(exc)
    name = type(exc).__name__
    if code and code not in text:
        return f"{name} {code}: {text}"
    return f"{name}: {text}" if text else name
