"""The Bot API client (adapters/telegram/request.py): what it sends, how many calls it has in flight,
and what a failure becomes, against a small HTTP server of the test's own.

The time-outs are the client's own, on the real clock; the server never answers those calls, so
the test waits out a tenth of a second each, not a guess at how long a loaded machine takes.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest
from aiohttp import web
from telegram import InputFile
from telegram.error import NetworkError, TimedOut
from telegram.request import RequestData
from telegram.request._requestparameter import RequestParameter

from adapters.telegram.request import BotApiRequest

TOKEN = "123456:AAE-secret-token_of-the-bot"
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


class Server:
    """One route, /bot<token>/<method>, answered by whatever handler the test sets."""

    def __init__(self) -> None:
        self.handler: Handler = self.ok
        self.inside = 0
        self.most = 0
        self.arrived = asyncio.Event()  # set at each call's arrival
        self.seen: list[web.Request] = []
        self.bodies: list[Any] = []
        self.port = 0
        self._runner: web.AppRunner | None = None

    @staticmethod
    async def ok(request: web.Request) -> web.Response:
        return web.json_response({"ok": True, "result": True})

    async def _serve(self, request: web.Request) -> web.StreamResponse:
        self.inside += 1
        self.most = max(self.most, self.inside)
        self.arrived.set()
        try:
            self.seen.append(request)
            form = await request.post()
            self.bodies.append({k: (v.filename, v.content_type, v.file.read()) if isinstance(v, web.FileField) else v
                                for k, v in form.items()})
            return await self.handler(request)
        finally:
            self.inside -= 1

    def url(self, method: str = "sendMessage") -> str:
        return f"http://127.0.0.1:{self.port}/bot{TOKEN}/{method}"

    async def start(self) -> None:
        app = web.Application()
        app.router.add_route("*", "/{path:.*}", self._serve)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]

    async def stop(self) -> None:
        assert self._runner is not None
        await self._runner.cleanup()


@pytest.fixture
async def server() -> AsyncIterator[Server]:
    s = Server()
    await s.start()
    yield s
    await s.stop()


async def started(request: BotApiRequest) -> BotApiRequest:
    await request.initialize()
    return request


def fields(**values: Any) -> RequestData:
    return RequestData([RequestParameter.from_input(k, v) for k, v in values.items()])


async def test_calls_beyond_the_connections_wait_for_a_free_one(server: Server) -> None:
    turns = asyncio.Event()

    async def slow(request: web.Request) -> web.Response:
        await turns.wait()
        return web.json_response({"ok": True, "result": True})

    server.handler = slow
    req = await started(BotApiRequest(3))
    try:
        calls = [asyncio.ensure_future(req.do_request(server.url(), "POST")) for _ in range(12)]
        while server.inside < 3:
            server.arrived.clear()
            await server.arrived.wait()
        assert req.waited == 9  # the other nine wait here, not in a queue of the connection pool
        turns.set()
        results = await asyncio.gather(*calls)
    finally:
        await req.shutdown()
    assert [code for code, _ in results] == [200] * 12
    assert server.most == 3


async def test_fields_go_form_encoded_and_files_as_multipart(server: Server) -> None:
    req = await started(BotApiRequest(2))
    try:
        await req.do_request(server.url(), "POST", fields(chat_id=-5, text="你好 & =", reply_markup={"a": [1]}))
        photo = InputFile(b"\x89PNG board", filename="board.png")
        await req.do_request(server.url("sendPhoto"), "POST", fields(chat_id=-5, photo=photo, caption="Week 3"))
    finally:
        await req.shutdown()
    plain, upload = server.seen
    assert plain.content_type == "application/x-www-form-urlencoded"
    assert dict(server.bodies[0]) == {"chat_id": "-5", "text": "你好 & =", "reply_markup": '{"a": [1]}'}
    assert upload.content_type == "multipart/form-data"
    sent = server.bodies[1]
    assert sent["caption"] == "Week 3" and sent["chat_id"] == "-5"
    assert sent["photo"] == ("board.png", "image/png", b"\x89PNG board")
    assert all(r.headers["User-Agent"].startswith("python-telegram-bot") for r in server.seen)


async def test_a_redirect_is_answered_not_followed(server: Server) -> None:
    async def moved(request: web.Request) -> web.Response:
        raise web.HTTPFound("/elsewhere")

    server.handler = moved
    req = await started(BotApiRequest())
    try:
        code, _ = await req.do_request(server.url(), "POST", fields(chat_id=1, text="hi"))
    finally:
        await req.shutdown()
    assert code == 302 and len(server.seen) == 1  # PTB then names it a network error, as with httpx


async def test_a_call_never_answered_times_out(server: Server) -> None:
    never = asyncio.Event()

    async def hold(request: web.Request) -> web.Response:
        await never.wait()
        raise AssertionError("unreachable")

    server.handler = hold
    req = await started(BotApiRequest(read_timeout=0.1, write_timeout=0.1, connect_timeout=0.1))
    try:
        with pytest.raises(TimedOut):
            await req.do_request(server.url(), "POST", fields(chat_id=1, text="hi"))
        with pytest.raises(TimedOut):  # a call's own read time-out (getUpdates' long poll passes one)
            await req.do_request(server.url(), "POST", fields(chat_id=1), read_timeout=0.05)
        assert not req.slots.locked() and req.waited == 0  # each call gave its connection back
    finally:
        never.set()
        await req.shutdown()


async def test_a_dropped_connection_is_a_network_error_that_names_no_token(server: Server) -> None:
    async def drop(request: web.Request) -> web.Response:
        assert request.transport is not None
        request.transport.abort()
        raise web.HTTPInternalServerError

    server.handler = drop
    req = await started(BotApiRequest())
    try:
        with pytest.raises(NetworkError) as caught:
            await req.do_request(server.url(), "POST", fields(chat_id=1, text="hi"))
    finally:
        await req.shutdown()
    assert not isinstance(caught.value, TimedOut)
    assert caught.value.message.startswith("aiohttp.")
    assert caught.value.__cause__ is None and caught.value.__suppress_context__


async def test_a_refused_connection_is_a_network_error_that_names_no_token() -> None:
    req = await started(BotApiRequest(connect_timeout=5.0))
    try:
        with pytest.raises(NetworkError) as caught:
            await req.do_request(f"http://127.0.0.1:1/bot{TOKEN}/getMe", "POST")
    finally:
        await req.shutdown()
    assert "Cannot connect" in caught.value.message
    assert TOKEN not in caught.value.message and "secret" not in repr(caught.value)


async def test_an_unknown_scheme_names_neither_the_url_nor_the_token() -> None:
    req = await started(BotApiRequest())
    try:
        with pytest.raises(NetworkError) as caught:
            await req.do_request(f"gopher://api.example/bot{TOKEN}/getMe", "POST")
    finally:
        await req.shutdown()
    assert "secret" not in caught.value.message


async def test_a_client_not_started_or_shut_down_says_so() -> None:
    req = BotApiRequest()
    with pytest.raises(RuntimeError, match="not initialized"):
        await req.do_request("http://127.0.0.1:1/x", "POST")
    await req.initialize()
    await req.shutdown()
    with pytest.raises(RuntimeError, match="not initialized"):
        await req.do_request("http://127.0.0.1:1/x", "POST")
    await req.initialize()  # started again after a shutdown, as a runner restarted in-process is
    await req.shutdown()


async def test_the_bot_keeps_few_connections_and_a_burst_waits_for_them(tmp_path: Any) -> None:
    """`tractor-host run`'s Bot API client: CONNECTIONS calls in flight at most, and a burst of sends
    still all goes out."""
    from adapters.telegram.run import CONNECTIONS
    from fakes.telegram_rig import boot, start_fake, stop_fake

    # Raw client calls, past the adapter's flood gate: Telegram would refuse 48 at once to one group,
    # and this is about the HTTP connections only, so the fake's limits are off here.
    fake = await start_fake(limits=None)
    rig = await boot(fake, str(tmp_path / "t.sqlite3"))
    try:
        request = rig.runner.app.bot.request
        assert isinstance(request, BotApiRequest)
        assert request.connections == CONNECTIONS == 16
        fake.add_group(-5001)
        await asyncio.gather(*(rig.runner.app.bot.send_message(-5001, f"m{i}") for i in range(3 * CONNECTIONS)))
        assert len(fake.chat_messages(-5001)) == 3 * CONNECTIONS
        assert request.waited > 0
    finally:
        await rig.stop()
        await stop_fake(fake)
