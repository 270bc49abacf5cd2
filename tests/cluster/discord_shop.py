"""Workers of one bot on one throwaway PostgreSQL, in this process, against the fake Discord: each
its own store, host, cluster link and discord.py clients, and a kill that ends a worker's database
sessions and gateway sockets at once, as the kernel does for a killed process. Shared by the tests
of tests/cluster that drive Discord through several workers.

Time is the test's. The workers beat only when it says (`Shop.beat`), on a database whose clock
stands still (`db_clock`): leases and heartbeats never run out behind a loaded machine's back, and a
dead worker is seen dead at the next beat by its life lock, as in production. Discord's clock runs
fast (`tests.discord.rig.FAST`), the adapters' pauses with it; the identify pace is Discord's window
on that clock plus bot.cluster's real half second of margin (jitter does not scale). The rigs wait on
events: the fake's, and what goes between the workers (forwarded updates and replies, counted here).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import Counter
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

import pytest

from adapters.discord.config import DiscordConfig
from adapters.discord.run import DiscordRunner
from app.features import build_host
from bot.cluster import IDENTIFY_PACE, Cluster
from bot.host import Host
from bot.shards import ShardKeeper
from bot.table import Table
from fakes.clock import FakeClock
from fakes.discord_api import IDENTIFY_WINDOW_S, FakeDiscord, FakeMessage, FakeUser, handled, running_fake
from persistence.postgres import PostgresStore
from tests.discord.rig import FAST, SETTINGS, Rig, cards_in
from tests.persistence.conftest import db_clock, pg_server, pg_url
from tests.persistence.db_clock import DbClock

__all__ = ["db_clock", "pg_server", "pg_url", "shop"]

GUILD_A, CHANNEL_A = 9000, 9100  # shard 0 of 2
GUILD_B, CHANNEL_B = (1 << 22) + 9, 9200  # shard 1 of 2
PEOPLE = {
    CHANNEL_A: tuple(FakeUser(300 + i, f"a{i}", admin=i == 0) for i in range(4)),
    CHANNEL_B: tuple(FakeUser(400 + i, f"b{i}", admin=i == 0) for i in range(4)),
}


@dataclass
class Worker:
    name: str
    store: PostgresStore
    host: Host
    cluster: Cluster
    runner: DiscordRunner
    keeper: ShardKeeper
    alive: bool = True


@dataclass
class Shop:
    """The workers, the fake Discord, and the people of both guilds."""

    fake: FakeDiscord
    url: str
    clock: FakeClock
    workers: list[Worker] = field(default_factory=list)
    replies_out: Counter[str] = field(default_factory=Counter)  # replies sent to each worker
    replies_in: Counter[str] = field(default_factory=Counter)  # ... and received there
    draining: int = 0  # workers serving their inbox now
    _changed: asyncio.Event = field(default_factory=asyncio.Event)

    async def start(self, name: str) -> Worker:
        store = await PostgresStore.open(self.url, synchronous="OFF", worker=name)
        host = build_host(store, clock=self.clock, defaults=SETTINGS, use_ai_threads=False)
        cluster = Cluster(host, store, store.cluster(), beat=3600)  # beats when the test says (`beat`)
        cluster.identify_pace = IDENTIFY_WINDOW_S * self.fake.scale + (IDENTIFY_PACE - IDENTIFY_WINDOW_S)
        self._count(cluster)
        config = DiscordConfig(token=self.fake.token, api_base=self.fake.api_base,
                               gateway_url=self.fake.gateway_url, edit_interval=0.0, shard_count=2,
                               sync_commands=not self.workers, scale=self.fake.scale)
        runner = DiscordRunner(host, config, ready_timeout=30, identify_gate=cluster.identify_gate)
        runner.platform.routes.clock = self.fake.now
        await cluster.start()
        await runner.login()
        # shards stay where they are once taken (no rebalancing within the test): so a table can be
        # driven by a worker that does not run its guild's shard; it steps at the cluster's beats
        keeper = ShardKeeper(cluster, runner, shed_after=10**9)
        await keeper.start()
        w = Worker(name, store, host, cluster, runner, keeper)
        self.workers.append(w)
        return w

    def live(self) -> list[Worker]:
        return [w for w in self.workers if w.alive]

    async def beat(self) -> None:
        """One heartbeat of every live worker, in the order they started: its leases, its fair share
        of the tables and of the shards."""
        for w in self.live():
            await w.cluster.beat()
            await w.keeper.step()

    async def beat_until(self, check: Callable[[], bool], what: str, beats: int = 5) -> int:
        """Beats until `check` holds; how many beats that took (a bound in beats, not seconds)."""
        for n in range(beats + 1):
            if check():
                return n
            await self.beat()
        raise AssertionError(f"{what}: not within {beats} beats")

    def _count(self, cluster: Cluster) -> None:
        """Counts what goes between the workers, so `crossed` can wait for it: replies sent to each
        worker and received there, and inboxes being served (their updates counted by the cluster's
        stats). Wraps the worker's own methods (before it starts, which hands `_on_message` on)."""
        link: Any = cluster.link
        notify, on_message, drain = link.notify, cluster._on_message, cluster.drain

        async def counted_notify(worker: str, message: dict[str, Any]) -> None:
            await notify(worker, message)
            if message.get("kind") == "reply":
                self.replies_out[worker] += 1
                self._pulse()

        def counted_on_message(message: dict[str, Any]) -> None:
            on_message(message)
            if message.get("kind") == "reply":
                self.replies_in[cluster.worker] += 1
                self._pulse()

        async def counted_drain() -> None:
            self.draining += 1
            try:
                await drain()
            finally:
                self.draining -= 1
                self._pulse()

        link.notify = counted_notify
        cluster._on_message = counted_on_message  # type: ignore[method-assign]
        cluster.drain = counted_drain  # type: ignore[method-assign]

    def _pulse(self) -> None:
        changed, self._changed = self._changed, asyncio.Event()
        changed.set()

    def _crossed(self) -> bool:
        """Every update forwarded was served by its table's worker, every reply to a live worker
        reached it, and none is being delivered there."""
        forwarded = sum(w.cluster.stats.forwarded for w in self.workers)
        received = sum(w.cluster.stats.received for w in self.workers)
        return not self.draining and forwarded == received and all(
            self.replies_out[w.name] == self.replies_in[w.name] and not w.cluster._background
            for w in self.live())

    async def crossed(self, timeout: float = 30.0) -> None:
        """Until nothing is on its way between the workers (`_crossed`): waits on the counters'
        changes, and on the replies being delivered."""
        async with asyncio.timeout(timeout):
            while not self._crossed():
                background = [t for w in self.live() for t in w.cluster._background]
                changed = asyncio.ensure_future(self._changed.wait())
                await asyncio.wait([changed, *background], return_when=asyncio.FIRST_COMPLETED)
                changed.cancel()

    async def kill(self, w: Worker) -> None:
        """As SIGKILL: no hand-over, no goodbye; the database and Discord see the sockets close."""
        w.alive = False
        for task in (w.cluster._task, w.cluster._renewer, w.keeper._task):
            if task is not None:
                task.cancel()
        for _client, task in list(w.runner.shards.values()):
            task.cancel()
        for client, _ in list(w.runner.shards.values()):
            # closing the client's HTTP session drops every socket it holds at once, a gateway
            # socket half-opened by a reconnect too (the task's cancel may land mid-handshake)
            with contextlib.suppress(Exception):
                await client.http.close()
        link: Any = w.cluster.link
        for conn in [link._listener, link._shared, *link._roles]:
            if conn is not None:
                conn.terminate()
        for task in list(link._paces):
            task.cancel()
        w.store._pool.terminate()
        for match_id in list(w.host.tables):
            w.host.drop(match_id)
        await w.runner.platform.outbox.close()  # nothing more goes out from a dead process
        await w.runner.platform.pings.close()
        await w.runner.client.http.close()

    async def stop(self) -> None:
        for w in self.live():
            await w.keeper.stop()
            await w.runner.stop()
            await w.cluster.stop()
            await w.host.stop()
            await w.store.close()
        for w in self.workers:
            if not w.alive:
                with contextlib.suppress(Exception):
                    await w.runner.stop()
                await w.host.stop()


class GuildRig(Rig):
    """The discord rig's people, at the table of one channel, whichever worker drives it."""

    shop: Shop
    channel: int

    def owner(self) -> Worker | None:
        for w in self.shop.live():
            if any(t.chat_id == str(self.channel) for t in w.host.tables.values()):
                return w
        return None

    def table(self) -> Table:
        w = self.owner()
        assert w is not None, "nobody drives the table"
        return next(t for t in w.host.tables.values() if t.chat_id == str(self.channel))

    def table_message(self) -> FakeMessage:
        for message in reversed(list(self.fake.messages.values())):
            if (message.public and not message.deleted and message.buttons()
                    and message.channel_id == self.channel):
                return message
        raise LookupError("no table message")

    async def act(self, user: FakeUser, style: str = "menu") -> bool:
        w = self.owner()
        if w is None:
            return False
        self.host = w.host  # the rig asks its host whether a table is open
        return await super().act(user, style)

    async def idle(self) -> None:
        """As the discord rig's, over every live worker, and until nothing is on its way between them."""
        seen: tuple[int, ...] = ()
        while seen != self._seen():
            seen = self._seen()
            await self.fake.answered()
            await handled()
            for w in self.shop.live():
                await w.runner.inbound.idle()
                await w.host.settle()
                await w.runner.platform.flush(private_only=True)
            await self.shop.crossed()
            await self.fake.quiet()

    def _seen(self) -> tuple[int, ...]:
        shop = self.shop
        return (len(self.fake.requests), sum(w.cluster.stats.received for w in shop.workers),
                sum(shop.replies_in.values()))

    async def settled(self) -> None:
        """Until everything queued went out, channel messages included, at every live worker."""
        await self.idle()
        for w in self.shop.live():
            await w.runner.idle()
        await self.idle()


def guild_rig(shop: Shop, channel: int) -> GuildRig:
    rig = GuildRig(shop.fake, None, shop.clock)
    rig.shop, rig.channel = shop, channel
    return rig


def observe(shop: Shop, rigs: list[GuildRig]) -> dict[str, Any] | None:
    """Both tables' knowledge for the leak scan: seats 0-3 at A, 4-7 at B (public cards of either)."""
    public: Counter[str] = Counter()
    seats: list[Counter[str]] = [Counter() for _ in range(8)]
    users: dict[str, int] = {}
    for n, rig in enumerate(rigs):
        w = rig.owner()
        if w is None:
            continue
        table = rig.table()
        if table.match is None:
            continue
        rig.ever_public |= cards_in(table.match.public_view())
        for s in range(4):
            rig.ever_seat[s] |= cards_in(table.match.view(s))
            users[str(table.seats[s].get("user_id"))] = 4 * n + s
        public |= rig.ever_public
        for s in range(4):
            seats[4 * n + s] = Counter(rig.ever_seat[s])
    return {"public": public, "seats": seats, "users": users}


async def open_table(rig: GuildRig) -> None:
    fake, people = rig.fake, PEOPLE[rig.channel]
    await fake.slash(people[0], "new", {"preset": "classic"}, channel_id=rig.channel)
    await rig.idle()
    await fake.slash(people[1], "join", channel_id=rig.channel)
    await rig.idle()
    for person in people[2:]:
        await fake.click(person, rig.table_message(), "Join")
        await rig.idle()
    await fake.click(people[0], rig.table_message(), "Start")
    await rig.idle()


def played(rig: GuildRig) -> int:
    m = rig.table().match
    return 0 if m is None else sum(len(a["cards"]) for a in m.actions_json() if a["t"] == "play")


def done(rig: GuildRig) -> bool:
    m = rig.table().match
    return m is not None and (m.phase in ("hand_over", "match_over") or m.public_view().get("hand_no", 1) > 1)


async def play(rigs: list[GuildRig], until: Any, limit: int = 900) -> None:
    """People at both tables act in turn; when nobody must, the clock moves on."""
    for _ in range(limit):
        if all(until(r) for r in rigs):
            return
        acted = False
        for rig in rigs:
            if until(rig):
                continue
            for person in PEOPLE[rig.channel]:
                if await rig.act(person):
                    acted = True
                    break
        if not acted:
            rigs[0].clock.advance(31)
            await rigs[0].idle()
    raise AssertionError("the hands did not get there")


@pytest.fixture
async def shop(pg_url: str, db_clock: DbClock) -> AsyncIterator[Shop]:
    """The shop on a database whose clock stands still (the module doc)."""
    async with running_fake(scale=FAST) as fake:
        fake.shard_count = 2
        fake.add_guild(GUILD_B, CHANNEL_B)
        with fake.pointed_at():
            s = Shop(fake, pg_url, FakeClock())
            try:
                yield s
            finally:
                await s.stop()
