"""Issue 20 item 4: Telegram's per-bot, per-group and per-chat flood budgets kept across workers.

Three workers (each a store, host and Telegram adapter with the real client, on one PostgreSQL
database) write at once to thirty groups each and to ten private chats they all share, against
the strict fake server with Telegram's limits on, on real time (`fakes/flood_workers.py`):
together they want far more than the bot's 30 messages a second and more than a chat takes at
once. With the budgets shared through the database the fake answers no 429 and every message
arrives; the same run with the sharing off (each worker keeping only to its own budgets) is
refused, which shows the run is heavy enough for the first result to mean something.

Real time, because the runs mean something only while the workers outrun Telegram's 30 messages a
second. On a clock ten times faster (`fakes.flood_workers.run(scale=)`) a loaded machine sent 12 a
Telegram second: the run without sharing got no 429, and one with sharing would pass for nothing.
"""

from __future__ import annotations

import pytest

from fakes.flood_workers import run

pytestmark = pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")


@pytest.mark.slow(16)
async def test_three_workers_sharing_the_budgets_get_no_429(pg_url: str) -> None:
    result = await run(pg_url, workers=3, shared=True)
    assert result.rejected_429 == 0, result
    assert result.failed == 0 and result.sent == result.wanted, result
    assert result.peak <= 30, result


@pytest.mark.slow(10)
async def test_without_sharing_the_same_run_is_refused(pg_url: str) -> None:
    result = await run(pg_url, workers=3, shared=False)
    assert result.rejected_429 > 0, result
