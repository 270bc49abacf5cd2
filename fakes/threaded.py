"""A fake server's own thread and event loop, so the bot under test cannot hold its clock back.

Discord's clock runs whatever the bot does: a button pressed while the bot's
event loop is blocked is already old when the bot gets to it, and Discord
refuses an answer more than 3 s after the press. A fake on the bot's loop
cannot see that (while the loop is blocked nothing happens, the press
included), so a fake server runs in a thread of its own. Test code, on the
bot's loop, reaches it through `ServerThread.call`; what both threads touch
is either an atomic read or one of the helpers below.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Coroutine, Iterator
from typing import Any, TypeVar

T = TypeVar("T")
K = TypeVar("K")
V = TypeVar("V")


class ServerThread:
    """One daemon thread running one event loop until `stop`."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        ready = threading.Event()

        def run() -> None:
            loop = asyncio.new_event_loop()
            asyncio.set_event_loop(loop)
            self.loop = loop
            ready.set()
            try:
                loop.run_forever()
                leftover = asyncio.all_tasks(loop)
                for task in leftover:
                    task.cancel()
                loop.run_until_complete(asyncio.gather(*leftover, return_exceptions=True))
                loop.run_until_complete(loop.shutdown_asyncgens())
            finally:
                loop.close()

        self._thread = threading.Thread(target=run, name=self.name, daemon=True)
        self._thread.start()
        ready.wait()

    def here(self) -> bool:
        """Whether the caller runs on the server's loop."""
        with contextlib.suppress(RuntimeError):
            return asyncio.get_running_loop() is self.loop
        return False

    async def call(self, coro: Coroutine[Any, Any, T]) -> T:
        """Runs `coro` on the server's loop and waits for it from the caller's (directly if that is it)."""
        loop = self.loop
        if loop is None:
            coro.close()
            raise RuntimeError(f"{self.name} is not running")
        if self.here():
            return await coro
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coro, loop))

    def later(self, seconds: float, coro: Coroutine[Any, Any, T]) -> asyncio.Future[T]:
        """Runs `coro` on the server's loop `seconds` from now, by the server's clock: it happens even
        while the caller's loop is blocked. The caller awaits the returned future for its result."""
        loop = self.loop
        if loop is None:
            coro.close()
            raise RuntimeError(f"{self.name} is not running")

        async def run() -> T:
            await asyncio.sleep(seconds)
            return await coro

        return asyncio.wrap_future(asyncio.run_coroutine_threadsafe(run(), loop))

    async def stop(self) -> None:
        loop, thread = self.loop, self._thread
        if loop is None or thread is None:
            return
        loop.call_soon_threadsafe(loop.stop)
        await asyncio.to_thread(thread.join)
        self.loop = self._thread = None


def _resolve(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


class Signal:
    """An event any thread may set and any event loop may wait for (an `asyncio.Event` belongs to one
    loop): the fake sets it in its thread, test code waits on the bot's loop."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._set = False
        self._waiters: list[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]] = []

    def is_set(self) -> bool:
        return self._set

    def set(self) -> None:
        with self._lock:
            if self._set:
                return
            self._set = True
            waiters, self._waiters = self._waiters, []
        for loop, future in waiters:
            with contextlib.suppress(RuntimeError):  # that loop is closed: nobody waits any more
                loop.call_soon_threadsafe(_resolve, future)

    async def wait(self) -> bool:
        loop = asyncio.get_running_loop()
        with self._lock:
            if self._set:
                return True
            waiter = (loop, loop.create_future())
            self._waiters.append(waiter)
        try:
            await waiter[1]
        finally:
            with self._lock, contextlib.suppress(ValueError):
                self._waiters.remove(waiter)
        return True


class Shared(dict[K, V]):
    """A dict the fake's thread writes while test code reads it from another: its views are copies
    (taken in one step under the GIL), so iterating never meets "dictionary changed size"."""

    def keys(self) -> list[K]:  # type: ignore[override]
        return list(super().keys())

    def values(self) -> list[V]:  # type: ignore[override]
        return list(super().values())

    def items(self) -> list[tuple[K, V]]:  # type: ignore[override]
        return list(super().items())

    def __iter__(self) -> Iterator[K]:
        return iter(list(super().keys()))
