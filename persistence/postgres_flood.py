"""The flood budgets every worker of one bot shares: each message's place in Telegram's per-bot,
per-group and per-chat windows, taken in the database before the message goes out.

Why a ledger of places and not published counts: a worker that learns of the others' sends only
after the fact can still send in the same second as they do; a place taken under one lock cannot
be taken twice. Each place is a row of `flood_sends` (the chat, and the latest time the message
can have reached Telegram). A worker asks for the places of all the messages waiting in it at
once, in one statement (`flood_claim`, migration 0008: one round trip, so a busy worker pays one
round for many messages) and, in its next round, says when each one arrived; until it does, a
place counts as arriving `hold` seconds after its grant, which is also how a dead worker's places
run out. Times are the database's clock, as for leases. No SQLite counterpart: one process owns
a file, and its gate counts everything.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import asyncpg


@dataclass
class Round:
    """A round's answer: the database's time, and for each message asked for its place's id, or
    None and the seconds to wait before asking again."""

    now: float
    places: list[int | None]
    waits: list[float]


class FloodLedger:
    """One worker's side of the shared budgets (`claim`, a round at a time, on a connection of its
    own: a pooled one costs a reset round trip each time it goes back)."""

    def __init__(self, url: str, worker: str) -> None:
        self._url = url
        self.worker = worker
        self._conn: asyncpg.Connection[Any] | None = None

    async def claim(self, chats: Sequence[int], limits: tuple[tuple[int, float], tuple[int, float], tuple[int, float]],
                    hold: float, arrived: Sequence[tuple[int, float | None]] = ()) -> Round:
        """Places for messages to `chats` (one entry a message; negative: a group), granted in order
        while they fit the budgets `limits`: (cap, window seconds) of the bot, a group and a chat.

        `arrived` settles earlier places: (id, database time it reached Telegram at the latest),
        or None for a place left unused. `hold`: how long after its grant an unsettled place
        counts as arriving (the longest a message may take to reach Telegram).
        """
        done = [(i, t) for i, t in arrived if t is not None]
        if self._conn is None or self._conn.is_closed():
            self._conn = await asyncpg.connect(self._url)
        try:
            row = await self._fetch_round(chats, limits, hold, done, arrived)
        except BaseException:
            # whatever happened (a server restart, a cancel), the next round starts on a new connection
            self._conn.terminate()
            self._conn = None
            raise
        assert row is not None
        places = [None if p is None else int(p) for p in row["places"] or []]
        return Round(float(row["now"]), places, [float(w) for w in row["waits"] or []])

    async def _fetch_round(self, chats: Sequence[int],
                           limits: tuple[tuple[int, float], tuple[int, float], tuple[int, float]], hold: float,
                           done: list[tuple[int, float]], arrived: Sequence[tuple[int, float | None]]) -> Any:
        assert self._conn is not None
        return await self._conn.fetchrow(
            "SELECT now, places, waits FROM flood_claim($1, $2::bigint[], $3::integer[], $4::float8[], $5,"
            " $6::bigint[], $7::float8[], $8::bigint[])",
            self.worker, list(chats), [int(c) for c, _ in limits], [float(w) for _, w in limits],
            float(hold), [i for i, _ in done], [t for _, t in done], [i for i, t in arrived if t is None],
        )

    async def close(self) -> None:
        if self._conn is not None:
            await self._conn.close()
            self._conn = None
