"""The host: routes every platform event to the right table actor, and keeps what tables share.

It keeps the command registry (`bot.commands`) and routes each command by it: to a feature's
handler, or to the chat's table. The features (`bot.features`: `new`, chat settings, the league,
tournaments, boards, inline play) are listed by `app/features.py` and installed with `install`;
the host imports none of them and calls them through the hooks of `bot.feature.Feature`. A
table's own work is in `bot.table`.

It runs past 400 lines because it is the one place every door, every table and every feature meets:
routing (events, presses, commands), what a table needs of its host, languages, the web table's
watchers and inline mode, each a section below and each kept to the plumbing (the work is elsewhere).

The host knows no platform and no SQL: adapters call `handle` with parsed
events and render the `View`s the host hands them; the store persists.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from collections import OrderedDict
from collections.abc import Callable, Collection, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import Protocol, TypeVar

import engine as rules_engine
from bot.clock import CallableClock, Clock, SystemClock
from bot.commands import Call, Refusal, Registry
from bot.feature import JSON, Feature
from bot.host_context import Engine, HostContext
from bot.i18n import DEFAULT_LANG, LANGS, normalize_lang, tr, unknown_command_text
from bot.intents.types import Command, Drawn, Intent, Unreadable
from bot.live import LiveHub, Watch, Watcher
from bot.platform import Incoming, Platform, PlatformError, Poster, Receipt, Unreachable, User, View, Where
from bot.replays import Replay, hand_replay
from bot.review import Told, chat_review
from bot.scene.types import LeagueLine
from bot.settings import TableSettings
from bot.suggestions import SHOWN, Ask, Suggestion
from bot.table import Table, moves
from bot.table.commands import table_commands
from bot.table.context import AiPolicy, TableCore
from bot.table.messages import Event, Message, Resume, SeenLive, UnwatchLive, WatchLive, WebSeats
from bot.table.render import AI_REFRESH
from bot.views import HAND_PAGE_SIZE, InlineChoice
from engine import Match, Rules
from persistence.errors import StoreDown
from persistence.replay import resume_all
from persistence.store import Store

log = logging.getLogger(__name__)
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class TableGlance:
    """An open table as a person's own front end may see it: which match, how far, their hand."""

    match_id: int
    status: str
    hand_no: int
    hand: tuple[str, ...]

RECENT_KEYS = 50_000
JOURNAL_PREFIX = "~journal:"  # adapters' journals in the chats' settings table (no chat id starts with ~)
# AI levels that decide in well under a millisecond (`basic` about 0.2 ms, p99 0.5 ms): asked on the
# event loop, since a worker thread's hand-over costs about as much and the GIL gives no parallelism.
INLINE_LEVELS = frozenset({"random", "basic"})
# Tables in the middle of an automatic step at once (see bot.table.moves.advance): few enough that one
# turn of the event loop stays short (a step costs about 0.8 ms, and every API call needs several
# turns), enough to fill a group commit. With a store that fsyncs each commit (synchronous FULL,
# the default) a commit is dear and the tables wait on it, so more of them share each one.
# At 500 AI tables (README, "Host throughput"): 8 slots gave p99 54 ms at 1,163 actions/s with
# NORMAL, 16 gave 107 ms at the same rate; with FULL, 8 slots gave 819/s and 16 gave 1,087/s.
MOVE_SLOTS = 8
MOVE_SLOTS_FSYNC = 16
# Table refreshes during AI bursts, all tables together, per second at most: Telegram takes about
# 30 messages a second from a bot, so 500 tables of AIs are drawn every 25 s rather than every 3 s.
AI_REFRESHES_PER_SECOND = 20.0


class Router(Protocol):
    """With several workers on one database (bot.cluster): sends an update for another worker's table on."""

    async def route(self, event: Incoming) -> bool: ...


class Follower(Protocol):
    """With several workers: replicas of the tables watched here but driven elsewhere (bot.live_follow)."""

    async def load(self, match_id: int) -> Table | None: ...

    def view(self, match_id: int) -> Table | None: ...

    async def next_game(self, match_id: int, platform: str) -> int | None: ...

    def poke(self, match_id: int) -> object: ...

    def watchers_changed(self) -> None: ...


class Host:
    """Routes platform events to tables; owns no platform and no SQL."""

    def __init__(self, store: Store, *, ai_threads: int = 2, clock: Clock | Callable[[], float] | None = None,
                 defaults: TableSettings | None = None, engine: Engine | None = None, use_ai_threads: bool = True,
                 rng: random.Random | None = None, inline_levels: frozenset[str] = INLINE_LEVELS,
                 ai_refresh: float = AI_REFRESH, move_slots: int | None = None) -> None:
        self.store = store
        if move_slots is None:
            fsyncs = getattr(store, "synchronous", "OFF") in ("FULL", "EXTRA")
            move_slots = MOVE_SLOTS_FSYNC if fsyncs else MOVE_SLOTS
        self.move_slots = asyncio.Semaphore(max(1, move_slots))
        self.ai_refreshes_per_second = AI_REFRESHES_PER_SECOND
        self.inline_levels = inline_levels
        self.ai_refresh = ai_refresh
        self.ai_threads = ai_threads
        if clock is None:
            self.clock: Clock = SystemClock()
        elif isinstance(clock, Clock):
            self.clock = clock
        else:
            self.clock = CallableClock(clock)
        self.defaults = defaults or TableSettings()
        self.rng = rng or random.SystemRandom()  # match seeds; tests pass a seeded Random
        self.engine: Engine = engine if engine is not None else rules_engine
        self.use_ai_threads = use_ai_threads and ai_threads > 0
        self.ai_policy = AiPolicy(self.use_ai_threads, inline_levels)
        self.executor = ThreadPoolExecutor(max(1, ai_threads), thread_name_prefix="ai")
        self.platforms: dict[str, Platform] = {}
        self.tables: dict[int, Table] = {}
        self.ended: dict[tuple[str, str], str] = {}  # (platform, chat) -> how its last table ended
        #: Tables closed whose moving on (`match_ended`) has not finished, with the loop's time they
        #: closed: with several workers their lease is kept meanwhile (bot.cluster, bot.move_on).
        self.ending: dict[int, float] = {}
        self.by_chat: dict[tuple[str, str], Table] = {}
        self.chats: dict[tuple[str, str], dict[str, JSON]] = {}
        self.user_langs: dict[tuple[str, str], str] = {}
        self._recent: OrderedDict[str, str | None] = OrderedDict()  # key -> its first answer
        self._rerouted: set[asyncio.Future[None]] = set()
        #: With several workers on one database (bot.cluster): sends an update for another worker's table on.
        self.router: Router | None = None
        self.chat_locks: dict[tuple[str, str], asyncio.Lock] = {}
        self.live = LiveHub()  # the tables' live watchers (the web table), see bot.live
        #: With several workers: replicas of the tables watched here but driven elsewhere (bot.live_follow).
        self.follower: Follower | None = None
        #: Every command, the table's own and those of the features installed (`install`).
        self.registry = Registry()
        self.registry.add(*table_commands())
        self.features: list[Feature] = []
        self._context: HostContext | None = None
        #: The updates taken but not yet stored (or failed), with the loop time each arrived.
        self.unsettled: dict[Receipt, float] = {}

    # ----- lifecycle -----

    def register(self, platform: Platform) -> None:
        """Adds an adapter; events from it name it by `platform.name`."""
        self.platforms[platform.name] = platform

    def context(self) -> HostContext:
        """What a feature gets of the host (`bot.feature.Context`): `app/` builds the features with it."""
        if self._context is None:
            self._context = HostContext(self)
        return self._context

    def install(self, *features: Feature) -> None:
        """Plugs features in, in order: their commands join the registry, and their hooks are called
        in this order (the first to take an ended table keeps it from the others)."""
        for feature in features:
            self.registry.add(*feature.commands())
            self.features.append(feature)

    def route_through(self, router: Router | None) -> None:
        """With several workers: every update is first offered to `router` (None: no more)."""
        self.router = router

    def follow_with(self, follower: Follower | None, changed: Callable[[int, list[str]], None] | None) -> None:
        """With several workers: pages of tables driven elsewhere are served from `follower`'s
        replicas, and `changed` hears when a table whose pages other workers serve changed."""
        self.follower = follower
        self.live.changed = changed

    async def start(self, *, ids: Collection[int] | None = None) -> list[int]:
        """Resumes the unfinished matches of the registered platforms (`persistence.replay.resume_all`
        rebuilds them and sets aside those that cannot be rebuilt), refreshes their messages, re-arms timers.

        `ids`: only these tables (a worker taking them over). Returns the ids of the tables started."""
        report = await resume_all(self.store, _rebuild, ids=ids,
                                  keep=lambda m: m.platform in self.platforms and m.id not in self.tables)
        loaded: list[Table] = []
        for stored, match in report.states.values():
            await self.load_chat(stored.platform, stored.chat_id)
            table = Table(self, match_id=stored.id, platform=stored.platform, chat_id=stored.chat_id,
                          rules=stored.rules, seats=stored.seats, seed=stored.seed, meta=stored.meta,
                          status=stored.status, messages=stored.messages, deadlines=stored.deadlines,
                          match=match if stored.status in ("active", "paused") else None, picks=stored.picks)
            for s in table.seats.humans():
                await self._load_user_lang(stored.platform, str(table.seats[s].user_id))
            loaded.append(table)
        whole = ids is None  # a worker taking some tables over cannot tell which others run elsewhere
        if whole:
            for feature in self.features:  # before any table moves (a tournament opens its next match)
                await feature.resuming(loaded)
        # Started only once all are loaded: a table of AIs at full speed would otherwise hold up the
        # loading of every table after it (they share the store).
        for table in loaded:
            self.add_table(table)
            table.submit(Resume())
        if whole:
            for feature in self.features:
                await feature.resumed()
        return [t.id for t in loaded]

    async def hand_over(self, match_id: int) -> None:
        """Stops a table after its queued work, so that another worker may drive it (bot.cluster)."""
        table = self.tables.get(match_id)
        if table is None:
            return
        self._unroute(table)
        self._let_go(table)
        await table.stop()
        self._let_go(table)  # and what its last steps queued: the next owner draws from here
        self._follow(match_id)

    def drop(self, match_id: int) -> None:
        """Stops a table at once: its lease ran out, another worker may drive it already."""
        table = self.tables.get(match_id)
        if table is not None:
            self.lost(table, None)

    def lost(self, table: TableCore, message: Message | None) -> None:
        """The store refused this table's write (its lease is gone): the actor ends without another
        word, and the update it was serving goes on to the table's new owner."""
        self._unroute(table)
        self._let_go(table)
        table.abandon()
        self._follow(table.id)
        if isinstance(message, Event) and self.router is not None:
            # not served here after all: should this worker drive the table again and take the
            # update from the inbox, it is new there, not a delivery still being served
            self.forget_key(message.event.key)
            task = asyncio.ensure_future(self._handle_again(message.event))
            self._rerouted.add(task)
            task.add_done_callback(self._rerouted.discard)

    async def _handle_again(self, event: Incoming) -> None:
        try:
            await self.handle(event)
        except Exception:
            log.exception("update %s could not go on to its table's new owner", event.key)

    def _follow(self, match_id: int) -> None:
        """Pages open here on a table another worker drives from now on keep seeing it."""
        if self.follower is not None and self.live.watched(match_id):
            self.follower.poke(match_id)

    def _let_go(self, table: TableCore) -> None:
        """Another worker draws this table's messages from now on: the platform forgets which of its
        messages were the players' current ones (it would redraw them from what it last knew)."""
        let_go = getattr(self.platforms.get(table.platform_name), "let_go", None)
        if callable(let_go):
            let_go(table.chat_id, [str(s.user_id) for s in table.seats if s.user_id])

    def _unroute(self, table: TableCore) -> None:
        if self.tables.get(table.id) is table:
            del self.tables[table.id]
        if self.by_chat.get((table.platform_name, table.chat_id)) is table:
            del self.by_chat[(table.platform_name, table.chat_id)]

    async def stop(self) -> None:
        """Stops every table actor and timer, and what features run in the background; the store stays
        open (the caller owns it)."""
        for feature in self.features:
            await feature.stopping()
        tables = list(self.tables.values())
        for t in tables:
            t.refuse_new_work()  # no table starts another step while the others are being stopped
        # together: each may be waiting on a message to go out, and 500 such waits in a row add up
        await asyncio.gather(*(t.stop() for t in tables))
        self.tables.clear()
        self.by_chat.clear()
        self.executor.shutdown(wait=False, cancel_futures=True)

    async def settle(self, max_rounds: int = 100_000) -> None:
        """Waits until no table has work queued or an AI thinking (tests and simulations)."""
        for _ in range(max_rounds):
            for _ in range(3):
                await asyncio.sleep(0)
            busy = [t for t in list(self.tables.values()) if t.busy()]
            if not busy:
                return
            for t in busy:
                pending = t.ai.pending
                if pending is not None and not pending.done():
                    with contextlib.suppress(Exception):
                        await asyncio.wait([pending])
                await t.queue.join()

    def refresh_interval(self) -> float:
        """Seconds between a table's refreshes during a burst of AI moves: `ai_refresh`, or longer
        when there are so many tables that all of them together would exceed
        `ai_refreshes_per_second`."""
        return max(self.ai_refresh, len(self.tables) / self.ai_refreshes_per_second)

    # ----- what a table needs of its host (bot.table.context.TableHost) -----

    def platform(self, name: str) -> Platform:
        return self.platforms[name]

    def move_slot(self) -> asyncio.Semaphore:
        """One of the `move_slots` a table holds during an automatic step (see `moves.advance`)."""
        return self.move_slots

    def run_ai(self, job: Callable[[], T]) -> asyncio.Future[T]:
        """An AI's question in the host's worker threads."""
        return asyncio.get_running_loop().run_in_executor(self.executor, job)

    async def match_counted(self, table: TableCore, result: dict[str, object]) -> LeagueLine | None:
        """A match played to its end, before its result is shown: the league's line, if it counted."""
        for feature in self.features:
            try:
                line = await feature.match_counted(table, result)
            except Exception:
                log.exception("%s failed counting match %s", feature.name, table.id)
                continue
            if line is not None:
                return line
        return None

    async def match_ended(self, table: TableCore, result: dict[str, object]) -> None:
        """A match finished or was abandoned: each feature in turn hears of it (the league records
        it, a series deals its next game, a tournament moves on), until one takes it (a board table
        goes to its event or the daily boards instead)."""
        try:
            for feature in self.features:
                try:
                    if await feature.match_ended(table, result):
                        break
                except Exception:
                    log.exception("%s failed after match %s", feature.name, table.id)
        finally:
            self.ending.pop(table.id, None)

    def moving_on(self, match_id: int, within: float = 300.0) -> bool:
        """True while this table runs, or ended less than `within` seconds ago and is still being moved
        on (its tournament's or event's next match not opened yet: a platform's flood wait may take long)."""
        if match_id in self.tables:
            return True
        since = self.ending.get(match_id)
        if since is not None and asyncio.get_running_loop().time() - since < within:
            return True
        self.ending.pop(match_id, None)
        return False

    async def heard(self, user: User, where: Where) -> None:
        """This person is in this group chat (they spoke or pressed there, or look on at its web
        table): the features hear it (a board played there counts as seen by them)."""
        for feature in self.features:
            await feature.heard(user, where)

    async def board_start(self, table: TableCore) -> str | None:
        """Before a table deals: why it may not (a board someone was dealt before), else None."""
        for feature in self.features:
            why = await feature.before_deal(table)
            if why is not None:
                return why
        return None

    async def waiting_chats(self) -> set[tuple[str, str]]:
        """The chats where a feature would open a table next (bot.move_on)."""
        out: set[tuple[str, str]] = set()
        for feature in self.features:
            out |= await feature.waiting_chats()
        return out

    async def move_features_on(self, idle: set[tuple[str, str]]) -> list[str]:
        """Each feature opens its next table in these chats, which nobody moves on (bot.move_on)."""
        moved: list[str] = []
        for feature in self.features:
            moved += await feature.move_on(idle)
        return moved

    def add_table(self, table: Table) -> None:
        self.tables[table.id] = table
        self.by_chat[(table.platform_name, table.chat_id)] = table
        table.start()

    def forget(self, table: TableCore) -> None:
        """A table that ended leaves the routing maps (its actor finishes its current item)."""
        self.tables.pop(table.id, None)
        self.ending[table.id] = asyncio.get_running_loop().time()
        if len(self.ending) > 10_000:  # a table closed without moving on (a lobby that timed out)
            self.ending.pop(next(iter(self.ending)))
        self.ended[(table.platform_name, table.chat_id)] = table.status
        if self.by_chat.get((table.platform_name, table.chat_id)) is table:
            self.by_chat.pop((table.platform_name, table.chat_id), None)

    # ----- languages and settings -----

    async def load_chat(self, platform: str, chat_id: str) -> dict[str, JSON]:
        key = (platform, chat_id)
        if key not in self.chats:
            self.chats[key] = dict(await self.store.get_chat(platform, chat_id) or {})
        return self.chats[key]

    async def _load_user_lang(self, platform: str, user_id: str) -> None:
        if (platform, user_id) in self.user_langs:
            return
        p = await self.store.get_player(platform, user_id)
        lang = normalize_lang((p or {}).get("language"))
        if lang:
            self.user_langs[(platform, user_id)] = lang

    def chat_lang(self, platform: str, chat_id: str) -> str:
        lang = self.chats.get((platform, chat_id), {}).get("lang")
        return lang if lang in LANGS else DEFAULT_LANG

    def user_lang(self, user: User) -> str | None:
        """A person's own language for private messages: chosen with `lang`, else their platform's."""
        return self.user_langs.get((user.platform, user.user_id)) or normalize_lang(user.language)

    def _lang_for(self, event: Incoming) -> str:
        """Private chats and answers to the person alone (`Incoming.alone`): the person's language;
        groups: the chat's, else the person's."""
        chat = self.chats.get((event.where.platform, event.where.chat_id), {}).get("lang")
        if event.where.private or event.alone or chat not in LANGS:
            return self.user_lang(event.user) or self.chat_lang(event.where.platform, event.where.chat_id)
        return str(chat)

    async def load_journal(self, platform: str, name: str) -> dict[str, JSON]:
        """What an adapter wrote down to survive a restart (Telegram's flood journal), kept in the
        store beside the chats' settings under a name no chat id can take."""
        return dict(await self.store.get_chat(platform, JOURNAL_PREFIX + name) or {})

    async def save_journal(self, platform: str, name: str, data: dict[str, JSON]) -> None:
        await self.store.set_chat(platform, JOURNAL_PREFIX + name, data)

    async def update_journal(self, platform: str, name: str,
                             change: Callable[[dict[str, JSON]], dict[str, JSON]]) -> dict[str, JSON]:
        """Rewrites a journal from what it holds now, in one step of the store: with several workers
        on one database, one worker's change to a shared journal never undoes another's.

        :returns: the journal as written (everyone's changes so far).
        """
        return dict(await self.store.update_chat(platform, JOURNAL_PREFIX + name, change))

    def page_size(self, platform: str) -> int:
        p = self.platforms.get(platform)
        return p.hand_page_size if p is not None else HAND_PAGE_SIZE

    def one_screen(self, where: Where) -> bool:
        """At a terminal one person is the whole table: the group's screen is also their own."""
        p = self.platforms.get(where.platform)
        return p is not None and p.one_screen

    # ----- answering -----

    async def answer(self, event: Incoming, text: str) -> None:
        """A short answer to this event only: the adapter's notice, else a message where it came from.
        The first answer to an update is kept with its key: a platform's repeat of it gets the same."""
        if event.key in self._recent and self._recent[event.key] is None:
            self._recent[event.key] = text[:200]
        try:
            if event.reply is not None:
                await event.reply.notice(text[:200])
                return
            if event.where.platform in self.platforms:
                await self.platforms[event.where.platform].send(event.where, View(text))
        except (PlatformError, Unreachable):
            log.info("answer to %s not delivered", event.user.user_id)

    async def post(self, event: Incoming, text: str, files: Sequence[tuple[str, bytes]] = ()) -> None:
        """A longer reply (help, rules, standings) where the event came from, and its files after it:
        the event's own public answer where the platform ties one to it (`Poster`), else a message."""
        platform = self.platforms.get(event.where.platform)
        reply = event.reply
        try:
            if not (isinstance(reply, Poster) and await reply.post(View(text))):
                if platform is None:
                    raise KeyError(event.where.platform)
                await platform.send(event.where, View(text))
        except (PlatformError, Unreachable, KeyError):
            await self.answer(event, text)
        if platform is None or not platform.sends_files:
            return
        for name, data in files:
            try:
                await platform.send_file(event.where, name, data)
            except (PlatformError, Unreachable):
                log.info("file %s to %s not delivered", name, event.where.chat_id)

    # ----- events -----

    async def handle(self, event: Incoming, *, forwarded: bool = False) -> None:
        """Every adapter feeds every parsed update here; bad input gets a short answer and changes nothing.

        `forwarded`: another worker received it for a table this one drives (bot.cluster).

        Its receipt (`Incoming.receipt`, one is made when the adapter gave none) is settled once
        the update is stored, or failed when the store could not be reached: a platform that
        redelivers is then not told the update was taken (the adapter's intake), and the update
        is not remembered as seen, so that the next delivery is served. Every update waiting
        for that counts in `oldest_unsettled`."""
        if event.kind == "inline_query":
            return
        event = self._made_now(event)
        if event.receipt is None:
            event = replace(event, receipt=Receipt())
        receipt = event.receipt
        assert receipt is not None
        receipt.handed = False
        self._unsettled(receipt)
        try:
            await self._handle(event, forwarded)
        except StoreDown as exc:
            self.not_taken(event)
            log.warning("update %s not taken: %s", event.key, exc)
            if not receipt.redelivers:  # nobody sends it again: the person is told
                await self.answer(event, tr(self._lang_for(event), "err.internal"))
            return
        except BaseException:
            receipt.stored()  # a fault, not an outage: the same update would meet it again
            raise
        if not receipt.handed:
            receipt.stored()

    def _unsettled(self, receipt: Receipt) -> None:
        if receipt in self.unsettled or receipt.settled:
            return
        self.unsettled[receipt] = asyncio.get_running_loop().time()
        receipt.when_settled(lambda: self.unsettled.pop(receipt, None))

    def oldest_unsettled(self) -> float:
        """Seconds the oldest update still waiting to be stored has waited (0: none waits)."""
        if not self.unsettled:
            return 0.0
        return max(0.0, asyncio.get_running_loop().time() - min(self.unsettled.values()))

    def forget_key(self, key: str) -> None:
        """An update whose handling failed before it was stored: its next delivery is new again."""
        self._recent.pop(key, None)

    def not_taken(self, event: Incoming) -> None:
        """An update not taken here (nothing of it stored): its platform is told so (the receipt
        fails, a redelivering one sends it again) and that next delivery is new."""
        self.forget_key(event.key)
        if event.receipt is not None:
            event.receipt.failed()

    async def _handle(self, event: Incoming, forwarded: bool) -> None:
        if self.router is not None and not forwarded and await self.router.route(event):
            return
        if event.key:
            if event.key in self._recent:  # delivered again: answered as the first delivery was
                first = self._recent[event.key]
                if first is not None:
                    await self.answer(event, first)
                return  # (still being served: that delivery answers)
            if await self.store.seen_key(event.key):  # stored before, by another worker or process
                done = tr(self._lang_for(event), "err.duplicate") if event.kind == "command" else "✓"
                await self.answer(event, done)  # a move stored under its key: it was applied
                return
            self._recent[event.key] = None
            if len(self._recent) > RECENT_KEYS:
                self._recent.popitem(last=False)
        await self.load_chat(event.where.platform, event.where.chat_id)
        await self._load_user_lang(event.user.platform, event.user.user_id)
        if self.in_group(event.where):
            await self.heard(event.user, event.where)
        lang = self._lang_for(event)
        if event.kind == "command":
            await self._command(event, event.name.lower().lstrip("/"), event.args, lang)
            return
        intent = event.intent
        if intent is None:
            await self.answer(event, tr(lang, "err.garbage"))
            return
        act = intent.act
        if isinstance(act, Command):  # a typed line whose first word is no move
            if act.name in self.registry:
                await self._command(event, act.name, act.args, lang)
            else:
                await self.answer(event, tr(lang, "err.garbage"))
            return
        if isinstance(act, Unreadable) and act.reason in ("garbage", "bad_token"):
            await self.answer(event, tr(lang, moves.UNREADABLE[act.reason]))
            return
        if intent.drawn is None:  # a move typed where no table of the person's is
            await self.answer(event, tr(lang, "err.garbage"))
            return
        await self._route_drawn(event, intent.drawn, lang)

    def _made_now(self, event: Incoming) -> Incoming:
        """A typed move is made now: bound to its table's version as it arrives, before anything
        (its own earlier moves, the AI seats after them) can move that table on, so that it is
        checked against this turn and is never played at a later one."""
        intent = event.intent
        if intent is None or intent.drawn is not None or isinstance(intent.act, Command) or (
                isinstance(intent.act, Unreadable) and intent.act.reason in ("garbage", "bad_token")):
            return event
        table = self._table_for(event)
        if table is None:
            return event
        version = table.match.version if table.match is not None else 0
        return replace(event, intent=Intent(intent.act, Drawn(table.id, version)))

    async def _route_drawn(self, event: Incoming, drawn: Drawn, lang: str) -> None:
        """An intent drawn for a table (a button, an inline choice, the web page) goes to that table."""
        assert event.intent is not None
        table = self.tables.get(drawn.match_id)
        if table is None or table.platform_name != event.where.platform or (
                not event.where.private and table.chat_id != event.where.chat_id):
            await self.answer(event, tr(lang, "err.wrong_match"))
            return
        table.submit(Event(event, event.intent))

    def glance(self, platform: str, chat_id: str, user_id: str) -> TableGlance | None:
        """What a person's own front end may read of the open table in this chat (the terminal)."""
        table = self.by_chat.get((platform, chat_id))
        if table is None:
            return None
        s = table.seat_of(user_id)
        hand: tuple[str, ...] = ()
        hand_no = 0
        if table.match is not None:
            hand_no = int(table.public().get("hand_no", 1))
            if s is not None:
                hand = tuple(table.seat_view(s).get("hand") or ())
        return TableGlance(table.id, table.status, hand_no, hand)

    # ----- live watchers (the web table, bot.live) -----

    async def live_load(self, match_id: int) -> None:
        """Before a page's hello is answered: with several workers, a table driven elsewhere is read
        from the store (its replica, bot.live_follow), so that the calls below know it too."""
        if match_id not in self.tables and self.follower is not None:
            await self.follower.load(match_id)

    def _live_table(self, match_id: int) -> Table | None:
        table = self.tables.get(match_id)
        if table is None and self.follower is not None:
            table = self.follower.view(match_id)
        return table

    def live_where(self, match_id: int, platform: str) -> Where | None:
        """The group of an open table of this platform, or None (a web page names its table by id)."""
        table = self._live_table(match_id)
        if table is None or table.platform_name != platform or table.status not in ("lobby", "active", "paused"):
            return None
        return table.where

    async def live_next(self, match_id: int, platform: str) -> int | None:
        """The open game that follows `match_id` in its best of three: a page of a game that ended
        follows the series to it (`WebTable.socket`). With several workers it is looked up in the
        store when this worker does not drive it, and read as a replica (its seats known here)."""
        for table in self.tables.values():
            series = table.meta.series
            if (series is not None and series.previous == match_id and table.platform_name == platform
                    and table.status in ("lobby", "active", "paused")):
                return table.id
        if self.follower is not None:
            return await self.follower.next_game(match_id, platform)
        return None

    def live_seat(self, match_id: int, user_id: str) -> int | None:
        """The seat this person holds at an open table (None: an onlooker)."""
        table = self._live_table(match_id)
        return None if table is None else table.seat_of(user_id)

    def live_board(self, match_id: int) -> bool:
        """Whether this open table plays a board (its onlookers must be known: they have seen it)."""
        table = self._live_table(match_id)
        return table is not None and table.meta.board is not None

    def watch(self, match_id: int, watch: Watch) -> bool:
        """`watch` is sent this table's frames from now on, the first at once; False if no such table."""
        table = self.tables.get(match_id)
        if table is None and self.follower is not None:
            replica = self.follower.view(match_id)
            if replica is None:
                return False
            self.live.add(replica, watch)  # a table driven elsewhere: its replica's frames
            self.follower.watchers_changed()
            return True
        if table is None or table.closed:
            return False
        table.submit(WatchLive(watch))
        return True

    def unwatch(self, match_id: int, fn: Watcher) -> None:
        table = self.tables.get(match_id)
        if table is not None and not table.closed:
            table.submit(UnwatchLive(fn))
        else:
            self.live.remove(match_id, fn)
            if self.follower is not None:
                self.follower.watchers_changed()

    def live_seen(self, match_id: int, fn: Watcher, hidden: bool) -> None:
        """A watcher's page was hidden or shown again: a seat whose pages are all hidden for a while
        is told in its chat again (`bot.live.WEB_GRACE`)."""
        table = self.tables.get(match_id)
        if table is not None and not table.closed:
            table.submit(SeenLive(fn, hidden))
        else:
            self.live.seen(match_id, fn, hidden)
            if self.follower is not None:
                self.follower.watchers_changed()

    def remote_watchers(self, worker: str, tables: dict[int, frozenset[int] | None]) -> None:
        """Another worker serves pages of these tables (the seats watched there; None: no more): the
        tables driven here learn it, in order with their other messages (`WebSeats`)."""
        for match_id, seats in tables.items():
            if seats is None:
                self.forget_watcher(match_id, worker)
                continue
            table = self.tables.get(match_id)
            if table is not None and self.live.remote.get(match_id, {}).get(worker) != seats:
                table.submit(WebSeats(worker, seats))

    def forget_watcher(self, match_id: int, worker: str) -> None:
        """`worker` serves no page of this table any more (it said so, or it is gone)."""
        table = self.tables.get(match_id)
        if table is not None and not table.closed:
            table.submit(WebSeats(worker, None))
        else:
            self.live.set_remote(match_id, worker, None)

    async def was_seated(self, match_id: int, user_id: str) -> bool:
        """Whether this person holds (or held) a seat of this match, open or finished."""
        table = self.tables.get(match_id)
        if table is not None:
            return table.seat_of(user_id) is not None
        stored = await self.store.get_match(match_id)
        return stored is not None and any(str(s.get("user_id")) == user_id for s in stored.seats
                                          if s.get("kind") == "human")

    async def replay(self, platform: str, chat_of: int, match_id: int, hand_no: int,
                     user_id: str | None = None) -> Replay | None:
        """A finished hand of the chat of match `chat_of`, trick by trick (`bot.replays`); a board's
        only for someone who played it."""
        return await hand_replay(self.store, platform, chat_of, match_id, hand_no, user_id)

    async def review(self, platform: str, chat_of: int, match_id: int, hand_no: int, user_id: str,
                     lang: str) -> Told | str:
        """A person's own review of a finished hand of the chat of match `chat_of` (`bot.review`), or
        the catalog key saying why there is none."""
        return await chat_review(self.store, platform, chat_of, match_id, hand_no, user_id, lang)

    def message_ids(self, platform: str) -> list[str]:
        """Every message id the open tables of a platform keep (a new process must not hand them out again)."""
        return [mid for t in self.tables.values() if t.platform_name == platform for mid in t.messages.values()]

    def ended_as(self, platform: str, chat_id: str) -> str | None:
        """How the table that last closed in this chat ended ("finished", "abandoned"), if one did."""
        return self.ended.get((platform, chat_id))

    def has_table(self, platform: str, chat_id: str) -> bool:
        """Whether a table is open in this chat."""
        return (platform, chat_id) in self.by_chat

    def latest_chat_of(self, platform: str, user_id: str) -> str | None:
        """The chat of the newest open table this person sits at, if any (what the terminal resumes)."""
        mine = self.chats_of(platform, user_id)
        return mine[0] if mine else None

    def chats_of(self, platform: str, user_id: str) -> list[str]:
        """The chats of every open table this person sits at, newest first (the terminal lets them pick)."""
        mine = [t for t in self.tables.values() if t.platform_name == platform and t.seat_of(user_id) is not None]
        return [t.chat_id for t in sorted(mine, key=lambda t: t.id, reverse=True)]

    def _table_for(self, event: Incoming) -> Table | None:
        """The table an event is about: the chat's own, or (privately) the one the person sits at."""
        where = event.where
        table = self.by_chat.get((where.platform, where.chat_id))
        if table is not None or not where.private:
            return table
        mine = [t for t in self.tables.values() if t.platform_name == where.platform
                and t.seat_of(event.user.user_id) is not None]
        for t in mine:
            s = t.seat_of(event.user.user_id)
            if t.match is not None and s in t.match.to_act():
                return t
        return mine[0] if mine else None

    def in_group(self, where: Where) -> bool:
        """A group chat, or a terminal (where the group's screen is the one person's own)."""
        return not where.private or self.one_screen(where)

    async def _command(self, event: Incoming, name: str, args: tuple[str, ...], lang: str) -> None:
        """A command, by the registry: its words checked, then its feature's handler, else the table."""
        command, elsewhere = self.registry.find(name, self.in_group(event.where))
        if command is None:
            if elsewhere is None:
                await self.answer(event, unknown_command_text(lang, name))
            else:  # seats and votes are the group's business: said there, where the others see it
                key = elsewhere.wrong_place or ("cmd.in_group" if elsewhere.place == "group" else "err.private_only")
                await self.answer(event, tr(lang, key, command=name))
            return
        try:
            typed = self.registry.parse(command, args, lang)
        except Refusal as exc:
            await self.answer(event, exc.text(lang))
            return
        if command.handler is not None:
            await command.handler(Call(event, command, typed, lang))
            return
        if event.where.private and name == "back":
            tables = [t for t in self.tables.values() if t.platform_name == event.where.platform
                      and t.seat_of(event.user.user_id) is not None]
            for t in tables:
                t.submit(Event(event))
            if not tables:
                await self.answer(event, tr(lang, "err.no_match"))
            return
        table = self._table_for(event)
        if table is None:
            await self.answer(event, tr(lang, "err.no_match"))
            return
        table.submit(Event(event))

    def presets(self) -> tuple[str, ...]:
        return tuple(getattr(self.engine, "PRESETS", None) or ("classic", "competition", "chaodipi", "super"))

    # ----- values offered as one types -----

    async def suggest(self, ask: Ask) -> list[Suggestion]:
        """What may go into the argument `ask` is typing, here (`bot.suggestions`); none if it fails."""
        try:
            found = await self.registry.suggest(ask, self.in_group(ask.where))
        except Exception:
            log.exception("suggestions for %s %s failed", ask.command, ask.arg)
            return []
        return found[:SHOWN]

    # ----- inline mode -----

    async def inline_choices(self, user: User, where: Where, query: str) -> list[InlineChoice]:
        """The legal plays of `user` at the table of `where`, for inline mode (only ever their own cards)."""
        for feature in self.features:
            choices = await feature.inline_choices(user, where, query)
            if choices is not None:
                return choices
        return []

    def inline_reason(self, user: User, where: Where) -> str:
        """Why `user` has nothing to choose in inline mode, in a line."""
        for feature in self.features:
            reason = feature.inline_reason(user, where)
            if reason is not None:
                return reason
        return tr(self.user_lang(user) or self.chat_lang(where.platform, where.chat_id), "inline.not_seated")


def _rebuild(rules: dict[str, JSON], seed: int, actions: list[dict[str, JSON]]) -> Match:
    return Match.replay(Rules.from_dict(rules), seed, actions)
