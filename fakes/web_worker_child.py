"""One worker serving the web table, as its own process: `python -m fakes.web_worker_child URL NAME PORT [TTL]`.

What `fakes.worker_child` runs (store, host, cluster, `POST /update` for a platform's updates, the
messages going nowhere), plus the web table on the same aiohttp Application and port, as
`tractor-host run` serves it with `TRACTOR_WEB_PORT`; seat links are signed with `SECRET`. One
more route for the harness: `GET /bench/auto?m=ID&s=SEAT` answers the engine's quick move for that
seat when this worker drives the table (null otherwise), so that scripted people play legal moves.
SIGTERM stops it as `tractor-host run` stops (its sockets close, its tables are handed over at once);
SIGKILL is a machine lost. Prints "ready" once it serves.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import sys
from typing import Any

from aiohttp import web

from adapters.web.config import WebConfig
from adapters.web.server import WebTable
from app import collector
from app.features import build_host
from app.web import worker_app
from bot.cluster import Cluster
from fakes.worker_child import SETTINGS, NullPlatform, update_route
from persistence.postgres import PostgresStore

SECRET = b"web-workers-bench-secret-0123456"


async def run(url: str, name: str, port: int, ttl: float | None) -> None:
    store = await PostgresStore.open(url, synchronous="NORMAL", worker=name)
    host = build_host(store, defaults=SETTINGS, use_ai_threads=False)
    host.register(NullPlatform())
    cluster = Cluster(host, store, store.cluster(), ttl=ttl)
    table = WebTable(host, WebConfig(port=port, public_url=f"http://127.0.0.1:{port}", secret=SECRET))
    host.live.links = table

    async def auto(request: web.Request) -> web.Response:
        t = host.tables.get(int(request.query["m"]))
        if t is None or t.match is None:
            return web.json_response(None)
        m = t.match
        a = m.auto_action(int(request.query["s"]), rng_seed=m.version)
        return web.json_response(None if a is None else {**a.to_json(), "version": m.version})

    app = worker_app(host, store, cluster)
    app.router.add_post("/update", update_route(host))
    app.router.add_get("/bench/auto", auto)
    table.add_routes(app)
    await table.start(app)
    await cluster.start()
    collector.tune()
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    print("ready", flush=True)
    await stop.wait()
    await table.stop()  # as `tractor-host run`: the web table first, then the tables handed over
    await cluster.stop()
    await host.stop()
    await store.close()


def main(argv: list[str] | None = None) -> Any:
    logging.basicConfig(level=logging.ERROR, format="error %(name)s %(message)s", stream=sys.stdout)
    args = (argv or sys.argv[1:])
    url, name, port = args[:3]
    asyncio.run(run(url, name, int(port), float(args[3]) if len(args) > 3 else None))


if __name__ == "__main__":
    main()
