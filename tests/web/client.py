"""A scripted web-table client: a socket that keeps every message the server sent it."""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any

import aiohttp


class Client:
    def __init__(self, session: aiohttp.ClientSession, url: str) -> None:
        self.session = session
        self.url = url
        self.ws: aiohttp.ClientWebSocketResponse | None = None
        self.received: list[dict[str, Any]] = []
        self.raw: list[str] = []
        self.closed_code: int | None = None
        self._reader: asyncio.Task[None] | None = None
        self._keys = 0
        self._news = asyncio.Event()  # set at every message and at the close

    async def connect(self, auth: dict[str, str], match: int | None = None) -> None:
        self.ws = await self.session.ws_connect(self.url)
        await self.ws.send_json({"t": "hello", "auth": auth, "match": match})
        self._reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        assert self.ws is not None
        try:
            async for msg in self.ws:
                if msg.type == aiohttp.WSMsgType.TEXT:
                    self.raw.append(msg.data)
                    self.received.append(json.loads(msg.data))
                    self._news.set()
            self.closed_code = self.ws.close_code
        finally:
            self._news.set()

    async def _wait(self, found: Any, timeout: float) -> Any:
        """Wakes at each message until `found()` gives something; None once the socket closed or
        after `timeout` (a guard only)."""
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(timeout):
                while (got := found()) is None:
                    if self._reader is not None and self._reader.done():
                        return None
                    self._news.clear()
                    await self._news.wait()
                return got
        return None

    @property
    def states(self) -> list[dict[str, Any]]:
        return [m for m in self.received if m.get("type") == "state"]

    @property
    def state(self) -> dict[str, Any]:
        return self.states[-1]

    def notices(self) -> list[dict[str, Any]]:
        return [m for m in self.received if m.get("type") == "notice"]

    async def act(self, a: str, cards: list[str] | None = None, *, version: int | str | None = "shown") -> str:
        """An act as the page sends it: with the version of the state it shows (`version` another one,
        or None for none, as an older page sends it)."""
        assert self.ws is not None
        self._keys += 1
        key = f"k{self._keys}"
        frame: dict[str, Any] = {"t": "act", "a": a, "cards": cards or [], "key": key}
        if version == "shown" and self.states:
            frame["v"] = self.state["version"]
        elif isinstance(version, int):
            frame["v"] = version
        await self.ws.send_json(frame)
        return key

    async def answer(self, key: str, timeout: float = 30.0) -> dict[str, Any]:
        found = await self._wait(lambda: next((m for m in self.notices() if m.get("key") == key), None), timeout)
        if found is None:
            raise AssertionError(f"no answer to {key}: {self.received[-3:]}")
        return found

    async def until(self, pred: Any, timeout: float = 30.0) -> dict[str, Any]:
        found = await self._wait(lambda: self.state if self.states and pred(self.state) else None, timeout)
        if found is None:
            raise AssertionError(f"state never came: {self.states[-1:] if self.states else self.received}")
        return found

    async def ended(self, timeout: float = 5.0) -> int | None:
        """Waits for the server to close the socket; its close code."""
        assert self._reader is not None
        await asyncio.wait_for(self._reader, timeout)
        return self.closed_code

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()
        if self._reader is not None:
            await self._reader
