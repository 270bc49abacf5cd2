"""Issue 20 item 3: three workers under load, one SIGKILLed at random moments, ten times.

Real time, because the workers are processes of their own: each is killed by the operating system
and a new one started, and the failover time measured is the wall-clock time a live worker takes
to hold a dead one's tables; the harness waits on what the database and the workers' answers show.
Each kill also waits for four more acknowledged actions, which a loaded machine takes longer to reach.

`python -m benchmarks.failover URL` runs the same longer and prints the figures (docs/deployment.md).
"""

from __future__ import annotations

import pytest

from fakes.failover import run_failover


@pytest.mark.slow(25)
async def test_three_workers_survive_ten_kills(pg_url: str) -> None:
    report = await run_failover(pg_url, workers=3, tables=4, kills=10, seed=3, up=(0.8, 2.0), acks_between=4)
    print(report.text())
    assert report.kills == 10 and len(report.failover) == 10
    assert report.acknowledged > 30
    assert report.lost == []
    assert report.doubled == []
    assert report.stuck == []
    # Issue 20's requirement, per failover: every dead worker's tables held by a live one within 10 s.
    # Usually about a second (its life lock goes with its process); a missed death still meets it
    # through the 6 s lease. How fast it is, is a figure (benchmarks.failover, docs/deployment.md).
    assert max(report.failover) < 10.0, report.failover
    assert report.errors == []
