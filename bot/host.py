"""The host: routes every platform event to the right table actor, and owns the lobby commands.

The host knows no platform and no SQL: adapters call `handle` with parsed
events and render the `View`s the host hands them; the store persists.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import logging
import random
from collections import Counter, OrderedDict
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from bot import tokens
from bot.actions import ACTION_WORDS
from bot.cardtext import parse_typed_card
from bot.clock import CallableClock, Clock, SystemClock
from bot.i18n import DEFAULT_LANG, LANGS, normalize_lang, tr, unknown_command_text
from bot.platform import Incoming, Platform, PlatformError, Unreachable, User, View, Where
from bot.settings import OptionError, TableSettings, parse_new_args, settings_with
from bot.table import AI_REFRESH, Item, Table
from bot.views import HAND_PAGE_SIZE, InlineChoice, play_choices, rules_summary

FORMATS = {"single": "single", "bo3": "best_of_3", "best_of_3": "best_of_3", "timed": "timed"}

log = logging.getLogger(__name__)

TABLE_COMMANDS = frozenset({"join", "leave", "start", "addbot", "kick", "back", "pause", "resume", "abandon",
                            "hand", "table"})
LEAGUE_COMMANDS = frozenset({"standings", "stats", "history", "season", "export", "ranking"})
HOST_COMMANDS = frozenset({"new", "rules", "lang", "help"})
ALL_COMMANDS = TABLE_COMMANDS | LEAGUE_COMMANDS | HOST_COMMANDS
RECENT_KEYS = 50_000
JOIN_PAYLOAD = "join-"  # deep-link payload: join-<match id>
# AI levels that decide in well under a millisecond (`basic` about 0.2 ms, p99 0.5 ms): asked on the
# event loop, since a worker thread's hand-over costs about as much and the GIL gives no parallelism.
INLINE_LEVELS = frozenset({"random", "basic"})
# Tables in the middle of an automatic step at once (see Table._advance): few enough that one
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


class Host:
    """Routes platform events to tables; owns no platform and no SQL."""

    def __init__(self, store: Any, *, ai_threads: int = 2, clock: Any = None,
                 defaults: TableSettings | None = None, engine: Any = None, use_ai_threads: bool = True,
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
        elif hasattr(clock, "now") and hasattr(clock, "sleep_until"):
            self.clock = clock
        else:
            self.clock = CallableClock(clock)
        self.defaults = defaults or TableSettings()
        self.rng = rng or random.SystemRandom()  # match seeds; tests pass a seeded Random
        self.engine = engine if engine is not None else importlib.import_module("engine")
        self.use_ai_threads = use_ai_threads and ai_threads > 0
        self.executor = ThreadPoolExecutor(max(1, ai_threads), thread_name_prefix="ai")
        self.platforms: dict[str, Platform] = {}
        self.tables: dict[int, Table] = {}
        self.by_chat: dict[tuple[str, str], Table] = {}
        self.chats: dict[tuple[str, str], dict[str, Any]] = {}
        self.user_langs: dict[tuple[str, str], str] = {}
        self._recent: OrderedDict[str, None] = OrderedDict()
        self._chat_locks: dict[tuple[str, str], asyncio.Lock] = {}

    # ----- lifecycle -----

    def register(self, platform: Platform) -> None:
        """Adds an adapter; events from it name it by `platform.name`."""
        self.platforms[platform.name] = platform

    async def start(self) -> None:
        """Loads unfinished matches of the registered platforms, replays them, refreshes their messages, re-arms timers."""
        loaded: list[Table] = []
        for stored in await self.store.load_unfinished():
            if stored.platform not in self.platforms or stored.id in self.tables:
                continue
            await self._load_chat(stored.platform, stored.chat_id)
            try:
                table = Table(self, match_id=stored.id, platform=stored.platform, chat_id=stored.chat_id,
                              rules=stored.rules, seats=stored.seats, seed=stored.seed, meta=stored.meta,
                              status=stored.status, messages=stored.messages, deadlines=stored.deadlines,
                              actions=stored.actions)
            except Exception as exc:
                log.exception("match %s cannot be replayed", stored.id)
                mark = getattr(self.store, "mark_broken", None)
                if mark is not None:
                    await mark(stored.id, f"replay failed: {exc}")
                continue
            for s in table.humans():
                await self._load_user_lang(stored.platform, str(table.seats[s]["user_id"]))
            loaded.append(table)
        # Started only once all are loaded: a table of AIs at full speed would otherwise hold up the
        # loading of every table after it (they share the store).
        for table in loaded:
            self._add(table)
            table.submit(Item("resume"))

    async def stop(self) -> None:
        """Stops every table actor and timer; the store stays open (the caller owns it)."""
        tables = list(self.tables.values())
        for t in tables:
            t.closed = True  # no table starts another step while the others are being stopped
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
                if t.ai_pending is not None and not t.ai_pending.done():
                    with contextlib.suppress(Exception):
                        await asyncio.wait([t.ai_pending])
                await t.queue.join()

    def refresh_interval(self) -> float:
        """Seconds between a table's refreshes during a burst of AI moves: `ai_refresh`, or longer
        when there are so many tables that all of them together would exceed
        `ai_refreshes_per_second`."""
        return max(self.ai_refresh, len(self.tables) / self.ai_refreshes_per_second)

    def _add(self, table: Table) -> None:
        self.tables[table.id] = table
        self.by_chat[(table.platform_name, table.chat_id)] = table
        table.start()

    def forget(self, table: Table) -> None:
        """A table that ended leaves the routing maps (its actor finishes its current item)."""
        self.tables.pop(table.id, None)
        if self.by_chat.get((table.platform_name, table.chat_id)) is table:
            self.by_chat.pop((table.platform_name, table.chat_id), None)

    # ----- languages and settings -----

    async def _load_chat(self, platform: str, chat_id: str) -> dict[str, Any]:
        key = (platform, chat_id)
        if key not in self.chats:
            self.chats[key] = dict(await self.store.get_chat(platform, chat_id) or {})
        return self.chats[key]

    async def _load_user_lang(self, platform: str, user_id: str) -> None:
        get = getattr(self.store, "get_player", None)
        if get is None or (platform, user_id) in self.user_langs:
            return
        p = await get(platform, user_id)
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
        """Private chats: the person's language; groups: the chat's, else the person's."""
        chat = self.chats.get((event.where.platform, event.where.chat_id), {}).get("lang")
        if event.where.private or chat not in LANGS:
            return self.user_lang(event.user) or self.chat_lang(event.where.platform, event.where.chat_id)
        return str(chat)

    def page_size(self, platform: str) -> int:
        p = self.platforms.get(platform)
        return int(getattr(p, "hand_page_size", HAND_PAGE_SIZE))

    # ----- answering -----

    async def answer(self, event: Incoming, text: str) -> None:
        """A short answer to this event only: the adapter's notice, else a message where it came from."""
        try:
            if event.reply is not None:
                await event.reply.notice(text[:200])
                return
            if event.where.platform in self.platforms:
                await self.platforms[event.where.platform].send(event.where, View(text))
        except (PlatformError, Unreachable):
            log.info("answer to %s not delivered", event.user.user_id)

    async def _post(self, event: Incoming, text: str) -> None:
        """A longer reply (help, rules) as a message where the event came from."""
        try:
            await self.platforms[event.where.platform].send(event.where, View(text))
        except (PlatformError, Unreachable, KeyError):
            await self.answer(event, text)

    # ----- events -----

    async def handle(self, event: Incoming) -> None:
        """Every adapter feeds every parsed update here; bad input gets a short answer and changes nothing."""
        if event.kind == "inline_query":
            return
        if event.key:
            if event.key in self._recent or await self.store.seen_key(event.key):
                await self.answer(event, tr(self._lang_for(event), "err.duplicate"))
                return
            self._recent[event.key] = None
            if len(self._recent) > RECENT_KEYS:
                self._recent.popitem(last=False)
        await self._load_chat(event.where.platform, event.where.chat_id)
        await self._load_user_lang(event.user.platform, event.user.user_id)
        lang = self._lang_for(event)
        if event.kind in ("press", "chosen"):
            await self._route_press(event, lang)
        elif event.kind == "command":
            await self._command(event, event.name.lower().lstrip("/"), event.args, lang)
        elif event.kind == "text":
            words = event.text.strip().split()
            if not words or len(event.text) > 2000:
                await self.answer(event, tr(lang, "err.garbage"))
                return
            first = words[0].lower().lstrip("/")
            if first in ALL_COMMANDS:
                await self._command(event, first, tuple(words[1:]), lang)
                return
            table = self._table_for(event)
            if table is None or first not in ACTION_WORDS:
                await self.answer(event, tr(lang, "err.garbage"))
                return
            table.submit(Item("event", event=event))

    async def _route_press(self, event: Incoming, lang: str) -> None:
        try:
            tok = tokens.parse(event.token)
        except tokens.BadToken:
            await self.answer(event, tr(lang, "err.bad_token"))
            return
        table = self.tables.get(tok.match_id)
        if table is None or table.platform_name != event.where.platform or (
                not event.where.private and table.chat_id != event.where.chat_id):
            await self.answer(event, tr(lang, "err.wrong_match"))
            return
        table.submit(Item("event", event=event))

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

    async def _command(self, event: Incoming, name: str, args: tuple[str, ...], lang: str) -> None:
        if name == "help":
            await self._post(event, tr(lang, "help.text"))
        elif name == "lang":
            await self._lang(event, args, lang)
        elif name == "new":
            await self._new(event, args, lang)
        elif name == "rules":
            await self._rules(event, args, lang)
        elif name in LEAGUE_COMMANDS:
            await self._league(event, name, args, lang)
        elif name == "start" and event.where.private and event.where.platform != "console":
            await self._private_start(event, args, lang)
        elif name in TABLE_COMMANDS:
            if event.where.private and name == "back":
                tables = [t for t in self.tables.values() if t.platform_name == event.where.platform
                          and t.seat_of(event.user.user_id) is not None]
                for t in tables:
                    t.submit(Item("event", event=event))
                if not tables:
                    await self.answer(event, tr(lang, "err.no_match"))
                return
            table = self._table_for(event)
            if table is None:
                await self.answer(event, tr(lang, "err.no_match"))
                return
            table.submit(Item("event", event=event))
        else:
            await self.answer(event, unknown_command_text(lang, name))

    async def _private_start(self, event: Incoming, args: tuple[str, ...], lang: str) -> None:
        """`start <payload>` in a private chat: a deep link (join-<match id>), else a greeting with help."""
        payload = args[0] if args else ""
        if not payload.startswith(JOIN_PAYLOAD):
            await self._post(event, tr(lang, "help.text"))
            return
        try:
            mid = int(payload[len(JOIN_PAYLOAD):])
        except ValueError:
            mid = -1
        table = self.tables.get(mid)
        if table is None or table.platform_name != event.where.platform:
            await self.answer(event, tr(lang, "err.wrong_match"))
            return
        join = Incoming("command", event.user, event.where, key=event.key, name="join", reply=event.reply,
                        extra=event.extra)
        table.submit(Item("event", event=join))

    async def _lang(self, event: Incoming, args: tuple[str, ...], lang: str) -> None:
        want = normalize_lang(args[0]) if args else None
        if want is None:
            await self.answer(event, tr(lang, "lang.usage"))
            return
        if event.where.private or event.where.platform == "console":  # at the terminal, one person is both
            self.user_langs[(event.user.platform, event.user.user_id)] = want
            await self.store.upsert_player(event.user.platform, event.user.user_id, event.user.name, want)
            for t in self.tables.values():
                s = t.seat_of(event.user.user_id)
                if s is not None and t.platform_name == event.user.platform:
                    t.seats[s]["lang"] = want
                    t.rendered.pop(f"hand{s}", None)
                    t.submit(Item("render"))
        if not event.where.private:
            chat = await self._load_chat(event.where.platform, event.where.chat_id)
            chat["lang"] = want
            await self.store.set_chat(event.where.platform, event.where.chat_id, chat)
            table = self.by_chat.get((event.where.platform, event.where.chat_id))
            if table is not None:
                table.rendered.clear()
                table.submit(Item("render"))
        await self._post(event, tr(want, "lang.set"))

    def presets(self) -> tuple[str, ...]:
        return tuple(getattr(self.engine, "PRESETS", None) or ("classic", "competition", "chaodipi", "super"))

    async def _new(self, event: Incoming, args: tuple[str, ...], lang: str) -> None:
        if event.where.private and event.where.platform != "console":
            await self.answer(event, tr(lang, "err.no_match"))
            return
        key = (event.where.platform, event.where.chat_id)
        lock = self._chat_locks.setdefault(key, asyncio.Lock())
        async with lock:
            if key in self.by_chat:
                await self.answer(event, tr(lang, "new.exists", id=self.by_chat[key].id))
                return
            chat = await self._load_chat(*key)
            saved = chat.get("timers")
            remembered: dict[str, str] = {str(k): str(v) for k, v in saved.items()} if isinstance(saved, dict) else {}
            try:
                preset, rule_opts, table_opts = parse_new_args(args, self.presets())
                fmt = FORMATS.get(rule_opts.pop("format", "single").lower())
                if fmt is None:
                    raise OptionError("format")
                # timers given once stay the chat's own (per-chat timeouts); rules are per match
                settings = settings_with(self.defaults, {**remembered, **table_opts})
                rules = self.engine.preset(preset, **rule_opts)
            except OptionError as exc:
                await self.answer(event, tr(lang, "new.bad_option", option=exc.option[:40]))
                return
            except (ValueError, TypeError, KeyError) as exc:
                await self.answer(event, tr(lang, "new.bad_option", option=str(exc)[:80]))
                return
            if table_opts:
                chat["timers"] = {**remembered, **table_opts}
                await self.store.set_chat(*key, chat)
            if "lang" not in chat:
                ulang = normalize_lang(event.user.language)
                if ulang:
                    chat["lang"] = ulang
                    await self.store.set_chat(*key, chat)
                    lang = ulang
            seed = self.rng.randrange(1, 2**31)
            if fmt == "single" and rules.time_limit_minutes:
                fmt = "timed"
            meta = {"preset": preset, "creator": event.user.user_id, "creator_name": event.user.name[:32],
                    "options": " ".join(args[1:] if args and "=" not in args[0] else args)[:200],
                    "settings": settings.to_dict(), "format": fmt}
            if fmt == "best_of_3":
                meta["series"] = {"wins": [0, 0], "game": 1}
            seats: list[dict[str, Any]] = [{"kind": "empty"} for _ in range(4)]
            mid = await self.store.create_match(event.where.platform, event.where.chat_id, rules.to_dict(), seats,
                                                seed, meta, status="lobby")
            table = Table(self, match_id=mid, platform=event.where.platform, chat_id=event.where.chat_id,
                          rules=rules.to_dict(), seats=seats, seed=seed, meta=meta, status="lobby")
            self._add(table)
            if settings.lobby > 0:
                table.deadlines["lobby"] = self.clock.now() + settings.lobby
                await self.store.set_deadline(mid, "lobby", table.deadlines["lobby"])
            await self.answer(event, tr(lang, "new.created", id=mid))
            table.submit(Item("event", event=Incoming("command", event.user, event.where, key="", name="join")))

    async def _rules(self, event: Incoming, args: tuple[str, ...], lang: str) -> None:
        table = self.by_chat.get((event.where.platform, event.where.chat_id))
        try:
            if args:
                rules = self.engine.preset(args[0].lower()).to_dict()
            elif table is not None:
                rules = table.rules
            else:
                rules = self.engine.preset("classic").to_dict()
        except (ValueError, KeyError):
            await self.answer(event, tr(lang, "new.bad_preset", preset=args[0][:20], presets=", ".join(self.presets())))
            return
        if args[1:2] != ("all",):
            await self._post(event, rules_summary(rules, lang))
            return
        lines = [tr(lang, "rules.title", preset=rules.get("name", "?"))]
        lines += [f"{k} = {v}" for k, v in rules.items() if k != "name"]
        await self._post(event, "\n".join(lines))

    async def _league(self, event: Incoming, name: str, args: tuple[str, ...], lang: str) -> None:
        try:
            league = importlib.import_module("bot.league")
            command = league.league_command
        except (ImportError, AttributeError):
            await self.answer(event, unknown_command_text(lang, name))
            return
        reply = await command(self.store, event.where, event.user, name, args, lang,
                              event.extra.get("admin") == "1")
        await self._post(event, str(getattr(reply, "text", reply)))
        # Pictures and CSV go out where the adapter can send files (optional `send_file` on the platform).
        send_file = getattr(self.platforms.get(event.where.platform), "send_file", None)
        if send_file is None:
            return
        files = [(f"{name}.png", getattr(reply, "image_png", None)),
                 (f"{name}.csv", (getattr(reply, "csv", None) or "").encode("utf-8") or None)]
        for filename, data in files:
            if data:
                try:
                    await send_file(event.where, filename, data)
                except (PlatformError, Unreachable):
                    log.info("file %s not delivered", filename)

    async def next_in_series(self, old: Table, result: dict[str, Any]) -> None:
        """Best of three: after a game, deal the next one to the same seats until a side has won two."""
        series = old.meta.get("series")
        winner = result.get("winner_team")
        if not isinstance(series, dict) or winner not in (0, 1):
            return
        wins = [int(w) for w in series.get("wins", [0, 0])]
        wins[int(winner)] += 1
        lang = old.lang
        names = {f"team{t}": tr(lang, f"team.{t}") for t in (0, 1)}
        if max(wins) >= 2:
            await old.say(tr(lang, "series.over", team=names[f"team{int(winner)}"], w0=wins[0], w1=wins[1]))
            return
        key = (old.platform_name, old.chat_id)
        if key in self.by_chat:
            return
        game = int(series.get("game", 1)) + 1
        meta = {**old.meta, "series": {"wins": wins, "game": game, "previous": old.id}}
        meta.pop("announced_hand", None)
        seats = [dict(seat) for seat in old.seats]
        seed = self.rng.randrange(1, 2**31)
        mid = await self.store.create_match(old.platform_name, old.chat_id, old.rules, seats, seed, meta,
                                            status="lobby")
        table = Table(self, match_id=mid, platform=old.platform_name, chat_id=old.chat_id, rules=old.rules,
                      seats=seats, seed=seed, meta=meta, status="lobby")
        self._add(table)
        await table.say(tr(lang, "series.next", game=game, w0=wins[0], w1=wins[1], **names))
        starter = User(old.platform_name, str(meta.get("creator", "")), str(meta.get("creator_name", "")))
        table.submit(Item("event", event=Incoming("command", starter, table.where, key="", name="start")))

    async def record_league(self, table: Table, result: dict[str, Any]) -> None:
        """Hands a finished match to the league module, when it is installed."""
        try:
            bridge = importlib.import_module("bot.league_bridge")
        except ImportError:
            return
        try:
            await bridge.record(self.store, table, result)
        except Exception:
            log.exception("league recording failed for match %s", table.id)

    # ----- inline mode -----

    async def inline_choices(self, user: User, where: Where, query: str) -> list[InlineChoice]:
        """The legal plays of `user` at the table of `where`, for inline mode (only ever their own cards)."""
        table = self.by_chat.get((where.platform, where.chat_id))
        if table is None or table.seat_of(user.user_id) is None:
            mine = [t for t in self.tables.values() if t.platform_name == where.platform
                    and t.match is not None and t.seat_of(user.user_id) in t.match.to_act()]
            table = mine[0] if mine else None
        if table is None or table.match is None or table.status != "active":
            return []
        s = table.seat_of(user.user_id)
        m = table.match
        if s is None or m.phase != "playing" or m.to_act() != [s]:
            return []
        lang = table.seat_lang(s)
        legal = m.legal_actions(s)
        wanted = Counter(c for c in (parse_typed_card(w) for w in query.split()[:40]) if c is not None)
        if wanted:
            exact = {"t": "play", "seat": s, "cards": sorted(wanted.elements())}
            legal = [a for a in legal if not wanted - Counter(a.get("cards", []))]
            if m.check(exact) is None and not any(Counter(a.get("cards", [])) == wanted for a in legal):
                legal.insert(0, exact)  # the typed cards are a legal play the (bounded) list left out
        return play_choices(table.seat_view(s), legal, lang, match_id=table.id, version=m.version, limit=50,
                            seats=table.seat_infos(), group_lang=table.lang)
