"""One worker as its own process, for failover tests: `python -m fakes.worker_child URL NAME PORT [ANSWERS]`.

It runs what a worker of `tractor-host run` runs on PostgreSQL (the store with the worker's
name, the host, the cluster's heartbeat and routing) behind the worker's HTTP app
(`app/web.py`), with one more route standing in for a platform's webhook: `POST /update` takes
one update (`bot.cluster.encode`'s JSON) and answers as Telegram's webhook is answered: 503 when
the update could not be stored (or the worker drains), so that the sender delivers it again,
else 200. The bot's answer to the person (a "✓" acknowledges an action) comes in that 200
within 5 s; or, with ANSWERS (a URL), it is posted there as `{"key", "text"}` by whichever
worker serves the update, as any worker answers a Telegram press through the Bot API (the
answer then needs the receiving worker no more). Messages the tables send go nowhere
(`NullPlatform`): the harness reads the state from the database, as people read a screen.
SIGTERM stops it as `tractor-host run` stops (`app.run.drain`). Prints "ready" once it serves,
then runs until it is stopped or killed.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import itertools
import logging
import signal
import sys
from collections.abc import Awaitable, Callable
from typing import Any

import aiohttp
from aiohttp import web

from app import collector
from app.features import build_host
from app.run import drain
from app.web import Health, worker_app
from bot.cluster import Cluster, decode
from bot.host import Host
from bot.platform import Receipt, View, Where
from bot.scene.diff import Shown, signature
from bot.settings import TableSettings
from persistence.postgres import PostgresStore

# People act when they like (no turn timer); the declaration window is short.
SETTINGS = TableSettings(deal=0, declare=0.3, bury=0, turn=0, next=0, lobby=0, away_after=0)
ANSWER_WAIT = 5.0
# As long as a webhook call may wait for its update to be stored (adapters/telegram/intake.py).
STORE_WAIT = 25.0


class NullPlatform:
    """A platform whose messages go nowhere (ids are handed out, nothing is kept)."""

    name = "fake"
    hand_page_size = 40
    one_screen = False
    turn_notices = False
    sends_files = False
    play_menu = False
    live_countdown = False

    def __init__(self, answers: str = "") -> None:
        self._ids = itertools.count(1)
        self.answers = answers
        self.shown = Shown()
        self.session: aiohttp.ClientSession | None = None

    def replier_from(self, handoff: dict[str, str]) -> PostedAnswer | None:
        """The answer to an update another worker received, given here (bot.cluster)."""
        if self.answers and handoff.get("answer_to") and self.session is not None:
            return PostedAnswer(self.session, self.answers, str(handoff["answer_to"]))
        return None

    async def send(self, where: Where, view: View) -> str:
        mid = f"{where.chat_id}:{next(self._ids)}"
        self.shown.put(where.chat_id, mid, signature(view))
        return mid

    async def edit(self, where: Where, message_id: str, view: View) -> None:
        self.shown.put(where.chat_id, message_id, signature(view))

    async def delete(self, where: Where, message_id: str) -> None:
        return None

    async def send_file(self, where: Where, filename: str, data: bytes, caption: str = "") -> str:
        return await self.send(where, View(caption))

    def join_link(self, payload: str) -> str | None:
        return None

    def how_to_fix(self) -> str:
        return ""


class Answer:
    """The first answer to one update."""

    def __init__(self) -> None:
        self.first: asyncio.Future[str] = asyncio.get_running_loop().create_future()

    async def notice(self, text: str, alert: bool = False) -> None:
        if not self.first.done():
            self.first.set_result(text)


class PostedAnswer:
    """The first answer to one update, posted to the harness (as Telegram's answerCallbackQuery)."""

    def __init__(self, session: aiohttp.ClientSession, url: str, key: str) -> None:
        self.session, self.url, self.key = session, url, key
        self.sent = False

    async def notice(self, text: str, alert: bool = False) -> None:
        if self.sent:
            return
        self.sent = True
        with contextlib.suppress(aiohttp.ClientError, TimeoutError):
            async with self.session.post(self.url, json={"key": self.key, "text": text}) as r:
                await r.read()

    def handoff(self) -> dict[str, str]:
        return {"answer_to": self.key}


def update_route(host: Host, health: Health | None = None,
                 platform: NullPlatform | None = None) -> Callable[[web.Request], Awaitable[web.Response]]:
    """`POST /update`: one update (`bot.cluster.encode`'s JSON) for the host, as a webhook brings it."""

    async def update(request: web.Request) -> web.Response:
        if health is not None and health.draining:
            return web.Response(status=503)
        data = await request.json()
        posted = platform is not None and platform.answers and platform.session is not None
        answer: Answer | PostedAnswer = Answer()
        if posted:
            assert platform is not None and platform.session is not None
            answer = PostedAnswer(platform.session, platform.answers, str(data["key"]))
        receipt = Receipt(redelivers=True)
        event = dataclasses.replace(decode(data, answer), receipt=receipt)
        await host.handle(event)
        try:
            stored = await asyncio.wait_for(receipt.outcome(), STORE_WAIT)
        except TimeoutError:
            stored = True
        if not stored:
            return web.Response(status=503)
        if request.query.get("wait") == "0" or not isinstance(answer, Answer):
            return web.json_response({"answer": None})
        with contextlib.suppress(asyncio.TimeoutError):
            return web.json_response({"answer": await asyncio.wait_for(answer.first, ANSWER_WAIT)})
        return web.json_response({"answer": None})

    return update


async def run(url: str, name: str, port: int, answers: str = "") -> None:
    store = await PostgresStore.open(url, synchronous="NORMAL", worker=name)
    host = build_host(store, defaults=SETTINGS, use_ai_threads=False)
    platform = NullPlatform(answers)
    platform.session = aiohttp.ClientSession()
    host.register(platform)
    cluster = Cluster(host, store, store.cluster())
    health = Health()
    app = worker_app(host, store, cluster, health=health)
    app.router.add_post("/update", update_route(host, health, platform))
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    await cluster.start()
    collector.tune()  # as `tractor-host run` does once its first tables are loaded
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    print("ready", flush=True)
    await stop.wait()
    await drain(health, [], None, [], cluster, [])
    await runner.cleanup()
    await host.stop()
    await store.close()
    await platform.session.close()


def main(argv: list[str] | None = None) -> Any:
    # errors as "error ..." (the harnesses count them), warnings as "warning ..." (kept for a report)
    factory = logging.getLogRecordFactory()

    def record(*args: Any, **kwargs: Any) -> logging.LogRecord:
        r = factory(*args, **kwargs)
        r.low = r.levelname.lower()
        return r

    logging.setLogRecordFactory(record)
    logging.basicConfig(level=logging.WARNING, format="%(low)s %(name)s %(message)s", stream=sys.stdout)
    logging.getLogger("asyncpg.pool").setLevel(logging.ERROR)
    args = (argv or sys.argv[1:])
    url, name, port = args[:3]
    asyncio.run(run(url, name, int(port), args[3] if len(args) > 3 else ""))


if __name__ == "__main__":
    main()
