"""Issue 20 item 4: Telegram's per-bot, per-group and per-chat flood budgets kept across workers.

Three workers (each a store, host and Telegram adapter with the real client, on one PostgreSQL
database) write at once to thirty groups each and to ten private chats they all share, against
the strict fake server with Telegram's limits on (`fakes/flood_workers.py`), on a clock ten times
faster than real time (the fake's windows, the adapters' gates and the windows they ask the ledger
for alike; the longest a message may take to reach Telegram stays real):
together they want far more than the bot's 30 messages a second and more than a chat takes at
once. With the budgets shared through the database the fake answers no 429 and every message
arrives; the same run with the sharing off (each worker keeping only to its own budgets) is
refused, which shows the run is heavy enough for the first result to mean something.
"""

from __future__ import annotations

import pytest

from fakes.flood_workers import run

#: Real seconds a Telegram second lasts here.
SCALE = 0.1

pytestmark = pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")


async def test_three_workers_sharing_the_budgets_get_no_429(pg_url: str) -> None:
    result = await run(pg_url, workers=3, shared=True, scale=SCALE)
    assert result.rejected_429 == 0, result
    assert result.failed == 0 and result.sent == result.wanted, result
    assert result.peak <= 30, result


async def test_without_sharing_the_same_run_is_refused(pg_url: str) -> None:
    result = await run(pg_url, workers=3, shared=False, scale=SCALE)
    assert result.rejected_429 > 0, result
