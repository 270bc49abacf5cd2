"""Issue 20 item 3: three workers under load, one SIGKILLed at random moments, ten times.

`python -m benchmarks.failover URL` runs the same longer and prints the figures (docs/deployment.md).
"""

from __future__ import annotations

from fakes.failover import run_failover


async def test_three_workers_survive_ten_kills(pg_url: str) -> None:
    report = await run_failover(pg_url, workers=3, tables=4, kills=10, seed=3, up=(0.8, 2.0))
    print(report.text())
    assert report.kills == 10 and len(report.failover) == 10
    assert report.acknowledged > 30
    assert report.lost == []
    assert report.doubled == []
    assert report.stuck == []
    # Every dead worker's tables are held by a live one again: the bound is far above the 6 s lease so
    # that it tells a stuck table from a slow machine; how fast failover is, is a figure
    # (benchmarks.failover, docs/deployment.md), not an assert.
    assert max(report.failover) < 30.0, report.failover
    assert report.errors == []
