"""Several workers, one database: each table driven by one worker at a time, updates reaching it.

Why this shape. A table stays a single-writer actor (bot.table); what moves between workers is
ownership, through the table's lease in the database: a worker drives only the tables whose
lease it holds, renews them every `beat` seconds, and the store refuses an append from a worker
whose lease ran out (`LeaseLost`), so a table never runs twice even when a worker stalls.

- Sharing: every beat a worker counts the live workers and the open tables, takes free tables
  up to its fair share (ceil(tables / workers)) and hands back what is above it. A new worker
  therefore gets its share as the others shed theirs; a stopped one releases its leases at once.
- Death: each worker holds a session lock in the database for as long as its process lives
  (persistence.postgres_cluster); a killed one's is released by the server the instant its
  connection drops, and the survivors' next beat takes its tables, though its leases would run
  for seconds more. A worker whose death cannot be seen so (a lost machine) stops counting among
  the live ones once it misses two beats, and its leases run out after `ttl`. The fair share
  counts only live workers: counting a dead one would leave its share of the tables to nobody.
- Routing: any worker may receive any update. One for a table it does not drive goes to the
  table's inbox in the database and wakes the owner (or waits for the next one, should the owner
  be dead); the owner's answer to the person (a callback answer, an ephemeral reply) comes back
  to the receiving worker, which holds the platform's handle for it.
- Web pages: a page's socket may be served by any worker. Its actions are updates like the others;
  its view comes from a replica read from the store (`bot.live_follow`), kept current by what the
  workers tell each other (`bot.live_peers`).

It runs past 400 lines because a worker's beat is one loop (count the workers, take and shed
leases, renew them, serve the inbox, answer forwarded replies; at a clean stop, hand every table
over before any drain) whose steps share the lease state; the pages' side is in `bot.live_peers`
and `bot.live_follow`.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import itertools
import logging
import math
import os
import socket
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Collection, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, Protocol

from bot.intents import codec
from bot.live_follow import Follower
from bot.live_peers import LivePeers
from bot.move_on import move_on
from bot.platform import Incoming, Replier, User, Where
from persistence.errors import StoreDown
from persistence.store import StoredMatch

if TYPE_CHECKING:
    from bot.host import Host

log = logging.getLogger(__name__)

#: Seconds between two heartbeats; a lease lasts `ttl` (the store's), several beats.
BEAT = 1.0
#: Replies waited for at most this many at once (old ones are dropped: their updates are long gone).
PENDING_REPLIES = 10_000
#: Tables a worker takes in one beat at most: loading and replaying them is work on the event loop.
TAKE_PER_BEAT = 250
#: Seconds between two gateway identifies of one rate-limit bucket (Discord's 5, and a margin).
IDENTIFY_PACE = 5.5
#: Updates that waited this long in an inbox are dropped (their table ended meanwhile).
INBOX_MAX_AGE = 120.0
#: Every this many beats one worker looks for tournaments and events nobody moves on (bot.move_on).
MOVE_ON_BEATS = 5
#: A worker counts among the live ones for sharing the tables while its last beat is this recent
#: (its leases may run longer): a worker lost with its machine stops counting before they run out.
LIVE_WITHIN = 2.5 * BEAT


def worker_name() -> str:
    """$TRACTOR_WORKER, else host:pid: unique among the workers sharing a database."""
    return os.environ.get("TRACTOR_WORKER") or f"{socket.gethostname()}:{os.getpid()}"


class LeaseStore(Protocol):
    """The store's half (persistence.postgres.PostgresStore)."""

    worker: str | None
    lease_ttl: float

    async def acquire_leases(self, match_ids: Sequence[int], ttl: float) -> list[int]: ...

    async def renew_leases(self, ttl: float) -> list[int]: ...

    async def release_lease(self, match_id: int) -> None: ...

    async def match_tail(self, match_id: int, from_seq: int) -> StoredMatch | None: ...


class Link(Protocol):
    """The workers' shared state (persistence.postgres_cluster.ClusterLink)."""

    worker: str

    async def beat(self, ttl: float, within: float) -> list[str]: ...

    async def leave(self) -> None: ...

    async def open_tables(self, platforms: Collection[str]) -> list[tuple[int, str | None]]: ...

    async def table_of_chat(self, platform: str, chat_id: str) -> int | None: ...

    async def tables_of_user(self, platform: str, user_id: str) -> list[int]: ...

    async def next_in_series(self, platform: str, match_id: int) -> int | None: ...

    async def post(self, match_id: int, payload: dict[str, object]) -> str | None: ...

    async def take(self) -> list[tuple[int, dict[str, object]]]: ...

    async def served(self, row_ids: list[int]) -> None: ...

    async def prune(self, older_than: float) -> int: ...

    async def notify(self, worker: str, message: dict[str, object]) -> None: ...

    async def listen(self, on_message: Callable[[dict[str, object]], None]) -> None: ...

    async def hold(self, role: str) -> None: ...

    async def try_hold(self, role: str) -> bool: ...

    async def release(self, role: str) -> None: ...

    async def drop_roles(self) -> None: ...

    async def shared_alive(self) -> bool: ...

    async def pace(self, role: str, seconds: float) -> None: ...

    def sole(self, what: str) -> contextlib.AbstractAsyncContextManager[bool]: ...

    async def unattended(self, chats: Collection[tuple[str, str]]) -> set[tuple[str, str]]: ...

    async def close(self) -> None: ...


@dataclass
class ClusterStats:
    """What this worker did (the metrics endpoint, tests)."""

    workers: int = 1
    forwarded: int = 0  # updates sent on to another worker's table
    received: int = 0  # updates taken from the inbox of a table this worker drives
    taken: int = 0  # tables taken (free, or a dead worker's)
    handed: int = 0  # tables given back (a fair share, a clean stop)
    lost: int = 0  # tables whose lease ran out under this worker
    lease_changes: int = 0
    beats: int = 0
    beat_at: float | None = None  # loop time of the last heartbeat that went through
    live_sent: int = 0  # "this table changed" notifications sent to workers serving its pages
    live_received: int = 0


class Cluster:
    """This worker among the others: beats, shares tables, routes updates. See the module docstring."""

    def __init__(self, host: Host, store: LeaseStore, link: Link, *, beat: float = BEAT,
                 ttl: float | None = None) -> None:
        self.host = host
        self.store = store
        self.link = link
        self.worker = link.worker
        self.beat_every = beat
        self.ttl = ttl if ttl is not None else store.lease_ttl
        store.lease_ttl = self.ttl  # a table this worker opens is leased for as long
        self.stats = ClusterStats()
        self._lock = asyncio.Lock()
        self._task: asyncio.Task[None] | None = None
        self._renewer: asyncio.Task[None] | None = None
        self._mover: asyncio.Task[list[str]] | None = None
        self._wake = asyncio.Event()
        self._beat_now = False  # another worker freed its tables: take a share at once
        self._unserved: list[int] = []  # inbox rows served whose removal failed (tried again)
        self._pending: OrderedDict[str, Replier] = OrderedDict()
        self._ids = itertools.count(1)
        self._background: set[asyncio.Task[None]] = set()
        self.stopping = False
        self.follower = Follower(host, store, series=link)
        self.peers = LivePeers(host, link, self.follower, self.stats, self.ttl)
        self.live: list[str] = [self.worker]  # the live workers at the last beat, sorted
        self.identify_pace = IDENTIFY_PACE  # real seconds: tests against a fast fake Discord shorten it

    # ----- lifecycle -----

    async def start(self) -> None:
        """Joins: listens for updates and replies, takes a first share of the tables, then beats."""
        self.host.route_through(self)
        self.peers.start()
        await self.link.listen(self._on_message)
        await self.beat()
        self._task = asyncio.create_task(self._run(), name=f"cluster-{self.worker}")
        self._renewer = asyncio.create_task(self._renewing(), name=f"leases-{self.worker}")

    async def release(self) -> None:
        """The first half of a clean stop, before anything waits on a platform: every table this
        worker drives is handed over at once (no waiting for a lease to run out), it leaves the
        live workers (the others' fair shares count it no more), gives its roles up (Telegram's
        polling) and tells the others to beat now, so that they drive its tables within a beat's
        work. Updates still reaching it go on to the new owners: the link stays open until `stop`."""
        if self.stopping:
            return
        self.stopping = True
        for task in (self._task, self._renewer, self._mover):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        await self.peers.stop()  # the tables handed over below are not followed: the pages go too
        async with self._lock:
            await asyncio.gather(*(self._hand_over(m) for m in list(self.host.tables)))
            with contextlib.suppress(Exception):
                await self.link.leave()
        with contextlib.suppress(Exception):
            await self.link.drop_roles()
        with contextlib.suppress(Exception):
            await self.link.notify("*", {"kind": "freed", "from": self.worker})

    async def stop(self) -> None:
        """A clean stop: `release`, then the link closes."""
        await self.release()
        await self.link.close()
        self.host.route_through(None)

    async def _run(self) -> None:
        """Beats every `beat_every` seconds, and serves the inbox whenever a NOTIFY says so; a busy
        inbox never delays a beat (the leases would run out)."""
        loop = asyncio.get_running_loop()
        next_beat = loop.time() + self.beat_every
        while True:
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self._wake.wait(), max(0.0, next_beat - loop.time()))
            try:
                if self._wake.is_set():
                    self._wake.clear()
                    await self.drain()
                if loop.time() >= next_beat or self._beat_now:
                    self._beat_now = False
                    next_beat = loop.time() + self.beat_every
                    await self.beat()
            except asyncio.CancelledError:
                raise
            except StoreDown as exc:  # a database restart: one line, not a traceback a beat
                log.warning("worker %s: heartbeat or inbox: %s; trying again", self.worker, exc)
            except Exception:
                log.exception("worker %s: heartbeat or inbox failed; trying again", self.worker)

    async def when_holding(self, role: str, start: Callable[[], Awaitable[None]]) -> None:
        """Runs `start` once this worker holds `role`, which one worker holds at a time (Telegram's
        long polling: two pollers of one bot make Telegram refuse both). Should the holder die, the
        next worker waiting gets the role at once."""
        await self.link.hold(role)
        log.info("worker %s now holds %s", self.worker, role)
        await start()

    async def identify_gate(self, bucket: int) -> None:
        """Waits for this worker's turn to open a gateway session in `bucket` (Discord allows one a
        bucket every 5 s for the whole bot), whichever worker opened the last one."""
        await self.link.pace(f"discord-identify-{bucket}", self.identify_pace)

    # ----- sharing the tables -----

    async def beat(self) -> None:
        """Renews this worker's leases, drops the tables it lost, sheds what is above its fair share
        and takes free tables up to it, then serves their waiting updates."""
        async with self._lock:
            self.stats.beats += 1
            held = await self.renew()
            live = await self.link.beat(self.ttl, LIVE_WITHIN)
            self.live = live or [self.worker]
            self.stats.beat_at = asyncio.get_running_loop().time()
            self.stats.workers = max(1, len(live))
            tables = await self.link.open_tables(self.host.platforms)
            share = math.ceil(len(tables) / self.stats.workers)
            for match_id in held - {m for m, _ in tables}:
                if not self.host.moving_on(match_id):  # kept while its tournament or event moves on
                    await self.store.release_lease(match_id)  # its match ended (or was set aside)
            mine = [m for m, w in tables if w == self.worker]
            running = [m for m in mine if m in self.host.tables]
            free = [m for m, w in tables if w is None]
            for match_id in [m for m in mine if m not in self.host.tables]:
                await self.store.release_lease(match_id)  # held but not driven (could not be resumed)
                free.append(match_id)
            # together: each waits for its table's current step, and leases must be renewed again soon
            shed = sorted(running, reverse=True)[: max(0, len(running) - share)]
            await asyncio.gather(*(self._hand_over(m) for m in shed))
            await self._take(sorted(free), min(share - min(len(running), share), TAKE_PER_BEAT), live)
            if self.stats.beats % 30 == 0:
                await self.link.prune(INBOX_MAX_AGE)
        if self.stats.beats % MOVE_ON_BEATS == 0 and (self._mover is None or self._mover.done()):
            self._mover = asyncio.create_task(self.move_on(), name=f"move-on-{self.worker}")
        await self.drain()
        await self.peers.beat()

    async def move_on(self) -> list[str]:
        """Tournaments and events whose worker died before opening their next match (bot.move_on)."""
        try:
            return await move_on(self.host, self.link)
        except StoreDown as exc:
            log.warning("worker %s: moving tournaments and events on: %s; trying again", self.worker, exc)
            return []
        except Exception:
            log.exception("worker %s: moving tournaments and events on failed; trying again", self.worker)
            return []

    async def _take(self, free: list[int], room: int, live: list[str]) -> None:
        """Takes up to `room` of the free tables and starts them. Each worker starts at its own place
        in the list, so that workers taking at once (a dead one's tables) mostly ask for different
        ones; the tables another worker took first are made up for from the rest at once, not a beat later."""
        if not room or not free:
            return
        at = (live.index(self.worker) * room) % len(free) if self.worker in live else 0
        order = free[at:] + free[:at]
        got = await self.store.acquire_leases(order[:room], self.ttl)
        if len(got) < room and len(order) > room:
            got += await self.store.acquire_leases(order[room:][: room - len(got)], self.ttl)
        if not got:
            return
        started = await self.host.start(ids=got)
        for match_id in set(got) - set(started):
            await self.store.release_lease(match_id)
        self.stats.taken += len(started)
        self.stats.lease_changes += len(started)
        log.info("worker %s took tables %s", self.worker, started)

    async def renew(self) -> set[int]:
        """Renews this worker's leases and stops driving any table whose lease ran out; the tables held."""
        held = set(await self.store.renew_leases(self.ttl))
        for match_id in [m for m in self.host.tables if m not in held]:
            log.warning("worker %s lost table %s (its lease ran out)", self.worker, match_id)
            self.host.drop(match_id)
            self.stats.lost += 1
            self.stats.lease_changes += 1
        return held

    async def _renewing(self) -> None:
        """The leases' own heartbeat, apart from `beat`: taking many tables at once (loading and
        replaying them) can outlast a lease, and must not let the ones already held run out."""
        while True:
            await asyncio.sleep(self.beat_every)
            try:
                await self.renew()
            except StoreDown as exc:
                log.warning("worker %s: renewing its leases: %s; trying again", self.worker, exc)
            except Exception:
                log.exception("worker %s: renewing its leases failed; trying again", self.worker)

    async def _hand_over(self, match_id: int) -> None:
        await self.host.hand_over(match_id)
        await self.store.release_lease(match_id)
        self.stats.handed += 1
        self.stats.lease_changes += 1

    # ----- routing -----

    async def route(self, event: Incoming) -> bool:
        """True when the update belongs to another worker's table and went to it (also while this
        worker stops: its tables are another's then)."""
        if self.host.router is not self or event.kind == "inline_query":
            return False
        target = await self._target(event)
        if target is None or target in self.host.tables:
            return False
        payload = encode(event)
        handoff = getattr(event.reply, "handoff", None)
        if callable(handoff):  # what the owner needs to answer on the platform itself (a Discord token)
            payload["handoff"] = handoff()
        if event.reply is not None:
            rid = f"{next(self._ids)}"
            self._pending[rid] = event.reply
            if len(self._pending) > PENDING_REPLIES:
                self._pending.popitem(last=False)
            payload["reply"] = rid
        payload["from"] = self.worker
        await self.link.post(target, payload)
        self.stats.forwarded += 1
        return True

    async def _target(self, event: Incoming) -> int | None:
        """The table an update is about, when this worker cannot tell that it drives it."""
        if event.intent is not None and event.intent.drawn is not None:  # drawn for a table: that one
            return event.intent.drawn.match_id
        if event.kind in ("press", "chosen"):
            return None  # unreadable: answered here
        where = event.where
        if not where.private:
            if (where.platform, where.chat_id) in self.host.by_chat:
                return None
            return await self.link.table_of_chat(where.platform, where.chat_id)
        if any(t.platform_name == where.platform and t.seat_of(event.user.user_id) is not None
               for t in self.host.tables.values()):
            return None
        mine = await self.link.tables_of_user(where.platform, event.user.user_id)
        return mine[0] if mine else None

    async def drain(self) -> None:
        """Serves the updates waiting for the tables this worker drives; each row is removed from the
        inbox once its update is at its table (a row taken but never served is taken again)."""
        if self._unserved:  # removals a database hiccup held up: done first, or the rows come back
            rows, self._unserved = self._unserved, []
            try:
                await self.link.served(rows)
            except StoreDown:
                self._unserved += rows
                raise
        for row_id, payload in await self.link.take():
            await self._serve(payload)
            try:
                await self.link.served([row_id])
            except StoreDown:
                self._unserved.append(row_id)

    async def _serve(self, payload: dict[str, object]) -> None:
        self.stats.received += 1
        origin, rid = payload.get("from"), payload.get("reply")
        reply: Replier | None = RemoteReply(self, str(origin), str(rid)) if origin and rid else None
        try:
            event = decode(payload, reply)
        except (KeyError, TypeError, ValueError):
            log.error("worker %s: unreadable forwarded update dropped", self.worker)
            return
        handoff = payload.get("handoff")
        platform = self.host.platforms.get(event.where.platform)
        take = getattr(platform, "take_handoff", None)
        direct = getattr(platform, "replier_from", None)
        if handoff is not None and callable(direct):
            # the platform lets any worker answer the person (Telegram: a callback query by its id,
            # a chat by its id): the answer then needs the receiving worker no more, alive or not
            replier = direct(handoff)
            if replier is not None:
                event = dataclasses.replace(event, reply=replier)
        elif handoff is not None and callable(take):
            try:
                take(handoff)
            except Exception:
                log.exception("worker %s: a forwarded update's handoff could not be taken", self.worker)
        await self.host.handle(event, forwarded=True)

    def _on_message(self, message: dict[str, object]) -> None:
        kind = message.get("kind")
        if kind == "inbox":
            self._wake.set()
        elif kind == "reply":
            replier = self._pending.pop(str(message.get("reply")), None)
            if replier is not None:
                self._spawn(replier.notice(str(message.get("text", "")), bool(message.get("alert"))))
        elif kind in ("live", "watching"):
            self.peers.on_message(message)
        elif kind == "freed":
            self._beat_now = True
            self._wake.set()

    def _spawn(self, job: Awaitable[None]) -> None:
        task = asyncio.ensure_future(job)
        self._background.add(task)
        task.add_done_callback(self._background.discard)


class RemoteReply:
    """Answers an update that another worker received: the answer goes back to that worker."""

    def __init__(self, cluster: Cluster, origin: str, reply_id: str) -> None:
        self.cluster, self.origin, self.reply_id = cluster, origin, reply_id

    async def notice(self, text: str, alert: bool = False) -> None:
        await self.cluster.link.notify(self.origin, {"kind": "reply", "reply": self.reply_id,
                                                     "text": text, "alert": alert})


def encode(event: Incoming) -> dict[str, object]:
    """An update as plain JSON data (everything but its reply handle)."""
    return {
        "kind": event.kind, "key": event.key, "name": event.name, "args": list(event.args),
        "text": event.text, "extra": dict(event.extra),
        "intent": None if event.intent is None else codec.to_json(event.intent),
        "user": [event.user.platform, event.user.user_id, event.user.name, event.user.language],
        "where": [event.where.platform, event.where.chat_id, event.where.private], "alone": event.alone,
    }


Kind = Literal["command", "press", "text", "inline_query", "chosen"]
_KINDS: dict[object, Kind] = {k: k for k in ("command", "press", "text", "inline_query", "chosen")}


def _items(value: object) -> list[object]:
    if not isinstance(value, list):
        raise TypeError(f"a list was expected, not {type(value).__name__}")
    return value


def decode(data: dict[str, object], reply: Replier | None) -> Incoming:
    """`encode`'s update again; KeyError, TypeError or ValueError for data it did not write."""
    up, uid, name, language = _items(data["user"])
    wp, wid, private = _items(data["where"])
    extra = data["extra"]
    if not isinstance(extra, dict):
        raise TypeError("extra must be a dict")
    return Incoming(
        _KINDS[data["kind"]], User(str(up), str(uid), str(name), None if language is None else str(language)),
        Where(str(wp), str(wid), bool(private)), str(data["key"]), name=str(data["name"]),
        args=tuple(str(a) for a in _items(data["args"])), text=str(data["text"]),
        intent=None if data.get("intent") is None else codec.from_json(data["intent"]),
        reply=reply, extra={str(k): str(v) for k, v in extra.items()}, alone=bool(data.get("alone", False)),
    )
