"""A platform's gateway shards spread over the workers (Discord's): each shard run by one worker.

Why this shape. Discord sends each guild's events to one shard's session, and a bot with many
guilds must split its gateway into shards; with several workers each should run a share of them,
and a dead worker's shards must come up elsewhere at once (their guilds hear nothing meanwhile).
Each shard is a cluster role (`<prefix>-<k>`, a PostgreSQL session lock): held by one worker at a
time, freed the moment its worker's database session ends (a stop, a kill, a lost machine).

- Sharing: every beat a worker takes free shards up to its fair share, ceil(shards / live workers),
  starting at its own place among the workers so that they mostly ask for different ones.
- Takeover: a shard seen free for `orphan_beats` beats is taken even above the share (the dead
  worker still counts as live until its heartbeat row runs out, and a shard without a session
  loses its guilds' interactions; balance can wait).
- Rebalancing: a worker above its share for `shed_after` beats in a row gives one shard up (a
  new worker joined); never sooner, so a takeover is not undone while the dead worker still counts.
- Which guilds a shard serves and which worker drives a table are independent: an interaction
  reaching a worker that does not drive its table goes on to the owner (`bot.cluster`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from bot.cluster import Cluster

log = logging.getLogger(__name__)


class Shards(Protocol):
    """The platform's half (adapters.discord.run.DiscordRunner)."""

    shard_count: int

    async def start_shard(self, shard_id: int) -> None: ...

    async def stop_shard(self, shard_id: int) -> None: ...


@dataclass
class ShardStats:
    taken: int = 0
    shed: int = 0
    lost: int = 0  # the roles' connection broke under this worker


class ShardKeeper:
    """This worker's shards of one platform. See the module docstring."""

    def __init__(self, cluster: Cluster, shards: Shards, *, prefix: str = "discord-shard",
                 orphan_beats: int = 2, shed_after: int = 10) -> None:
        self.cluster = cluster
        self.shards = shards
        self.prefix = prefix
        self.orphan_beats = orphan_beats
        self.shed_after = shed_after
        self.held: set[int] = set()
        self.stats = ShardStats()
        self._free_for: dict[int, int] = {}
        self._over = 0
        self._task: asyncio.Task[None] | None = None

    def role(self, shard_id: int) -> str:
        return f"{self.prefix}-{shard_id}"

    async def start(self) -> None:
        await self.step()
        self._task = asyncio.create_task(self._run(), name=f"shards-{self.cluster.worker}")

    async def stop(self) -> None:
        """A clean stop: every shard closed and given up at once, for the others' next beat."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        for shard_id in sorted(self.held):
            await self._give_up(shard_id)

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.cluster.beat_every)
            try:
                await self.step()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("worker %s: sharing the shards failed; trying again", self.cluster.worker)

    async def step(self) -> None:
        """One beat: notice lost roles, shed above the share (after a while), take free shards."""
        link = self.cluster.link
        if self.held and not await link.shared_alive():
            log.warning("worker %s lost its shards %s (database session gone)", self.cluster.worker,
                        sorted(self.held))
            for shard_id in sorted(self.held):
                await self.shards.stop_shard(shard_id)
                self.stats.lost += 1
            self.held.clear()
        count = self.shards.shard_count
        live = self.cluster.live
        share = math.ceil(count / max(1, len(live)))
        self._over = self._over + 1 if len(self.held) > share else 0
        if self._over >= self.shed_after:
            self._over = 0
            await self._give_up(max(self.held))
            self.stats.shed += 1
        at = (live.index(self.cluster.worker) * share) % count if self.cluster.worker in live else 0
        for shard_id in [(at + i) % count for i in range(count)]:
            if shard_id in self.held:
                continue
            if not await link.try_hold(self.role(shard_id)):
                self._free_for.pop(shard_id, None)
                continue
            seen = self._free_for.get(shard_id, 0) + 1
            if len(self.held) < share or seen >= self.orphan_beats:
                self._free_for.pop(shard_id, None)
                await self._take(shard_id)
            else:
                self._free_for[shard_id] = seen
                await link.release(self.role(shard_id))

    async def _take(self, shard_id: int) -> None:
        try:
            await self.shards.start_shard(shard_id)
        except Exception:
            log.exception("worker %s: shard %s did not start; giving it up", self.cluster.worker, shard_id)
            await self.cluster.link.release(self.role(shard_id))
            return
        self.held.add(shard_id)
        self.stats.taken += 1
        log.info("worker %s now runs shard %s", self.cluster.worker, shard_id)

    async def _give_up(self, shard_id: int) -> None:
        self.held.discard(shard_id)
        try:
            await self.shards.stop_shard(shard_id)
        finally:
            await self.cluster.link.release(self.role(shard_id))
