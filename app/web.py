"""The worker's HTTP app: health, readiness and Prometheus metrics, on one aiohttp Application.

One Application per process, so whatever else serves HTTP here (a webhook, the web table) adds
its routes to the same one (`worker_app(...)` then `app.router.add_...`) behind one port and one
reverse proxy. `/healthz` says the process runs (a supervisor restarts it otherwise);
`/readyz` says it drives its share of the tables (a load balancer sends it webhooks only then);
`/metrics` is Prometheus' text format, read live from the host, the store and the cluster.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from aiohttp import web
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from bot.cluster import Cluster, ClusterStats
from bot.host import Host
from persistence.sql_store import SqlStore

#: Extra figures an adapter offers (API calls, 429s): name -> (help, read it now).
Figures = dict[str, tuple[str, Callable[[], float]]]


class WorkerCollector(Collector):
    """Reads the figures when Prometheus scrapes; nothing is counted twice."""

    def __init__(self, host: Host, store: SqlStore | None, cluster: Cluster | None, figures: Figures) -> None:
        self.host, self.store, self.cluster, self.figures = host, store, cluster, figures

    def collect(self) -> Iterator[Metric]:
        yield GaugeMetricFamily("tractor_tables", "Tables this worker drives", value=len(self.host.tables))
        if self.store is not None:
            yield CounterMetricFamily("tractor_actions", "Actions stored by this worker (rate() gives actions/s)",
                                      value=self.store.stats.appends)
        if self.cluster is not None:
            s = self.cluster.stats
            yield GaugeMetricFamily("tractor_workers", "Live workers sharing the database", value=s.workers)
            for name, value, text in _cluster_counters(s):
                yield CounterMetricFamily(f"tractor_{name}", text, value=value)
        for name, (text, read) in self.figures.items():
            yield CounterMetricFamily(name, text, value=read())


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
               figures: Figures | None = None) -> web.Application:
    """The Application with /healthz, /readyz and /metrics; add further routes to it. `figures` is
    read at each scrape, so the adapters started later may still add theirs to it."""
    registry = CollectorRegistry()
    registry.register(WorkerCollector(host, store, cluster, figures if figures is not None else {}))

    async def healthz(_request: web.Request) -> web.Response:
        return web.json_response({"ok": True})

    async def readyz(_request: web.Request) -> web.Response:
        ready = cluster is None or (host.router is cluster and cluster.stats.beats > 0)
        return web.json_response({"ready": ready, "tables": len(host.tables)}, status=200 if ready else 503)

    async def metrics(_request: web.Request) -> web.Response:
        return web.Response(body=generate_latest(registry), content_type="text/plain", charset="utf-8",
                            headers={"X-Content-Type-Options": "nosniff"})

    app = web.Application()
    app.router.add_get("/healthz", healthz)
    app.router.add_get("/readyz", readyz)
    app.router.add_get("/metrics", metrics)
    return app
