"""The HTTP client for Bot API calls, with no more requests in flight than it has connections.

httpcore's connection pool handles queued requests in time that grows with the queue times
the connections: with 500 chats' outboxes each waiting on a call and 64 connections, the bot
spent all its time in the pool's bookkeeping (and requests hit PTB's 1 s pool timeout, which
reads as a network error). Waiting for a free connection here instead keeps the pool's queue
empty and costs a semaphore.
"""

from __future__ import annotations

import asyncio
from typing import Any

from telegram.request import HTTPXRequest


class BoundedHTTPXRequest(HTTPXRequest):
    """HTTPXRequest that lets at most `connection_pool_size` requests into the pool at once."""

    def __init__(self, connection_pool_size: int = 1, **kwargs: Any) -> None:
        super().__init__(connection_pool_size=connection_pool_size, **kwargs)
        self.slots = asyncio.Semaphore(connection_pool_size)
        self.waited = 0  # requests that had to wait for a connection (tests, benchmarks)

    async def do_request(self, *args: Any, **kwargs: Any) -> tuple[int, bytes]:
        if self.slots.locked():
            self.waited += 1
        async with self.slots:
            return await super().do_request(*args, **kwargs)
