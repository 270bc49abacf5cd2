"""A host resumes through the one resume path: a match the engine refuses is set aside, the rest play on."""

from __future__ import annotations

import random

import engine
from app.features import build_host
from fakes.clock import FakeClock
from persistence.store import BROKEN
from tests.host.conftest import FAST, open_sqlite
from tests.host.fakes import RecordingPlatform

AI_SEATS = [{"kind": "ai", "name": f"Bot{i}", "level": "basic"} for i in range(4)]


async def test_a_match_whose_log_the_engine_refuses_is_set_aside_and_the_others_resume() -> None:
    store = await open_sqlite()
    rules = engine.preset("classic").to_dict()
    meta = {"preset": "classic", "settings": FAST.to_dict()}
    good = await store.create_match("fake", "g1", rules, AI_SEATS, 11, meta, status="active")
    bad = await store.create_match("fake", "g2", rules, AI_SEATS, 12, meta, status="active")
    other = await store.create_match("elsewhere", "g3", rules, AI_SEATS, 13, meta, status="active")
    await store.append_action(bad, 0, {"t": "play", "seat": 0, "cards": ["AS"]}, None)  # not while dealing
    await store.append_action(other, 0, {"t": "play", "seat": 0, "cards": ["AS"]}, None)
    host = build_host(store, clock=FakeClock(), defaults=FAST, use_ai_threads=False, rng=random.Random(1))
    host.register(RecordingPlatform())
    try:
        await host.start()
        assert sorted(host.tables) == [good]
        stored = await store.get_match(bad)
        assert stored is not None and stored.status == BROKEN
        assert "seq 0" in stored.meta["broken"] and stored.meta["status_before_broken"] == "active"
        untouched = await store.get_match(other)  # another platform's match is not this host's to judge
        assert untouched is not None and untouched.status == "active"
    finally:
        await host.stop()
        await store.close()
