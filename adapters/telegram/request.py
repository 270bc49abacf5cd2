"""The HTTP client for Bot API calls, with no more requests in flight than it has connections.

httpcore's connection pool handles queued requests in time that grows with the queue times
the connections: with 500 chats' outboxes each waiting on a call and 64 connections, the bot
spent all its time in the pool's bookkeeping (and requests hit PTB's 1 s pool timeout, which
reads as a network error). Waiting for a free connection here instead keeps the pool's queue
empty and costs a semaphore.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
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


class PollingRequest(HTTPXRequest):
    """The client for getUpdates, which drops the updates the intake already holds.

    Telegram sends every update at or past the offset again on each poll, and the offset stays at
    the oldest update not yet stored (moving it confirms). While a burst is being served, each poll
    brought the whole burst back and PTB built every update of it again, only for the intake to
    ignore it: a busy bot spent a quarter of its time there. Decoding the JSON here is far cheaper.
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.held: Callable[[int], bool] = lambda update_id: False

    async def do_request(self, *args: Any, **kwargs: Any) -> tuple[int, bytes]:
        code, payload = await super().do_request(*args, **kwargs)
        if code != 200:
            return code, payload
        try:
            body = json.loads(payload)
        except ValueError:
            return code, payload  # PTB names the fault
        result = body.get("result") if isinstance(body, dict) else None
        if not isinstance(result, list):
            return code, payload
        new = [u for u in result if not (isinstance(u, dict) and self.held(u.get("update_id", -1)))]
        if len(new) == len(result):
            return code, payload
        body["result"] = new
        return code, json.dumps(body).encode()
