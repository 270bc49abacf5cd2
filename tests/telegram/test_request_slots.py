"""No more Bot API requests go into httpx's pool than it has connections (its queue handling is slow)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from telegram.request import HTTPXRequest

from adapters.telegram.request import BoundedHTTPXRequest


async def test_requests_beyond_the_pool_size_wait_outside_the_pool(monkeypatch: pytest.MonkeyPatch) -> None:
    inside = 0
    most = 0

    async def fake_request(self: Any, *args: Any, **kwargs: Any) -> tuple[int, bytes]:
        nonlocal inside, most
        inside += 1
        most = max(most, inside)
        await asyncio.sleep(0.01)
        inside -= 1
        return 200, b'{"ok": true, "result": true}'

    monkeypatch.setattr(HTTPXRequest, "do_request", fake_request)
    req = BoundedHTTPXRequest(connection_pool_size=3)
    results = await asyncio.gather(*(req.do_request(f"http://x/{i}", "POST") for i in range(12)))
    assert all(r[0] == 200 for r in results)
    assert most == 3
    assert req.waited >= 9
