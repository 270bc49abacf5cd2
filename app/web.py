"""The worker's HTTP app: health, readiness and Prometheus metrics, on one aiohttp Application.

One Application per process, so whatever else serves HTTP here (a webhook, the web table) adds
its routes to the same one (`worker_app(...)` then `app.router.add_...`) behind one port and one
reverse proxy. `/healthz` says the process runs (a supervisor restarts it otherwise);
`/readyz` says it drives its share of the tables (a load balancer sends it webhooks only then),
and says no while the database does not answer or the worker drains (a deploy's SIGTERM): a
proxy that trusts it sends updates only to a worker that can store them;
`/metrics` is Prometheus' text format, read live from the host, the store and the cluster.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from aiohttp import web
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from bot.cluster import BEAT, Cluster, ClusterStats
from bot.host import Host
from persistence.errors import StoreDown
from persistence.postgres import PostgresStore
from persistence.sql_store import SqlStore

#: Extra figures an adapter offers (API calls, 429s): name -> (help, read it now). Counters,
#: except those whose name ends in `_seconds` or `_now` (gauges).
Figures = dict[str, tuple[str, Callable[[], float]]]
#: Seconds /readyz waits for the database's answer.
PING_WITHIN = 1.0
#: A worker whose last heartbeat went through longer ago than this many beats is not ready.
BEATS_LATE = 3


@dataclass
class Health:
    """The process's own state for /readyz and /metrics: draining (a clean stop under way)."""

    draining: bool = False
    drains: int = 0

    def drain(self) -> None:
        if not self.draining:
            self.draining = True
            self.drains += 1


class WorkerCollector(Collector):
    """Reads the figures when Prometheus scrapes; nothing is counted twice."""

    def __init__(self, host: Host, store: SqlStore | None, cluster: Cluster | None, figures: Figures,
                 health: Health) -> None:
        self.host, self.store, self.cluster, self.figures, self.health = host, store, cluster, figures, health

    def collect(self) -> Iterator[Metric]:
        yield GaugeMetricFamily("tractor_tables", "Tables this worker drives", value=len(self.host.tables))
        if self.store is not None:
            yield CounterMetricFamily("tractor_actions", "Actions stored by this worker (rate() gives actions/s)",
                                      value=self.store.stats.appends)
        if isinstance(self.store, PostgresStore):
            h = self.store.health
            yield CounterMetricFamily("tractor_store_errors", "Database calls that met a lost connection or a"
                                      " server shutting down or starting", value=h.errors)
            yield CounterMetricFamily("tractor_store_retries", "Database calls made again after one", value=h.retries)
            yield CounterMetricFamily("tractor_store_gave_up", "Database calls that gave up (StoreDown)",
                                      value=h.gave_up)
            yield GaugeMetricFamily("tractor_store_down", "1 while the database does not answer",
                                    value=1.0 if h.down_since is not None else 0.0)
        yield GaugeMetricFamily("tractor_draining", "1 while this worker drains (a clean stop)",
                                value=1.0 if self.health.draining else 0.0)
        yield CounterMetricFamily("tractor_drains", "Clean stops this process began", value=self.health.drains)
        oldest = max([self.host.oldest_unsettled()] + [read() for name, (_, read) in self.figures.items()
                                                       if name == "tractor_telegram_oldest_update_seconds"])
        yield GaugeMetricFamily("tractor_oldest_unhandled_update_seconds",
                                "Age of the oldest update received and not yet stored (or failed)", value=oldest)
        if self.cluster is not None:
            s = self.cluster.stats
            yield GaugeMetricFamily("tractor_workers", "Live workers sharing the database", value=s.workers)
            for name, value, text in _cluster_counters(s):
                yield CounterMetricFamily(f"tractor_{name}", text, value=value)
        for name, (text, read) in self.figures.items():
            if name.endswith(("_seconds", "_now")):
                yield GaugeMetricFamily(name, text, value=read())
            else:
                yield CounterMetricFamily(name, text, value=read())


async def not_ready(host: Host, store: SqlStore | None, cluster: Cluster | None, health: Health) -> str | None:
    """Why this worker should not be sent updates now, or None: it drains, the database does not
    answer, or it has not joined (or no longer beats)."""
    if health.draining:
        return "draining"
    if isinstance(store, PostgresStore):
        try:
            await store.ping(PING_WITHIN)
        except StoreDown:
            return "database unreachable"
    if cluster is not None:
        if host.router is not cluster or cluster.stats.beats == 0:
            return "not joined"
        last = cluster.stats.beat_at
        if last is not None and asyncio.get_running_loop().time() - last > BEATS_LATE * max(cluster.beat_every, BEAT):
            return "heartbeat late"
    return None


def _cluster_counters(s: ClusterStats) -> Iterable[tuple[str, float, str]]:
    return [
        ("lease_changes", s.lease_changes, "Tables taken, handed over or lost by this worker"),
        ("tables_taken", s.taken, "Tables this worker took (free, or a dead worker's)"),
        ("tables_handed", s.handed, "Tables this worker handed over (its fair share, a clean stop)"),
        ("tables_lost", s.lost, "Tables whose lease ran out under this worker"),
        ("updates_forwarded", s.forwarded, "Updates sent on to the worker that drives their table"),
        ("updates_received", s.received, "Updates other workers received for this worker's tables"),
    ]


def worker_app(host: Host, store: SqlStore | None = None, cluster: Cluster | None = None,
               figures: Figures | None = None, health: Health | None = None) -> web.Application:
    """The Application with /healthz, /readyz and /metrics; add further routes to it. `figures` is
    read at each scrape, so the adapters started later may still add theirs to it."""
    health = health if health is not None else Health()
    registry = CollectorRegistry()
    registry.register(WorkerCollector(host, store, cluster, figures if figures is not None else {}, health))

    async def healthz(_request: web.Request) -> web.Response:
        return web.json_response({"ok": True})

    async def readyz(_request: web.Request) -> web.Response:
        why = await not_ready(host, store, cluster, health)
        body: dict[str, object] = {"ready": why is None, "tables": len(host.tables)}
        if why is not None:
            body["why"] = why
        return web.json_response(body, status=200 if why is None else 503)

    async def metrics(_request: web.Request) -> web.Response:
        return web.Response(body=generate_latest(registry), content_type="text/plain", charset="utf-8",
                            headers={"X-Content-Type-Options": "nosniff"})

    app = web.Application()
    app.router.add_get("/healthz", healthz)
    app.router.add_get("/readyz", readyz)
    app.router.add_get("/metrics", metrics)
    return app
