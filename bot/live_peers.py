"""What workers tell each other so that a web page may be served by any of them (bot.live_follow).

Why. The worker serving a page's socket needs to know when the table changed; the worker driving
the table needs to know which of its seats play on a web page elsewhere (their hands in the chat
stay folded, as for pages it serves itself). Both travel as NOTIFYs on the cluster's channel:

- `watching`, to every worker: the tables driven elsewhere whose pages this worker serves, with
  their seats (what changed, at once; everything again at each beat). An owner that heard nothing
  of a table from a worker for a lease's time forgets it (that worker died).
- `live`, from an owner to each worker serving pages of a table: these tables changed; read them.
  Batched: one NOTIFY per worker for whatever changed since the last one was sent.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING, Protocol

from bot.live_follow import Follower

if TYPE_CHECKING:
    from bot.host import Host

log = logging.getLogger(__name__)

#: Tables named in one NOTIFY at most (PostgreSQL refuses a payload of 8,000 bytes or more).
TABLES_PER_NOTIFY = 400


class Notifier(Protocol):
    worker: str

    async def notify(self, worker: str, message: dict[str, object]) -> None: ...


class Counts(Protocol):
    live_sent: int
    live_received: int


class LivePeers:
    """This worker's side of the exchange above; the cluster starts it, beats it and hands it messages."""

    def __init__(self, host: Host, link: Notifier, follower: Follower, stats: Counts, ttl: float) -> None:
        self.host, self.link, self.follower, self.stats, self.ttl = host, link, follower, stats, ttl
        self.worker = link.worker
        self._live_out: dict[str, set[int]] = {}  # worker -> tables it serves pages of that changed
        self._live_wake = asyncio.Event()
        self._announce_due = False
        self._announced: dict[int, frozenset[int]] = {}
        self._heard: dict[tuple[int, str], float] = {}  # (table, worker serving its pages) -> when
        self._notifier: asyncio.Task[None] | None = None

    def start(self) -> None:
        self.host.follow_with(self.follower, self._changed)
        self.follower.announce = self._announce_soon
        self._notifier = asyncio.create_task(self._notifying(), name=f"live-{self.worker}")

    async def stop(self) -> None:
        if self._notifier is not None:
            self._notifier.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._notifier
        self.host.follow_with(None, None)
        await self.follower.stop()

    async def beat(self) -> None:
        await self.follower.sweep()
        self._forget_silent_watchers()
        self._announce_soon(everything=True)

    def on_message(self, message: dict[str, object]) -> None:
        if message.get("kind") == "live":
            for match_id in _ints(message.get("tables")):
                self.stats.live_received += 1
                if match_id not in self.host.tables and self.host.live.watched(match_id):
                    self.follower.poke(match_id)
        elif message.get("kind") == "watching":
            self._watching(str(message.get("from")), message.get("tables"))

    def _changed(self, match_id: int, workers: list[str]) -> None:
        """The hub's hook on the owner: a table whose pages other workers serve changed."""
        for worker in workers:
            self._live_out.setdefault(worker, set()).add(match_id)
        self._live_wake.set()

    def _announce_soon(self, everything: bool = False) -> None:
        """Pages here started or stopped watching a table driven elsewhere (or a beat: say it all again)."""
        if everything:
            self._announced = {}
        self._announce_due = True
        self._live_wake.set()

    async def _notifying(self) -> None:
        """Sends what the web pages need, batched: each round's changes in one NOTIFY per worker."""
        while True:
            await self._live_wake.wait()
            self._live_wake.clear()
            try:
                if self._announce_due:
                    self._announce_due = False
                    await self._announce()
                out, self._live_out = self._live_out, {}
                for worker, tables in out.items():
                    ids = sorted(tables)
                    for at in range(0, len(ids), TABLES_PER_NOTIFY):
                        await self.link.notify(worker, {"kind": "live", "tables": ids[at:at + TABLES_PER_NOTIFY]})
                    self.stats.live_sent += len(ids)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("worker %s: a web-table notification failed", self.worker)

    async def _announce(self) -> None:
        """Tells every worker which tables driven elsewhere have pages here, and their seats (what
        changed since the last time; everything at each beat)."""
        now = self.follower.watching()
        said: dict[str, list[int] | None] = {str(m): sorted(s) for m, s in now.items() if self._announced.get(m) != s}
        said.update({str(m): None for m in self._announced if m not in now})
        self._announced = now
        items = sorted(said.items())
        for at in range(0, len(items), TABLES_PER_NOTIFY // 2):
            await self.link.notify("*", {"kind": "watching", "from": self.worker,
                                         "tables": dict(items[at:at + TABLES_PER_NOTIFY // 2])})

    def _watching(self, worker: str, tables: object) -> None:
        """Another worker serves pages of these tables: the ones driven here learn which seats."""
        if not isinstance(tables, dict):
            return
        now = asyncio.get_running_loop().time()
        told: dict[int, frozenset[int] | None] = {}
        for key, seats in tables.items():
            with contextlib.suppress(TypeError, ValueError):
                match_id = int(key)
                if seats is None:
                    self._heard.pop((match_id, worker), None)
                    told[match_id] = None
                else:
                    self._heard[(match_id, worker)] = now
                    told[match_id] = frozenset(_ints(seats))
        self.host.remote_watchers(worker, told)

    def _forget_silent_watchers(self) -> None:
        """A worker that serves pages says so every beat; one silent for a lease's time is gone."""
        now = asyncio.get_running_loop().time()
        for (match_id, worker), at in list(self._heard.items()):
            if now - at > self.ttl:
                del self._heard[(match_id, worker)]
                self.host.forget_watcher(match_id, worker)
        for match_id, there in list(self.host.live.remote.items()):
            if match_id not in self.host.tables:  # handed over or ended: its new owner hears of them
                for worker in list(there):
                    self.host.live.set_remote(match_id, worker, None)



def _ints(values: object) -> list[int]:
    """The integers of a list read from a notification (anything else in it is ignored)."""
    if not isinstance(values, list):
        return []
    return [int(v) for v in values if isinstance(v, int) and not isinstance(v, bool)]
