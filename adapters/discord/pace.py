"""A channel's message writes kept within Discord's limit by the adapter itself, so none is refused.

Why. discord.py waits out a rate limit once it has learnt the bucket from a response's headers,
but a new process knows no bucket: its first writes to a channel (the table redrawn, an
announcement, a mention, all at once after a restart) went out together, and Discord answered
some with a 429 (3 to 5 over a whole match, each a write the channel saw late). Every write to a
channel's messages (post, edit, delete; a DM is a channel too) waits here for a place in that
channel's window: at most `count` in any `window` seconds, counted from when each answer came back
(Discord counts from when a request arrived, which is earlier, so the window here never ends
before Discord's). A process starts each channel's window full, since the process before it may
have spent it a moment ago: a channel write in the first 5 s of a process waits for them to pass
(hands in the channel go through interaction tokens, another limit, and are never held here; a
hand sent by DM, `/tractor dm on`, is a channel write and is paced too).
"""

from __future__ import annotations

import asyncio
import re
import time
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

#: Discord's limit on writes to one channel's messages (the documented 5 in 5 s).
CHANNEL_WRITES = (5, 5.0)
_MESSAGES = re.compile(r"/channels/\{channel_id\}/messages")

T = TypeVar("T")


class _Window:
    def __init__(self, count: int, started: float) -> None:
        self.done: deque[float] = deque([started] * count, maxlen=count)
        self.busy = 0
        self.lock = asyncio.Lock()


class ChannelPace:
    """Per channel: at most `count` writes in any `window` seconds (real seconds: the adapter's
    `scale` applies), a write counted from when its answer came back."""

    def __init__(self, count: int = CHANNEL_WRITES[0], window: float = CHANNEL_WRITES[1], *,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.count, self.window, self.clock = count, window, clock
        self.started = clock()
        self._windows: dict[int, _Window] = {}
        self.waited = 0  # writes that had to wait for a place

    def _of(self, channel: int) -> _Window:
        w = self._windows.get(channel)
        if w is None:
            w = self._windows[channel] = _Window(self.count, self.started)
        return w

    async def write(self, channel: int, send: Callable[[], Awaitable[T]]) -> T:
        w = self._of(channel)
        async with w.lock:  # one waiter at a time keeps the writes in the order they came
            while True:
                now = self.clock()
                while w.done and now - w.done[0] >= self.window:
                    w.done.popleft()
                if len(w.done) + w.busy < self.count:
                    break
                self.waited += 1
                oldest = w.done[0] if w.done else now
                await asyncio.sleep(max(0.001, oldest + self.window - now))
            w.busy += 1
        try:
            return await send()
        finally:
            w.busy -= 1
            w.done.append(self.clock())

    def wrap(self, request: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
        """discord.py's `HTTPClient.request` with every write to a channel's messages paced."""

        async def paced(route: Any, **kwargs: Any) -> Any:
            channel = getattr(route, "channel_id", None)
            if channel is None or route.method == "GET" or not _MESSAGES.match(str(route.path)):
                return await request(route, **kwargs)
            return await self.write(int(channel), lambda: request(route, **kwargs))

        return paced


__all__ = ["CHANNEL_WRITES", "ChannelPace"]
