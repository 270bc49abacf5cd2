"""AI-only tables: N tables of four `basic` AIs at full speed, driven by the host as `tractor-host run` does.

The fake server runs in its own process (`fake_process`); see
`benchmarks.host_throughput` for what each figure means.
"""

from __future__ import annotations

import asyncio
import bisect
import contextlib
import dataclasses
import gc
import statistics
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import engine
from app import collector
from benchmarks.throughput.common import SETTINGS, loadavg, progress, rss_bytes
from benchmarks.throughput.fake_process import FakeProcess, RemoteFake
from fakes.telegram_rig import boot


@dataclass
class AiResult:
    tables: int
    synchronous: str
    seconds: float = 0.0
    actions: int = 0
    calls: int = 0
    by_method: dict[str, int] = field(default_factory=dict)
    failed_calls: int = 0
    to_call: list[float] = field(default_factory=list)  # action -> the table call it caused
    to_shown: list[float] = field(default_factory=list)  # action -> first table call showing it (or later)
    unshown: int = 0
    bot_cpu: float = 0.0
    fake_cpu: float = 0.0
    memory_per_table: float = 0.0
    errors: int = 0
    loadavg: str = ""
    startup: float = 0.0
    loop_lag: list[float] = field(default_factory=list)
    to_call_by: dict[str, list[float]] = field(default_factory=dict)
    warmup: float = 0.0
    outbox: str = ""
    gc_pauses: dict[int, list[float]] = field(default_factory=dict)  # generation -> pause lengths

    def text(self) -> str:
        def q(xs: list[float]) -> str:
            xs = sorted(xs)
            if not xs:
                return "-"
            return f"median {statistics.median(xs) * 1000:.1f} ms, p99 {xs[int(len(xs) * 0.99)] * 1000:.1f} ms"

        rate = self.actions / max(self.seconds, 1e-9)
        return "\n".join([
            f"AI-only tables: {self.tables} (synchronous={self.synchronous}), loaded in {self.startup:.2f}s, "
            f"measured after {self.warmup:.0f}s of play",
            f"actions: {self.actions} in {self.seconds:.1f}s = {rate:.0f} actions/s",
            f"action -> API call it caused: {q(self.to_call)} ({len(self.to_call)} table calls; "
            + "; ".join(f"{k}: {q(v)}" for k, v in sorted(self.to_call_by.items())) + ")",
            f"action -> shown on the table: {q(self.to_shown)} ({len(self.to_shown)} actions; "
            f"{self.unshown} from the last seconds not yet shown, left out)",
            f"API calls: {self.calls} = {self.calls / max(1, self.actions):.3f} per action; "
            f"{dict(sorted(self.by_method.items()))}; failed {self.failed_calls}; outbox: {self.outbox}",
            f"CPU: bot {self.bot_cpu / max(self.seconds, 1e-9):.2f} s/s, fake {self.fake_cpu / max(self.seconds, 1e-9):.2f} s/s"
            f" ({self.bot_cpu * 1000 / max(1, self.actions):.2f} ms of bot CPU per action); handler errors {self.errors}",
            f"memory: {self.memory_per_table / 1024:.0f} KiB per table (bot RSS growth / tables)",
            f"event loop lag (a 5 ms sleep wakes this late): {q(self.loop_lag)}, "
            f"max {max(self.loop_lag, default=0.0) * 1000:.1f} ms",
            "garbage collector pauses: " + ("; ".join(
                f"generation {g}: {len(v)}, max {max(v) * 1000:.1f} ms, total {sum(v) * 1000:.0f} ms"
                for g, v in sorted(self.gc_pauses.items())) or "none"),
            f"load average before/after: {self.loadavg}",
        ])


async def run_ai(tables: int, *, seconds: float, synchronous: str, fake_cores: set[int] | None,
                 target: str = "A", profile: str | None = None, warmup: float = 5.0) -> AiResult:
    """N tables of four `basic` AIs at full speed; see the module's docstring for what is measured."""

    result = AiResult(tables, synchronous, loadavg=loadavg(), warmup=warmup)
    remote = await FakeProcess.start(fake_cores, None)  # limits off
    ask = remote.ask
    groups = {-(900_000 + i): i for i in range(tables)}
    await ask("groups", list(groups))
    workdir = tempfile.mkdtemp(prefix="tractor-bench-")
    rig = await boot(RemoteFake(remote.token, remote.api_root), str(Path(workdir) / "bench.sqlite3"),
                     settings=SETTINGS, synchronous=synchronous, ai_threads=True)
    store = rig.store
    commits: dict[int, list[tuple[int, float]]] = {}  # match id -> (version after, committed at)
    append = store.append_action

    async def timed_append(match_id: int, seq: int, action: dict[str, Any], key: str | None,
                           **kwargs: Any) -> str:
        res: str = await append(match_id, seq, action, key, **kwargs)
        if res == "applied":
            commits.setdefault(match_id, []).append((seq + 1, time.monotonic()))
        return res

    store.append_action = timed_append
    try:
        rules = {**engine.preset("classic").to_dict(), "target": target}
        meta = {"preset": "classic", "creator": "0", "creator_name": "-", "options": "", "settings": SETTINGS.to_dict()}
        seats = [{"kind": "ai", "name": f"Bot{k}", "level": "basic"} for k in range(4)]
        chat_of: dict[int, int] = {}
        for g in groups:
            mid = await store.create_match("telegram", str(g), rules, seats, 1000 + groups[g], meta, status="active")
            chat_of[mid] = g
        gc.collect()
        rss0 = rss_bytes()
        fake_cpu0 = await ask("cpu")
        prof: Any = None
        if profile:
            import cProfile

            prof = cProfile.Profile()
            prof.enable()
        t0 = time.monotonic()
        await rig.host.start()  # loads every table, then starts them all
        progress('await rig.host.start()  # load')
        result.startup = time.monotonic() - t0
        collector.tune()  # as `tractor-host run` does once its host has started
        await asyncio.sleep(warmup)  # every table's first messages go out meanwhile
        first_call = len(await ask("calls", 0))
        stats0 = dataclasses.replace(rig.runner.platform.outboxes.stats)
        cpu0 = time.process_time()
        start = time.monotonic()
        lags: list[float] = []

        async def probe() -> None:  # how late a 5 ms sleep wakes: the length of the loop's turns
            while True:
                t = time.monotonic()
                await asyncio.sleep(0.005)
                lags.append(time.monotonic() - t - 0.005)

        prober = asyncio.create_task(probe())
        gc_started = [0.0]

        def on_gc(phase: str, info: dict[str, int]) -> None:
            if phase == "start":
                gc_started[0] = time.perf_counter()
            else:
                result.gc_pauses.setdefault(info["generation"], []).append(time.perf_counter() - gc_started[0])

        gc.callbacks.append(on_gc)
        try:
            await asyncio.sleep(seconds)
        finally:
            gc.callbacks.remove(on_gc)
        progress('await asyncio.sleep(seconds)')
        prober.cancel()
        result.loop_lag = lags
        end = time.monotonic()
        result.bot_cpu = time.process_time() - cpu0
        if prof is not None:
            prof.disable()
            prof.dump_stats(profile)
        result.fake_cpu = await ask("cpu") - fake_cpu0
        progress('result.fake_cpu = await ask("c')
        result.seconds = end - start
        await rig.host.stop()  # the tables first: AIs at full speed would keep the adapter's queues busy
        progress('await rig.host.stop()  # the t')
        result.memory_per_table = (rss_bytes() - rss0) / tables
        calls = [c for c in await ask("calls", first_call) if start <= c[2] <= end]
        progress('calls = [c for c in await ask(')
        result.errors = len(rig.errors)
        st = rig.runner.platform.outboxes.stats
        result.outbox = (f"retries after network errors/429 {st.failures - stats0.failures} failed, "
                         f"{st.retry_after - stats0.retry_after} 429; "
                         f"edits coalesced {st.edits_coalesced - stats0.edits_coalesced}")
    finally:
        with contextlib.suppress(Exception):
            await rig.stop()
        await remote.stop()
    result.loadavg += " / " + loadavg()
    _ai_figures(result, commits, calls, {g: m for m, g in chat_of.items()}, start, end)
    return result


def _ai_figures(result: AiResult, commits: dict[int, list[tuple[int, float]]], calls: list[tuple[Any, ...]],
                match_of: dict[int, int], start: float, end: float) -> None:

    result.actions = sum(1 for log in commits.values() for _, at in log if start <= at <= end)
    result.calls = len(calls)
    shown: dict[int, list[tuple[float, int]]] = {}  # match -> (at, version) of its table-message calls
    kinds: dict[tuple[int, float, int], str] = {}
    for method, chat, at, status, version in calls:
        result.by_method[method] = result.by_method.get(method, 0) + 1
        result.failed_calls += status != 200
        if chat in match_of and version >= 0 and status == 200:
            shown.setdefault(match_of[chat], []).append((at, version))
            kinds[(match_of[chat], at, version)] = method
    for mid, table_calls in shown.items():
        log = commits.get(mid, [])
        committed = dict(log)
        for at, version in table_calls:
            if version in committed and committed[version] <= at:
                result.to_call.append(at - committed[version])
                result.to_call_by.setdefault(kinds[(mid, at, version)], []).append(at - committed[version])
    horizon = end - 5.0  # later actions may legitimately wait for the next refresh after the window
    for mid, log in commits.items():
        table_calls = sorted(shown.get(mid, []))
        times = [at for at, _ in table_calls]
        for version, at in log:
            if at > horizon:
                continue
            i = bisect.bisect_left(times, at)
            seen = next((t for t, v in table_calls[i:] if v >= version), None)
            if seen is None:
                result.unshown += 1
            else:
                result.to_shown.append(seen - at)
