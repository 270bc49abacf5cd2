"""The HTTP client for Bot API calls: python-telegram-bot's request interface on an aiohttp session.

PTB's own client is httpx. Against a local Bot API server, one call through httpx cost about four
times the CPU of the same call through aiohttp (docs/testing.md): httpcore checks every pooled
connection with a system call on each request, and httpx builds its cookies, URL and stream layers
every time. It was about two fifths of the CPU of the Telegram tests' hostile-input run. aiohttp is
already the web table's server.

Calls go out the way httpx sent them (form-encoded fields, multipart when a file is attached, no
redirects followed, no cookies kept), with the same time-outs (aiohttp has no write time-out: the
whole call is bounded by the three together), and a failure becomes PTB's `TimedOut` or
`NetworkError` as before. No error message carries the request's URL: it holds the bot's token.
"""

from __future__ import annotations

import asyncio
import json
import ssl
from collections.abc import Callable
from typing import Any

import aiohttp
import certifi
from telegram._utils.defaultvalue import DefaultValue
from telegram._utils.types import ODVInput
from telegram.error import NetworkError, TimedOut
from telegram.request import BaseRequest, RequestData

#: PTB's default for a call that uploads a file (its `media_write_timeout`).
MEDIA_WRITE_TIMEOUT = 20.0


def _seconds(value: ODVInput[float], default: float | None) -> float | None:
    return default if isinstance(value, DefaultValue) else value


class BotApiRequest(BaseRequest):
    """At most `connections` calls in flight; a call beyond that waits here for a free one.

    A burst (500 chats' outboxes each with a call ready) waits here for as long as it takes: PTB's
    pool timeout of 1 s failed such calls as network errors, so there is none."""

    def __init__(self, connections: int = 1, *, read_timeout: float | None = 5.0,
                 write_timeout: float | None = 5.0, connect_timeout: float | None = 5.0) -> None:
        self.connections = connections
        self._timeouts = (read_timeout, write_timeout, connect_timeout)
        self._session: aiohttp.ClientSession | None = None
        self.slots = asyncio.Semaphore(connections)
        self.waited = 0  # calls that had to wait for a connection (tests, benchmarks)

    @property
    def read_timeout(self) -> float | None:
        return self._timeouts[0]

    async def initialize(self) -> None:
        if self._session is None or self._session.closed:
            tls = ssl.create_default_context(cafile=certifi.where())
            self._session = aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(limit=self.connections, ssl=tls),
                headers={"User-Agent": self.USER_AGENT}, cookie_jar=aiohttp.DummyCookieJar(), trust_env=False)

    async def shutdown(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None

    async def do_request(self, url: str, method: str, request_data: RequestData | None = None,
                         read_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
                         write_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
                         connect_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
                         pool_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE) -> tuple[int, bytes]:
        session = self._session
        if session is None or session.closed:
            raise RuntimeError("This BotApiRequest is not initialized!")
        files = request_data.multipart_data if request_data else {}
        read, write, connect = self._timeouts
        read = _seconds(read_timeout, read)
        connect = _seconds(connect_timeout, connect)
        write = _seconds(write_timeout, MEDIA_WRITE_TIMEOUT if files else write)
        phases = (connect, write, read)
        total = None if None in phases else sum(p for p in phases if p is not None)
        timeout = aiohttp.ClientTimeout(total=total, sock_connect=connect, sock_read=read)
        if self.slots.locked():
            self.waited += 1
        await self.slots.acquire()
        try:
            async with session.request(method, url, data=_body(request_data, files), timeout=timeout,
                                       allow_redirects=False) as response:
                return response.status, await response.read()
        except TimeoutError as exc:  # aiohttp's own time-outs are TimeoutErrors too
            raise TimedOut(f"Timed out: {type(exc).__name__}") from None
        except aiohttp.ClientError as exc:
            raise NetworkError(f"aiohttp.{type(exc).__name__}: {_without(str(exc), url)}") from None
        finally:
            self.slots.release()


def _body(request_data: RequestData | None, files: dict[str, Any]) -> aiohttp.FormData | dict[str, str] | None:
    """The fields form-encoded, or as multipart with the files a call attaches."""
    if request_data is None:
        return None
    fields = request_data.json_parameters
    if not files:
        return fields
    form = aiohttp.FormData()
    for name, value in fields.items():
        form.add_field(name, value)
    for name, part in files.items():
        filename, content, mimetype = part
        form.add_field(name, content, filename=filename, content_type=mimetype)
    return form


def _without(message: str, url: str) -> str:
    """An error's message with the call's URL (and so the bot's token) cut out."""
    path = url.split("://", 1)[-1].partition("/")[2]
    return message.replace(url, "<Bot API URL>").replace(path, "<path>") if path else message


class PollingRequest(BotApiRequest):
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
