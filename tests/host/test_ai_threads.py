"""AI moves are computed off the event loop, from the seat's own view only, and checked before use."""

from __future__ import annotations

import random
import threading
from typing import Any

import pytest

from app.features import build_host
from fakes.clock import FakeClock
from tests.host.conftest import FAST, Rig, open_sqlite
from tests.host.fakes import Driver, RecordingPlatform
from tests.host.helpers import open_table


async def test_ai_runs_in_worker_threads_and_bad_choices_fall_back(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[str, set[str], str]] = []
    loop_thread = threading.current_thread().name

    def chooser(view: dict[str, Any], level: str, seed: int, budget: float) -> dict[str, Any]:
        calls.append((threading.current_thread().name, set(view), level))
        return {"t": "nonsense"}  # the host must check it and fall back to a legal move

    monkeypatch.setattr("bot.table.ai_moves.find_chooser", lambda: chooser)
    store = await open_sqlite()
    platform = RecordingPlatform()
    # no level is "quick" here, so every decision goes to the worker threads (quick ones: test_ai_bursts.py)
    host = build_host(store, clock=FakeClock(), defaults=FAST, ai_threads=2, rng=random.Random(3), inline_levels=frozenset())
    host.register(platform)
    await host.start()
    rig = Rig(host, store, platform, FakeClock(), Driver(platform))
    try:
        await open_table(rig, ["u1"], 3, "classic", "target=3")
        table = host.by_chat[("fake", "g1")]
        await host.handle(rig.d.command("u1", "leave"))  # not allowed once started: u1 stays seated
        await host.settle()
        assert calls, "the AI was never asked"
        assert all(name != loop_thread and name.startswith("ai") for name, _, _ in calls)
        # an AI sees one hand: its own view has a "hand" and a "seat", never other seats' hands
        assert all("hand" in keys and "seat" in keys for _, keys, _ in calls)
        assert table.match.version > 0
    finally:
        await host.stop()
        await store.close()
