"""Tables of AIs at full speed: quick levels decide on the loop, the table is redrawn at a bounded
interval while they play, and stopping the host ends a burst at once."""

from __future__ import annotations

import asyncio
import random
import threading
from pathlib import Path
from typing import Any

import pytest

import engine
from app.features import build_host
from bot import host as host_module
from bot.host import Host
from fakes.clock import FakeClock
from tests.host.conftest import FAST, open_sqlite
from tests.host.fakes import RecordingPlatform

AI_SEATS = [{"kind": "ai", "name": f"Bot{i}", "level": "basic"} for i in range(4)]


class TickingClock(FakeClock):
    """Every look at the clock moves it on a little: a burst of moves takes (fake) time."""

    def __init__(self, step: float) -> None:
        super().__init__()
        self.step = step

    def now(self) -> float:
        self.advance(self.step)
        return super().now()


async def ai_only_host(clock: Any, *, target: str = "3", seats: list[dict[str, Any]] | None = None,
                       **kw: Any) -> tuple[Host, Any, RecordingPlatform, int]:
    store = await open_sqlite()
    rules = engine.Rules.from_dict({**engine.preset("classic").to_dict(), "target": target})
    mid = await store.create_match("fake", "g1", rules.to_dict(), seats or AI_SEATS, 11,
                                   {"preset": "classic", "settings": FAST.to_dict()}, status="active")
    platform = RecordingPlatform()
    host = build_host(store, clock=clock, defaults=FAST, rng=random.Random(5), **kw)
    host.register(platform)
    return host, store, platform, mid


def table_edits(platform: RecordingPlatform) -> list[Any]:
    return [s for s in platform.log if not s.where.private and s.view.buttons]


async def test_a_table_of_ais_is_redrawn_at_a_bounded_interval_while_it_plays() -> None:
    clock = TickingClock(0.05)
    host, store, platform, mid = await ai_only_host(clock, ai_refresh=2.0)
    try:
        start = clock.now()
        await host.start()
        await host.settle()
        elapsed = clock.now() - start
        stored = await store.get_match(mid)
        assert stored is not None and stored.status == "finished"
        draws = table_edits(platform)
        # drawn while playing (not only once at the end) ...
        assert len(draws) >= elapsed / 2.0 * 0.8 > 5, (len(draws), elapsed)
        # ... but never more often than every 2 (fake) seconds, plus a new message per hand and the end
        hands = sum(1 for s in draws if s.op == "send")
        assert len(draws) <= elapsed / 2.0 + hands + 2, (len(draws), elapsed, hands)
    finally:
        await host.stop()
        await store.close()


async def test_no_redraw_mid_burst_when_time_stands_still() -> None:
    """The refresh is bounded by time: a burst that takes no time ends in the usual single render."""
    host, store, platform, mid = await ai_only_host(FakeClock(), ai_refresh=2.0)
    try:
        await host.start()
        await host.settle()
        stored = await store.get_match(mid)
        assert stored is not None and stored.status == "finished"
        assert len(table_edits(platform)) <= 2  # the final table, and perhaps the one of the first hand
    finally:
        await host.stop()
        await store.close()


async def test_quick_levels_decide_on_the_loop_and_slow_ones_in_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[str, str]] = []
    from engine.ai import choose

    loop = asyncio.get_running_loop()
    every_level = asyncio.Event()

    def chooser(view: dict[str, Any], level: str, seed: int, budget: float) -> dict[str, Any]:
        calls.append((threading.current_thread().name, level))
        if len({lv for _, lv in calls}) == 3:
            loop.call_soon_threadsafe(every_level.set)
        return choose(view, "basic", seed, budget)

    monkeypatch.setattr("bot.table.ai_moves.find_chooser", lambda: chooser)
    seats = [dict(AI_SEATS[0]), {**AI_SEATS[1], "level": "strong"}, dict(AI_SEATS[2]),
             {**AI_SEATS[3], "level": "random"}]
    host, store, _platform, _mid = await ai_only_host(FakeClock(), target="3", seats=seats)
    try:
        await host.start()
        await asyncio.wait_for(every_level.wait(), 60)
        loop_thread = threading.current_thread().name
        by_level = {lv: {name for name, lvl in calls if lvl == lv} for lv in ("basic", "random", "strong")}
        assert by_level["basic"] == {loop_thread}
        assert by_level["random"] == {loop_thread}
        assert by_level["strong"] and all(name.startswith("ai") for name in by_level["strong"])
    finally:
        await host.stop()
        await store.close()


async def test_a_bad_answer_from_a_quick_level_falls_back_to_a_legal_move(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("bot.table.ai_moves.find_chooser", lambda: lambda view, level, seed, budget: {"t": "nonsense"})
    host, store, _platform, mid = await ai_only_host(FakeClock())
    try:
        await host.start()
        await host.settle()
        stored = await store.get_match(mid)
        assert stored is not None and stored.status == "finished"
        assert all(a.get("t") != "nonsense" for a in stored.actions)
    finally:
        await host.stop()
        await store.close()


async def test_stopping_the_host_ends_a_burst_of_ai_moves_at_once() -> None:
    host, store, _platform, mid = await ai_only_host(FakeClock(), target="A")
    try:
        await host.start()
        table = host.tables[mid]
        for _ in range(1000):
            await asyncio.sleep(0)
            if table.match.version > 50:
                break
        await asyncio.wait_for(host.stop(), 5)
        version = table.match.version
        assert table.match.phase != "match_over"
        assert table.task is None or table.task.done()  # nothing left that could move it
        for _ in range(100):
            await asyncio.sleep(0)
        assert table.match.version == version  # nothing moves after stop
        stored = await store.get_match(mid)
        assert stored is not None and stored.version == version
    finally:
        await host.stop()
        await store.close()


async def test_resuming_loads_every_table_before_any_starts_playing() -> None:
    """A resumed table of AIs at full speed must not hold up the loading of the tables after it."""
    host, store, _platform, first = await ai_only_host(FakeClock(), target="A")
    rules = engine.Rules.from_dict({**engine.preset("classic").to_dict(), "target": "A"}).to_dict()
    ids = [first] + [await store.create_match("fake", f"g{i}", rules, AI_SEATS, 11 + i,
                                              {"preset": "classic", "settings": FAST.to_dict()}, status="active")
                     for i in range(2, 5)]
    tables_at_append: list[int] = []
    append = store.append_action
    playing = asyncio.Event()

    async def counting(*args: Any, **kwargs: Any) -> Any:
        tables_at_append.append(len(host.tables))
        playing.set()
        return await append(*args, **kwargs)

    store.append_action = counting
    try:
        await host.start()
        await asyncio.wait_for(playing.wait(), 60)  # the first move of any table
        assert sorted(host.tables) == sorted(ids)
        assert tables_at_append and set(tables_at_append) == {len(ids)}
    finally:
        await host.stop()
        await store.close()


def reference_log(rules: Any, seed: int) -> list[dict[str, Any]]:
    """The match an AI-only table must play: every AI seat asked at every deal step."""
    from bot.ai import move_seed
    from engine.ai import choose

    m = engine.Match.new(rules, seed=seed)
    asked = -1
    while m.phase != "match_over":
        to_act = list(m.to_act())
        if to_act:
            s = to_act[0]
            act = choose(m.view(s), "basic", move_seed(seed, m.version, s), 0.5)
            if m.check(act) is not None:
                act = m.auto_action(s, rng_seed=m.version)
            m.apply(act)
            continue
        if m.phase == "dealing" and asked != m.version:
            asked = m.version
            wants = [a for a in (choose(m.view(s), "basic", move_seed(seed, m.version, s), 0.0) for s in range(4))
                     if a.t == "declare"]
            if wants and m.check(wants[0]) is None:
                m.apply(wants[0])
                continue
        m.apply(m.system_action())
    return m.actions_json()


async def test_while_dealing_only_seats_with_a_legal_declaration_are_asked_and_nothing_changes() -> None:
    host, store, _platform, mid = await ai_only_host(FakeClock(), target="4")
    asked: list[int] = []
    from engine.ai import choose

    def counting(view: dict[str, Any], level: str, seed: int, budget: float) -> dict[str, Any]:
        if view.get("phase") == "dealing":
            asked.append(int(view["seat"]))
        return choose(view, level, seed, budget)

    try:
        await host.start()
        host.tables[mid].chooser = counting
        await host.settle()
        stored = await store.get_match(mid)
        assert stored is not None and stored.status == "finished"
        assert any(a.get("t") == "declare" for a in stored.actions)
        assert stored.actions == reference_log(engine.Rules.from_dict(stored.rules), stored.seed)
        deal_steps = sum(1 for a in stored.actions if a.get("t") == "deal")
        assert len(asked) < 3 * deal_steps  # not all four seats at every step
    finally:
        await host.stop()
        await store.close()


async def several_ai_tables(clock: Any, n: int, **kw: Any) -> tuple[Host, Any, RecordingPlatform, list[int]]:
    host, store, platform, first = await ai_only_host(clock, target="A", **kw)
    rules = engine.Rules.from_dict({**engine.preset("classic").to_dict(), "target": "A"}).to_dict()
    ids = [first] + [await store.create_match("fake", f"g{i}", rules, AI_SEATS, 11 + i,
                                              {"preset": "classic", "settings": FAST.to_dict()}, status="active")
                     for i in range(2, n + 1)]
    return host, store, platform, ids


async def test_only_move_slots_tables_are_in_the_middle_of_an_automatic_step_at_once() -> None:
    host, store, _platform, ids = await several_ai_tables(FakeClock(), 6, move_slots=2)
    inside = 0
    most = 0
    append = store.append_action
    moved_on = asyncio.Event()

    async def slow(*args: Any, **kwargs: Any) -> Any:
        nonlocal inside, most
        inside += 1
        most = max(most, inside)
        try:
            for _ in range(3):
                await asyncio.sleep(0)
            return await append(*args, **kwargs)
        finally:
            inside -= 1
            if all(mid in host.tables and host.tables[mid].match.version > 20 for mid in ids):
                moved_on.set()

    store.append_action = slow
    try:
        await host.start()
        await asyncio.wait_for(moved_on.wait(), 60)
        assert most == 2
        assert all(host.tables[mid].match.version > 20 for mid in ids)  # every table moves on
    finally:
        await host.stop()
        await store.close()


async def test_tables_resumed_together_do_not_all_draw_at_the_same_moments() -> None:
    clock = TickingClock(0.01)
    host, store, platform, ids = await several_ai_tables(clock, 5, ai_refresh=2.0)
    drawn = asyncio.Event()

    def observe() -> float:
        drawn.set()  # something was sent or edited (its entry is logged right after)
        return clock._now

    platform.observer = observe
    try:
        await host.start()
        async with asyncio.timeout(60):
            while len({s.where.chat_id for s in table_edits(platform)}) < len(ids):
                drawn.clear()
                await drawn.wait()
        first: dict[str, float] = {}
        for s in table_edits(platform):
            first.setdefault(s.where.chat_id, s.snapshot)
        assert len(first) == len(ids)
        times = sorted(first.values())
        assert times[-1] - times[0] > 0.5  # spread over the refresh interval, not one herd
    finally:
        await host.stop()
        await store.close()


async def test_stopping_many_busy_tables_waits_for_them_together() -> None:
    """A message takes a while to go out. Here it takes a round: the edits then waiting go out
    together when the test says. Stopping forty tables each busy with a message may take no more
    rounds than it took 0.05 s messages to stop in under 0.2 s: three. (One after the other, each
    table would send again while the others are being stopped.) The clock ticks as it is read, so
    that the tables redraw mid-burst."""
    host, store, platform, ids = await several_ai_tables(TickingClock(0.01), 40, ai_refresh=0.0)
    edit = platform.edit
    waiting: list[asyncio.Future[None]] = []
    arrived = asyncio.Event()

    async def slow_edit(where: Any, message_id: str, view: Any) -> None:
        out: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        waiting.append(out)
        arrived.set()
        await out  # until its round
        await edit(where, message_id, view)

    platform.edit = slow_edit  # type: ignore[method-assign]
    try:
        await host.start()
        async with asyncio.timeout(60):
            while len(waiting) < len(ids):  # every table is busy with a message going out
                arrived.clear()
                await arrived.wait()
        stopping = asyncio.create_task(host.stop())
        rounds = 0
        while not stopping.done():
            assert rounds < 3, "stopping took more than three rounds of messages"
            rounds += 1
            going, waiting[:] = list(waiting), []
            arrived.clear()
            for out in going:
                out.set_result(None)
            # the round's messages went out: the tables stop, or another message waits for the next round
            await asyncio.wait([stopping, asyncio.ensure_future(arrived.wait())], timeout=60,
                               return_when=asyncio.FIRST_COMPLETED)
        await stopping
    finally:
        await host.stop()
        await store.close()


async def test_with_very_many_tables_each_is_refreshed_less_often() -> None:
    host, store, _platform, _ids = await several_ai_tables(FakeClock(), 3, ai_refresh=2.0)
    try:
        assert host.refresh_interval() == 2.0  # no tables yet
        host.ai_refreshes_per_second = 1.0
        await host.start()
        assert host.refresh_interval() == 3.0  # three tables, one refresh a second for all of them
        host.ai_refreshes_per_second = 20.0
        assert host.refresh_interval() == 2.0
    finally:
        await host.stop()
        await store.close()



@pytest.mark.parametrize(("synchronous", "slots"), [("NORMAL", host_module.MOVE_SLOTS),
                                                     ("FULL", host_module.MOVE_SLOTS_FSYNC)])
async def test_a_store_that_fsyncs_every_commit_gets_more_tables_per_commit(
        tmp_path: Path, synchronous: str, slots: int) -> None:
    """A commit that waits for the disk is shared by more tables; otherwise fewer keep the loop's turns short."""
    from persistence.store import SqliteStore

    store = await SqliteStore.open(str(tmp_path / "s.sqlite3"), synchronous=synchronous)  # type: ignore[arg-type]
    try:
        host = build_host(store)
        assert host.move_slots._value == slots  # type: ignore[attr-defined]
        assert build_host(store, move_slots=3).move_slots._value == 3  # type: ignore[attr-defined]
    finally:
        await store.close()
