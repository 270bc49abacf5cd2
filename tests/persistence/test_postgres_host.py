"""The whole host on PostgreSQL: people play, the host restarts mid-hand, the match goes on to the end;
and `tractor-host simulate` plays AI matches to the end on it."""

from __future__ import annotations

import asyncio

import asyncpg
import pytest

from app.cli import main
from bot.host import Host
from persistence.postgres import PostgresStore
from tests.host.conftest import PACED, Rig, make_rig
from tests.host.helpers import act_as_human, open_table, play_out


async def test_a_match_on_postgres_survives_a_restart_mid_hand(pg_url: str) -> None:
    rig = await make_rig(PACED, store=await PostgresStore.open(pg_url, synchronous="OFF"))
    table = await open_table(rig, ["u1", "u2"], 2, "classic", "target=3")
    for _ in range(200):  # into the first tricks of hand 1
        if table.match.phase == "playing" and table.match.public_view()["tricks_played"] >= 3:
            break
        if not any([await act_as_human(rig, table, u, "text") for u in ("u1", "u2")]):
            rig.clock.advance(min(table.deadlines.values()) - rig.clock.now() + 0.01)
            await rig.host.settle()
    assert table.match.phase == "playing"
    version, messages, deadlines = table.match.version, dict(table.messages), dict(table.deadlines)
    await rig.host.stop()
    await rig.store.close()

    # another host (another worker, say) on the same database: replays, same messages, same timers
    store2 = await PostgresStore.open(pg_url, synchronous="OFF")
    host2 = Host(store2, clock=rig.clock, defaults=PACED, use_ai_threads=False)
    host2.register(rig.platform)
    edits_before = len(rig.platform.log)
    await host2.start()
    await host2.settle()
    t2 = host2.tables[table.id]
    assert t2.match.version == version and t2.messages == messages and t2.deadlines == deadlines
    assert messages["table"] in {s.message_id for s in rig.platform.log[edits_before:] if s.op == "edit"}
    rig2 = Rig(host2, store2, rig.platform, rig.clock, rig.d)
    await play_out(rig2, t2, {"u1": "buttons", "u2": "text"})
    finished = await store2.get_match(table.id)
    assert finished is not None and finished.status == "finished" and finished.result is not None
    await host2.stop()
    await store2.close()


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
