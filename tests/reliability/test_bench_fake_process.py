"""The capacity benchmark with the fake server in its own process: people's updates (typed
messages, inline queries and chosen results) go over the control pipe and the calls come back."""

from __future__ import annotations

import pytest

from benchmarks.host_throughput import run


@pytest.mark.parametrize("mode", ["inline", "typed"])
@pytest.mark.slow(12)
async def test_people_play_against_a_fake_in_its_own_process(mode: str) -> None:
    result = await run(3, seconds=4.0, paced=None, scale=1.0, limits=True, mode=mode, warmup=2.0,
                       fake_process=True, fake_cores=None)
    assert result.fake_process and result.errors == 0
    assert result.actions > 0 and result.latencies
    assert result.calls > 0 and result.rejected_429 == 0
    if mode == "inline":
        assert result.by_method.get("answerInlineQuery", 0) > 0
