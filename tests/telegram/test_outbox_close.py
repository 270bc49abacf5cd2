"""An outbox closing while a send is in flight tells whoever awaits that send.

A table's actor awaits each send for its message id; an outbox that dropped the in-flight send's
answer on close left the actor waiting for good, and the host's stop with it (seen in CI as a
webhook test hanging until pytest-timeout)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from adapters.telegram.config import FloodLimits
from adapters.telegram.flood import FloodGate
from adapters.telegram.outbox import Outboxes, Outgoing, SendFailed


class _SilentBot:
    """A Bot API that takes a send and never answers it (a call in flight at shutdown)."""

    def __init__(self) -> None:
        self.called = asyncio.Event()

    async def send_message(self, *args: Any, **kwargs: Any) -> Any:
        self.called.set()
        await asyncio.Event().wait()


async def test_a_send_in_flight_when_the_outbox_closes_fails_instead_of_hanging() -> None:
    bot = _SilentBot()
    boxes = Outboxes(bot, FloodGate(FloodLimits()))  # type: ignore[arg-type]
    waiting = asyncio.ensure_future(boxes.send(-100, Outgoing("hello")))
    await bot.called.wait()  # the send is out, its answer not back
    await boxes.close()
    with pytest.raises(SendFailed, match="adapter stopped"):
        await asyncio.wait_for(waiting, 5.0)


async def test_a_queued_send_fails_too_when_the_outbox_closes() -> None:
    bot = _SilentBot()
    boxes = Outboxes(bot, FloodGate(FloodLimits()))  # type: ignore[arg-type]
    first = asyncio.ensure_future(boxes.send(-100, Outgoing("one")))
    second = asyncio.ensure_future(boxes.send(-100, Outgoing("two")))
    await bot.called.wait()
    await boxes.close()
    for waiting in (first, second):
        with pytest.raises(SendFailed):
            await asyncio.wait_for(waiting, 5.0)
