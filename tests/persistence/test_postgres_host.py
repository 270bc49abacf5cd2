"""The whole host on PostgreSQL: people play, the host restarts mid-hand, the match goes on to the end;
and `tractor-host simulate` plays AI matches to the end on it."""

from __future__ import annotations

import asyncio

import asyncpg
import pytest

from app.cli import main
from persistence.postgres import PostgresStore
from tests.host.conftest import PACED, make_rig
from tests.host.helpers import restart_mid_hand


@pytest.mark.slow(4)
async def test_a_match_on_postgres_survives_a_restart_mid_hand(pg_url: str) -> None:
    rig = await make_rig(PACED, store=await PostgresStore.open(pg_url, synchronous="OFF"))
    # another host (another worker, say) on the same database: replays, same messages, same timers
    await restart_mid_hand(rig, lambda: PostgresStore.open(pg_url, synchronous="OFF"))


def test_simulate_plays_matches_to_the_end_on_postgres(pg_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["simulate", "--matches", "2", "--preset", "classic", "--db", pg_url, "--seed", "4", "target=3"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert out.startswith("2/2 matches finished")

    async def rows() -> tuple[list[str], int]:
        conn = await asyncpg.connect(pg_url)
        try:
            statuses = [r[0] for r in await conn.fetch("SELECT status FROM matches ORDER BY id")]
            return statuses, int(await conn.fetchval("SELECT count(*) FROM actions"))
        finally:
            await conn.close()

    statuses, actions = asyncio.run(rows())
    assert statuses == ["finished"] * 2
    assert f"{actions} actions" in out
