"""One worker as its own process, for failover tests: `python -m fakes.worker_child URL NAME PORT`.

It runs what a worker of `tractor-host run` runs on PostgreSQL (the store with the worker's
name, the host, the cluster's heartbeat and routing) behind the worker's HTTP app
(`app/web.py`), with one more route standing in for a platform's webhook: `POST /update` takes
one update (`bot.cluster.encode`'s JSON) and answers with the first thing the bot answered that
person (a "✓" acknowledges an action), or nothing within 5 s. Messages the tables send go
nowhere (`NullPlatform`): the harness reads the state from the database, as people read a screen.
Prints "ready" once it serves, then runs until it is killed.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import sys
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web

from app import collector
from app.features import build_host
from app.web import worker_app
from bot.cluster import Cluster, decode
from bot.host import Host
from bot.platform import View, Where
from bot.scene.diff import Shown, signature
from bot.settings import TableSettings
from persistence.postgres import PostgresStore

# People act when they like (no turn timer); the declaration window is short.
SETTINGS = TableSettings(deal=0, declare=0.3, bury=0, turn=0, next=0, lobby=0, away_after=0)
ANSWER_WAIT = 5.0


class NullPlatform:
    """A platform whose messages go nowhere (ids are handed out, nothing is kept)."""

    name = "fake"
    hand_page_size = 40
    one_screen = False
    turn_notices = False
    sends_files = False
    play_menu = False
    live_countdown = False

    def __init__(self) -> None:
        self._ids = itertools.count(1)
        self.shown = Shown()

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


def update_route(host: Host) -> Callable[[web.Request], Awaitable[web.Response]]:
    """`POST /update`: one update (`bot.cluster.encode`'s JSON) for the host, as a webhook brings it."""

    async def update(request: web.Request) -> web.Response:
        answer = Answer()
        event = decode(await request.json(), answer)
        await host.handle(event)
        if request.query.get("wait") == "0":  # no answer awaited (commands that answer in the group)
            return web.json_response({"answer": None})
        with contextlib.suppress(asyncio.TimeoutError):
            return web.json_response({"answer": await asyncio.wait_for(answer.first, ANSWER_WAIT)})
        return web.json_response({"answer": None})

    return update


async def run(url: str, name: str, port: int) -> None:
    store = await PostgresStore.open(url, synchronous="NORMAL", worker=name)
    host = build_host(store, defaults=SETTINGS, use_ai_threads=False)
    host.register(NullPlatform())
    cluster = Cluster(host, store, store.cluster())
    app = worker_app(host, store, cluster)
    app.router.add_post("/update", update_route(host))
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    await cluster.start()
    collector.tune()  # as `tractor-host run` does once its first tables are loaded
    print("ready", flush=True)
    await asyncio.Event().wait()


def main(argv: list[str] | None = None) -> Any:
    logging.basicConfig(level=logging.ERROR, format="error %(name)s %(message)s", stream=sys.stdout)
    url, name, port = (argv or sys.argv[1:])[:3]
    asyncio.run(run(url, name, int(port)))


if __name__ == "__main__":
    main()
