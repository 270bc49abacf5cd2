"""The database's clock, standing still until a test moves it: leases, heartbeats and flood
windows tested without waiting for them to run out.

Leases, the workers' heartbeats and the shared flood ledger read the database's time
(`clock_timestamp()` in persistence/postgres.py, persistence/postgres_cluster.py and migration
0008), never a worker's own clock. `DbClock.install` gives one test database a `clock_timestamp()`
of its own, in a schema that the database searches before pg_catalog (`ALTER DATABASE ... SET
search_path`, with pg_catalog named last, which lets a schema's function come first): the
production SQL runs unchanged, on every connection any worker opens to that database, and reads
a time that moves only by `advance`. The time starts at the real one, so rows look as usual.
"""

from __future__ import annotations

from typing import Any

import asyncpg

SCHEMA = "test_clock"


class DbClock:
    """One test database's clock (see the module docstring); `close` when the test ends."""

    def __init__(self, conn: asyncpg.Connection[Any]) -> None:
        self._conn = conn

    @classmethod
    async def install(cls, url: str) -> DbClock:
        """Stops the clock of the (new) database at `url`, for the connections opened from now on."""
        conn = await asyncpg.connect(url)
        try:
            name = await conn.fetchval("SELECT current_database()")
            await conn.execute(
                f"CREATE SCHEMA {SCHEMA};"
                f" CREATE TABLE {SCHEMA}.stood (at timestamptz NOT NULL);"
                f" INSERT INTO {SCHEMA}.stood VALUES (pg_catalog.clock_timestamp());"
                f" CREATE FUNCTION {SCHEMA}.clock_timestamp() RETURNS timestamptz LANGUAGE sql VOLATILE"
                f" AS 'SELECT at FROM {SCHEMA}.stood';"
                f' ALTER DATABASE "{name}" SET search_path = "$user", public, {SCHEMA}, pg_catalog'
            )
        except BaseException:
            await conn.close()
            raise
        await conn.close()
        return cls(await asyncpg.connect(url))  # this session has the new search_path

    async def now(self) -> float:
        """The database's time, in epoch seconds, as the stores read it."""
        return float(await self._conn.fetchval("SELECT extract(epoch FROM clock_timestamp())::float8"))

    async def advance(self, seconds: float) -> None:
        """Moves the database's time forward for every connection at once."""
        await self._conn.execute(f"UPDATE {SCHEMA}.stood SET at = at + make_interval(secs => $1)", float(seconds))

    async def close(self) -> None:
        await self._conn.close()
