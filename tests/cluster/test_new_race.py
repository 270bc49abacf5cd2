"""Issue 20: two workers taking `new` for one chat at the same instant open one table, not two.

Each worker checks only its own tables before opening one, so both pass that check; the store
opens a chat's table only while the chat has none open (`create_match(..., exclusive=True)`, under
the chat's row lock), and the worker that loses answers as if the table had been there already.
"""

from __future__ import annotations

import asyncio

from persistence.postgres import PostgresStore
from tests.cluster.conftest import Workers, until
from tests.cluster.test_workers import event


async def test_two_workers_racing_new_in_one_chat_open_one_table(workers: Workers) -> None:
    w1, w2 = await workers.start("w1"), await workers.start("w2")
    for round_ in range(5):  # a few chats, so the race is run more than once
        chat = f"g-race-{round_}"
        one, rec1 = event(workers, "command", "u1", chat, f"new-a{round_}", name="new")
        two, rec2 = event(workers, "command", "u2", chat, f"new-b{round_}", name="new")
        await asyncio.gather(w1.host.handle(one), w2.host.handle(two))
        await w1.host.settle()
        await w2.host.settle()
        owners = [w for w in (w1, w2) if ("fake", chat) in w.host.by_chat or
                  any(t.chat_id == chat for t in w.host.tables.values())]
        assert len(owners) == 1, f"chat {chat}: {len(owners)} tables"
        winner = owners[0]
        table = next(t for t in winner.host.tables.values() if t.chat_id == chat)
        loser_rec = rec2 if winner is w1 else rec1
        # the loser may have seen the table already and forwarded its `new` to the winner, whose
        # answer comes back through the database
        await until(lambda rec=loser_rec: bool(rec.texts))
        assert any(f"#{table.id}" in t or str(table.id) in t for t in loser_rec.texts), loser_rec.texts
    other = await PostgresStore.open(workers.url)
    try:
        rows = await other.fetchall(
            "SELECT c.chat_id, count(*) FROM matches m JOIN chats c ON c.id = m.chat"
            " WHERE m.finished_at IS NULL GROUP BY c.chat_id")
    finally:
        await other.close()
    assert rows and all(int(r[1]) == 1 for r in rows), [tuple(r) for r in rows]
