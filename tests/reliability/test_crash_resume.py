"""The bot killed with SIGKILL at random moments and restarted on the same file (a short run).

`python -m benchmarks.crash_resume` runs the same with more tables and kills.

Real time, because the bot is a process of its own, killed by the operating system at random
moments; each kill waits for six more acknowledged actions too, which a loaded machine takes longer to reach.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from fakes.crash import run_crash

pytestmark = pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")


@pytest.mark.slow(9)
async def test_sigkill_and_restart_keeps_every_acknowledged_action(tmp_path: Path) -> None:
    """Real processes killed with SIGKILL, so real time. The last run ends as soon as every table has
    moved on; its 90 s only tell a stuck table from a bot still starting on a loaded machine (at a
    load of 20, 30 s was not enough for the restarted process to drive any table)."""
    report = await run_crash(tmp_path, tables=3, kills=4, seed=7, up=(0.4, 1.5), final=90.0, acks_between=6)
    assert report.kills == 4 and report.restarts >= 4
    assert report.acknowledged > 20
    assert report.lost == []
    assert report.doubled == []
    assert report.stuck == []
    assert report.errors == []
