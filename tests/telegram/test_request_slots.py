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
        for _ in range(3):  # in flight for a few turns of the loop, while the others are asked
            await asyncio.sleep(0)
        inside -= 1
        return 200, b'{"ok": true, "result": true}'

    monkeypatch.setattr(HTTPXRequest, "do_request", fake_request)
    req = BoundedHTTPXRequest(connection_pool_size=3)
    results = await asyncio.gather(*(req.do_request(f"http://x/{i}", "POST") for i in range(12)))
    assert all(r[0] == 200 for r in results)
    assert most == 3
    assert req.waited >= 9


async def test_the_bot_keeps_few_connections_and_a_burst_waits_for_them(tmp_path: Any) -> None:
    """`tractor-host run`'s Bot API client: CONNECTIONS calls in flight at most (httpcore checks
    every pooled connection on every call), and a burst of sends still all goes out."""
    from adapters.telegram.run import CONNECTIONS
    from fakes.telegram_rig import boot, start_fake, stop_fake

    # Raw client calls, past the adapter's flood gate: Telegram would refuse 48 at once to one group,
    # and this is about the HTTP connections only, so the fake's limits are off here.
    fake = await start_fake(limits=None)
    rig = await boot(fake, str(tmp_path / "t.sqlite3"))
    try:
        request = rig.runner.app.bot.request
        assert isinstance(request, BoundedHTTPXRequest)
        assert request.slots._value == CONNECTIONS == 16  # type: ignore[attr-defined]
        fake.add_group(-5001)
        await asyncio.gather(*(rig.runner.app.bot.send_message(-5001, f"m{i}") for i in range(3 * CONNECTIONS)))
        assert len(fake.chat_messages(-5001)) == 3 * CONNECTIONS
        assert request.waited > 0
    finally:
        await rig.stop()
        await stop_fake(fake)
