"""Crash-test child: appends actions to a few matches forever, printing each committed one.

Run as `python -m tests.persistence.crash_child DB SYNC`. It prints "ready",
then one line "MATCH SEQ" after each append has committed; the parent kills
it with SIGKILL at a random moment and checks that every printed line is in
the database. Each run resumes the matches it finds (replay) and goes on.
Matches are real engine matches on auto-play once the engine is there.
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any, cast

from persistence import SqliteStore
from persistence.replay import replay_all
from persistence.store import Synchronous
from tests.persistence import engine_play, standin

TABLES = 3


def game_rules() -> dict[str, Any]:
    return engine_play.rules_dict()


def rebuild(rules: dict[str, Any], seed: int, actions: list[dict[str, Any]]) -> Any:
    """Replay through the engine for engine matches, through the stand-in otherwise."""
    if "seats" in rules:
        return standin.rebuild(rules, seed, actions)
    return engine_play.rebuild(rules, seed, actions)


def expected_log(rules: dict[str, Any], seed: int, n: int) -> list[dict[str, Any]]:
    """The first n actions the child appends to a match (both games are deterministic)."""
    if "seats" in rules:
        return standin.play(seed, n)
    return engine_play.play(rules, seed, n)


def _next(state: Any) -> dict[str, Any] | None:
    if isinstance(state, standin.StandInMatch):
        return state.next_action()
    return engine_play.next_action(state)


async def _table(store: SqliteStore, match_id: int, state: Any) -> None:
    out = sys.stdout
    while (action := _next(state)) is not None:
        seq = state.version
        result = await store.append_action(match_id, seq, action, f"{match_id}:{seq}")
        assert result == "applied"
        state.apply(action)
        out.write(f"{match_id} {seq}\n")
        out.flush()
        if seq % 7 == 3:
            await store.set_deadline(match_id, "turn", float(seq))
            await store.set_message(match_id, "table", f"m{seq}")


async def main(path: str, synchronous: str) -> None:
    store = await SqliteStore.open(path, synchronous=cast(Synchronous, synchronous))
    report = replay_all(await store.load_unfinished(), rebuild)
    if report.broken:
        raise SystemExit(f"broken on resume: {report.broken}")
    tables: dict[int, Any] = {match_id: state for match_id, (_, state) in report.states.items()}
    while len(tables) < TABLES:
        seed = len(tables) + 1
        rules = game_rules()
        match_id = await store.create_match("crash", f"chat{seed}", rules, [], seed, {})
        tables[match_id] = rebuild(rules, seed, [])
    print("ready", flush=True)
    await asyncio.gather(*(_table(store, m, s) for m, s in tables.items()))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
