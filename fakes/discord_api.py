"""A fake Discord REST API and gateway on 127.0.0.1 for the real discord.py client.

It plays Discord's part in adapter tests: it answers login, hands the client a
gateway session, dispatches interactions that simulated users make (slash
commands, autocomplete, button presses, select choices) and records every
message the bot sends, keeping what is ephemeral or in a DM (seen by one user)
apart from what the whole channel sees. It is as strict as Discord where that
bites in production, by default:

- an interaction is answered once and within 3 s (else 404 10062);
- an interaction token lives 15 minutes by the people's clock (`advance` ages
  it; then 401 with code 50027, "Invalid Webhook Token");
- a token edits or deletes only the messages of its own interaction (its
  response, its follow-ups, the message its component was on), else 404 10008;
- the first follow-up after a deferred ("thinking") reply fills that reply;
- content over 2,000 characters, more than 5 rows or 5 items a row, a select
  with more than 25 options, a custom_id over 100 characters, a label over 80:
  400 with code 50035, nothing stored;
- commands registered as Discord takes them (`command_problems`): names of 1-32
  lower-case letters, digits, - and _; descriptions of 1-100 characters; the
  localisations' keys among Discord's locales; at most 25 options and choices,
  required options first; else 400 with code 50035, nothing stored;
- and what `fakes.discord_rules` adds: embed limits, empty messages (50006), callback types that
  fit the interaction, autocomplete choices within bounds, the invalid-request limit; nothing
  delivered that Discord would not deliver (`_deliverable`; `forged=True` sends it anyway);
  ephemeral messages gone after a client `reload`;
- rate limits: per route (a channel's messages 5 per 5 s, an interaction
  token's webhook 5 per 2 s) and 50 requests a second in all (interaction
  endpoints excepted), every answer with `X-RateLimit-*` headers and a 429 with
  `retry_after` beyond them (on Discord's clock, see below);
- the gateway expects heartbeats within the interval it gave, resumes only a
  session it knows (else op 9, invalid session), and can be told to drop one;
- sharding as Discord routes it: IDENTIFY carries `shard: [id, count]` (an id
  outside the count closes with 4010, fewer shards than required with 4011); a
  guild's events go to a session of shard `(guild_id >> 22) % count`, DMs to
  shard 0, and an event whose shard has no session is lost (`undelivered`);
  `GET /gateway/bot` gives the recommended `shard_count` and the
  `session_start_limit`; one identify per `max_concurrency` bucket
  (`shard_id % max_concurrency`) in 5 s, a faster one answered with op 9.
  Discord lets two sessions identify for one shard (both stay; here the newest
  gets the events): the fake counts it in `shard_overlaps`, for tests that
  require one session a shard.

`limits=False` turns the rate limits off, for benchmarks that measure the bot
alone; nothing else is optional.

Two clocks, both moved on by `advance`:

- Discord's clock (`discord_now`) keeps the rate-limit windows and the
  identify window. `scale` is how many real seconds one Discord second
  lasts (1 by default; tests run it fast, as `fakes.telegram_api.Limits`
  does): the counts a window allows are Discord's, only the windows pass
  sooner. `math.inf` stops it: only `advance` moves it, for a test of a
  refusal within a window that must not hang on the machine's speed (it
  must not wait a window out then). The durations the client reads (`retry_after`,
  `X-RateLimit-Reset-After`) are real seconds, since discord.py sleeps them
  out on the real clock: it never waits a real second for a fake one.
- The people's clock (`now`: real time plus `advance`) stamps interactions
  and keeps the 3-second answer window and the 15-minute tokens. It is
  never scaled: the 3 s measure how long the bot really took, and a scaled
  window would call a sound bot late whenever the machine is busy. Tests
  age tokens and interactions with `advance` (or `age=`), never by waiting.

The server runs in a thread with its own event loop (`fakes.threaded`), as
Discord runs apart from the bot: an interaction is stamped when the user
acts, and a bot that blocks its loop is late as it would be on Discord.
Test code calls the same API from its loop (`await fake.slash(...)` runs
the dispatch on the server's); `after` makes a user act a moment later by
the server's clock, even while the bot's loop is blocked. The leak
`observer` is called on the loop that started the fake, when a write
arrives.

Tests wait on events, never on quiet periods: `until(predicate)` wakes
whenever the fake's state changes, `answered()` waits for every delivered
interaction's answer, `delivered()` is a gateway barrier (the client's
heartbeat, asked for with op 1, carries the last event it read), `quiet()`
waits for no request of the bot to be open, `handled()` for the discord.py
handlers on the caller's loop, and `settle()` for the last three.

Past 400 lines: it is one server, REST and gateway, whose parts share the
state a test inspects.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import itertools
import json
import math
import time
from collections.abc import AsyncIterator, Callable, Coroutine, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import discord
import discord.gateway
import discord.http
import yarl
from aiohttp import BodyPartReader, WSMsgType, web

from fakes.discord_rules import (
    COMMAND,
    COMPONENT,
    INVALID_LIMIT,
    InvalidRequests,
    callback_problem,
    choice_problems,
    embed_problems,
    empty,
)
from fakes.threaded import ServerThread, Shared, Signal

JSON = dict[str, Any]
EPHEMERAL = 64
ADMINISTRATOR, SEND_MESSAGES, SEND_IN_THREADS = 1 << 3, 1 << 11, 1 << 38
ALL_PERMISSIONS = (1 << 50) - 1
_BODY: web.RequestKey[Any] = web.RequestKey("body", object)
_ARRIVED: web.RequestKey[float] = web.RequestKey("arrived", float)  # by the people's clock
_SNAPSHOT: contextvars.ContextVar[Any] = contextvars.ContextVar("snapshot", default=None)  # the observer's, per request
ANSWER_WINDOW_S = 3.0
TOKEN_LIFE_S = 15 * 60.0
CHANNEL_LIMIT = (5, 5.0)  # writes to one channel's messages: 5 per 5 s
WEBHOOK_LIMIT = (5, 2.0)  # requests on one interaction token's webhook
GLOBAL_LIMIT = (50, 1.0)  # all requests of the bot but interaction callbacks
IDENTIFY_WINDOW_S = 5.0  # max_concurrency identifies a bucket in this window
MAX_CONTENT, MAX_ROWS, MAX_ROW_ITEMS, MAX_OPTIONS, MAX_CUSTOM_ID, MAX_LABEL = 2000, 5, 5, 25, 100, 80

# Interaction callback types (Discord API).
PONG, MESSAGE, DEFERRED_MESSAGE, DEFERRED_UPDATE, UPDATE_MESSAGE, AUTOCOMPLETE, MODAL = 1, 4, 5, 6, 7, 8, 9


# The tasks discord.py starts for the events it reads: the client's `on_` handlers, the command tree,
# views, dynamic items and modals (their names in discord.py 2.x).
_HANDLER_TASKS = ("discord.py: ", "CommandTree-invoker", "discord-ui-view-dispatch-", "discord-ui-dynamic-item-",
                  "discord-ui-modal-")


#: How long a wait on the fake's events may take before it counts as a hang: it ends as soon as the
#: event comes, so this only has to outlast a loaded machine (30 s did not, for the 10,000-press fuzz
#: at a load of 20).
HANG_S = 90.0


def _now() -> str:
    return datetime.now(UTC).isoformat()


async def handled(timeout: float = HANG_S) -> None:
    """Until the discord.py clients on the running loop have run every handler of the events they
    read: each runs in a task discord.py names when it parses the event (after `delivered`, they all
    exist). Handlers that start handlers are waited for too."""
    me = asyncio.current_task()
    try:
        async with asyncio.timeout(timeout):
            while busy := [t for t in asyncio.all_tasks() if t is not me and t.get_name().startswith(_HANDLER_TASKS)]:
                await asyncio.wait(busy)
    except TimeoutError:
        raise AssertionError(f"discord.py handlers still running after {timeout} s") from None


def _json(data: Any, status: int = 200) -> web.Response:
    """discord.py only parses bodies typed exactly application/json."""
    return web.Response(status=status, body=json.dumps(data).encode(), headers={"Content-Type": "application/json"})


def _error(status: int, code: int, message: str) -> web.Response:
    return _json({"code": code, "message": message}, status=status)


@dataclass
class FakeUser:
    """A simulated Discord user."""

    id: int
    name: str
    locale: str = "en-US"
    admin: bool = False

    def payload(self) -> JSON:
        return {
            "id": str(self.id),
            "username": self.name,
            "global_name": self.name,
            "discriminator": "0",
            "avatar": None,
            "bot": False,
        }


@dataclass
class FakeMessage:
    """One message as the fake stores it, with every version it had."""

    id: int
    channel_id: int
    content: str
    embeds: list[JSON]
    components: list[JSON]
    flags: int
    visible_to: int | None  # None: everyone in the channel; else one user id
    via: str  # "channel", "dm", "interaction", "followup"
    attachments: list[tuple[str, bytes]] = field(default_factory=list)
    history: list[str] = field(default_factory=list)
    snapshots: list[Any] = field(default_factory=list)  # what the test's observer saw at each version
    peak_selects: int = 0  # the most select menus any version showed
    deleted: bool = False
    loading: bool = False
    gone: bool = False  # an ephemeral message its reader's client no longer shows (`reload`)
    interaction_id: int | None = None  # the interaction whose response or follow-up it is
    interaction_user: JSON | None = None  # ... and who made it (Discord's `interaction_metadata`)

    @property
    def ephemeral(self) -> bool:
        return bool(self.flags & EPHEMERAL)

    @property
    def public(self) -> bool:
        return self.visible_to is None

    def text(self) -> str:
        """Everything a reader sees: content, embeds, component labels and options."""
        parts = [self.content]
        for embed in self.embeds:
            parts += [str(embed.get("title", "")), str(embed.get("description", ""))]
            parts += [f"{f.get('name', '')} {f.get('value', '')}" for f in embed.get("fields", [])]
            parts.append(str((embed.get("footer") or {}).get("text", "")))
        for component in _walk(self.components):
            parts.append(str(component.get("label", "")))
            parts.append(str(component.get("placeholder", "")))
            for option in component.get("options", []):
                parts += [str(option.get("label", "")), str(option.get("description", ""))]
        return "\n".join(p for p in parts if p)

    def buttons(self) -> list[JSON]:
        return [c for c in _walk(self.components) if c.get("type") == 2]

    def selects(self) -> list[JSON]:
        return [c for c in _walk(self.components) if c.get("type") == 3]

    def button(self, label: str) -> JSON:
        """The button whose label contains `label` (exactly one must match)."""
        found = [b for b in self.buttons() if label in str(b.get("label", ""))]
        if len(found) != 1:
            labels = [b.get("label") for b in self.buttons()]
            raise LookupError(f"{len(found)} buttons match {label!r} in message {self.id}: {labels}")
        return found[0]

    def payload(self, guild_id: int | None, author: JSON) -> JSON:
        data: JSON = {
            "id": str(self.id),
            "channel_id": str(self.channel_id),
            "author": author,
            "content": self.content,
            "timestamp": _now(),
            "edited_timestamp": None,
            "tts": False,
            "mention_everyone": False,
            "mentions": [],
            "mention_roles": [],
            "attachments": [
                {"id": str(i + 1), "filename": name, "size": len(blob), "url": f"http://fake/{name}",
                 "proxy_url": f"http://fake/{name}"}
                for i, (name, blob) in enumerate(self.attachments)
            ],
            "embeds": self.embeds,
            "pinned": False,
            "type": 0,
            "components": self.components,
            "flags": self.flags,
        }
        if guild_id is not None and self.via != "dm":
            data["guild_id"] = str(guild_id)
        if self.interaction_id is not None and self.interaction_user is not None:
            data["interaction_metadata"] = {"id": str(self.interaction_id), "type": 2, "user": self.interaction_user,
                                            "authorizing_integration_owners": {}}
        return data


#: The locales Discord takes as keys of `name_localizations` and `description_localizations`.
LOCALES = frozenset({"id", "da", "de", "en-GB", "en-US", "es-ES", "es-419", "fr", "hr", "it", "lt", "hu", "nl", "no",
                     "pl", "pt-BR", "ro", "fi", "sv-SE", "vi", "tr", "cs", "el", "bg", "ru", "uk", "hi", "th",
                     "zh-CN", "ja", "zh-TW", "ko"})
COMMAND_LEVELS = 25  # options (or subcommands) a command, choices an option, at most


def _name_problem(where: str, name: object) -> str | None:
    """Discord's rule for a chat command's (or option's) name: 1-32 letters, digits, - or _, lower case."""
    if not isinstance(name, str) or not 1 <= len(name) <= 32:
        return f"{where}: a name is 1-32 characters: {name!r}"
    if name != name.lower() or not all(c.isalnum() or c in "-_" for c in name):
        return f"{where}: a name is lower-case letters, digits, - and _: {name!r}"
    return None


def _text_problems(where: str, item: dict[str, Any]) -> list[str]:
    out: list[str] = []
    name_problem = _name_problem(where, item.get("name"))
    if name_problem:
        out.append(name_problem)
    description = item.get("description")
    if not isinstance(description, str) or not 1 <= len(description) <= 100:
        out.append(f"{where}: a description is 1-100 characters: {description!r}")
    for field_name in ("name_localizations", "description_localizations"):
        local = item.get(field_name) or {}
        if not isinstance(local, dict):
            out.append(f"{where}: {field_name} is an object")
            continue
        for locale, text in local.items():
            if locale not in LOCALES:
                out.append(f"{where}: {field_name} has no locale {locale!r}")
            elif field_name == "name_localizations":
                problem = _name_problem(f"{where} ({locale})", text)
                if problem:
                    out.append(problem)
            elif not isinstance(text, str) or not 1 <= len(text) <= 100:
                out.append(f"{where} ({locale}): a description is 1-100 characters: {text!r}")
    return out


def _option_problems(where: str, options: list[Any]) -> list[str]:
    out: list[str] = []
    if len(options) > COMMAND_LEVELS:
        out.append(f"{where}: {len(options)} options, more than {COMMAND_LEVELS}")
    names = [o.get("name") for o in options if isinstance(o, dict)]
    if len(set(names)) != len(names):
        out.append(f"{where}: two options named alike")
    optional_seen = False
    for o in options:
        if not isinstance(o, dict):
            out.append(f"{where}: an option is an object")
            continue
        here = f"{where} {o.get('name')}"
        out += _text_problems(here, o)
        kind = o.get("type")
        if kind in (1, 2):  # a subcommand (group): its own options
            out += _option_problems(here, list(o.get("options") or []))
            continue
        if o.get("required"):
            if optional_seen:
                out.append(f"{here}: a required option after an optional one")
        else:
            optional_seen = True
        choices = o.get("choices") or []
        if len(choices) > COMMAND_LEVELS:
            out.append(f"{here}: {len(choices)} choices, more than {COMMAND_LEVELS}")
        if choices and o.get("autocomplete"):
            out.append(f"{here}: choices and autocomplete both")
        for c in choices:
            name = c.get("name") if isinstance(c, dict) else None
            if not isinstance(name, str) or not 1 <= len(name) <= 100:
                out.append(f"{here}: a choice's name is 1-100 characters: {name!r}")
    return out


def command_problems(commands: list[Any]) -> list[str]:
    """What Discord refuses of a bulk overwrite of chat-input commands (400, 50035: nothing stored)."""
    out: list[str] = []
    if len({c.get("name") for c in commands if isinstance(c, dict)}) != len(commands):
        out.append("two commands named alike (or one not an object)")
    for c in commands:
        if not isinstance(c, dict):
            continue
        where = f"/{c.get('name')}"
        out += _text_problems(where, c)
        out += _option_problems(where, list(c.get("options") or []))
        perms = c.get("default_member_permissions")
        # a bit set, as a string of digits (Discord also takes the number, as discord.py sends it)
        if perms is not None and not ((isinstance(perms, str) and perms.isdigit())
                                      or (isinstance(perms, int) and not isinstance(perms, bool) and perms >= 0)):
            out.append(f"{where}: default_member_permissions is a permission bit set: {perms!r}")
    return out


def form_problems(body: JSON) -> list[str]:
    """What Discord would refuse in a message body (content, rows, items, options, custom_ids)."""
    out: list[str] = embed_problems(body.get("embeds"))
    content = body.get("content")
    if isinstance(content, str) and len(content) > MAX_CONTENT:
        out.append(f"content of {len(content)} characters (max {MAX_CONTENT})")
    rows = body.get("components") or []
    if not isinstance(rows, list):
        return [*out, "components is not a list"]
    if len(rows) > MAX_ROWS:
        out.append(f"{len(rows)} action rows (max {MAX_ROWS})")
    for row in rows:
        inner = row.get("components", [])
        if len(inner) > MAX_ROW_ITEMS:
            out.append(f"a row with {len(inner)} components")
        if any(c.get("type") == 3 for c in inner) and len(inner) > 1:
            out.append("a select must be alone in its row")
    ids = [c.get("custom_id") for c in _walk(rows) if c.get("custom_id")]
    if len(ids) != len(set(ids)):
        out.append("duplicate custom_id")
    for component in _walk(rows):
        cid = component.get("custom_id")
        if cid is not None and not 1 <= len(str(cid)) <= MAX_CUSTOM_ID:
            out.append(f"custom_id of {len(str(cid))} characters (max {MAX_CUSTOM_ID})")
        if len(str(component.get("label", ""))) > MAX_LABEL:
            out.append(f"label over {MAX_LABEL} characters")
        options = component.get("options", [])
        if component.get("type") == 3:
            if not 1 <= len(options) <= MAX_OPTIONS:
                out.append(f"a select with {len(options)} options (1 to {MAX_OPTIONS})")
            if int(component.get("max_values", 1)) > max(1, len(options)):
                out.append("max_values above the number of options")
        values = [o.get("value") for o in options]
        if len(values) != len(set(values)):
            out.append("duplicate select values")
        for o in options:
            if len(str(o.get("value", ""))) > 100 or len(str(o.get("label", ""))) > 100:
                out.append("select option value or label over 100 characters")
    return out


def _bits(perms: object) -> str | None:
    """A permission bit set as Discord returns it: a string of digits (None: no default)."""
    return None if perms is None else str(perms)


def _showing(message: FakeMessage) -> JSON:
    """What a message shows now, as a body (an edit leaving it with nothing is refused)."""
    return {"content": message.content, "embeds": message.embeds, "components": message.components,
            "_files": message.attachments}


def _walk(components: list[JSON]) -> Iterator[JSON]:
    for component in components:
        yield component
        yield from _walk(component.get("components", []))


@dataclass
class FakeInteraction:
    """One interaction the fake dispatched and what became of it."""

    id: int
    token: str
    type: int
    user: FakeUser
    channel_id: int
    guild: bool
    message_id: int | None  # the message carrying the pressed component
    data: JSON
    created: float
    answered: Signal = field(default_factory=Signal)  # set in the fake's thread, awaited from any loop
    callback_type: int | None = None
    callback_data: JSON = field(default_factory=dict)
    original_id: int | None = None  # message the response created (types 4 and 5)
    late: bool = False
    expired: bool = False
    delivered: bool = False  # sent to a session (else lost: its shard had none)
    owned: set[int] = field(default_factory=set)  # messages this token may edit or delete
    payload: JSON = field(default_factory=dict)  # as dispatched (a replay sends it again)
    replayed: int = 0
    answered_at: float | None = None
    choices: list[JSON] = field(default_factory=list)
    # What the person was shown in answer (`FakeDiscord.wordless`): a reply or follow-up with
    # something in it, an edit through this token, or an edit of the message the press was on.
    words: list[str] = field(default_factory=list)

    @property
    def ephemeral_reply(self) -> bool:
        return bool(self.callback_data.get("flags", 0) & EPHEMERAL)


class FakeDiscord:
    """Fake REST + gateway. Use `async with FakeDiscord() as fake:` or `start`/`stop`."""

    def __init__(self, *, guild_id: int = 9000, channel_id: int = 9100, app_id: int = 4242,
                 limits: bool = True, scale: float = 1.0, heartbeat_ms: int = 41250,
                 invalid_limit: tuple[int, float] = INVALID_LIMIT, bot_permissions: int = ALL_PERMISSIONS) -> None:
        if scale <= 0:
            raise ValueError(f"scale must be positive (real seconds a Discord second lasts), not {scale}")
        self.guild_id = guild_id
        self.channel_id = channel_id
        self.app_id = app_id
        self.bot_user: JSON = {
            "id": str(app_id), "username": "tractor-host", "global_name": None, "discriminator": "0000",
            "avatar": None, "bot": True, "verified": True, "mfa_enabled": False, "flags": 0,
        }
        self.token = "fake-token"
        self.port = 0
        self.requests: list[tuple[str, str, JSON]] = []
        self.messages: Shared[int, FakeMessage] = Shared()
        self.interactions: Shared[int, FakeInteraction] = Shared()
        self._by_token: dict[str, FakeInteraction] = {}
        self.commands: list[JSON] = []
        self.dm_channels: dict[int, int] = {}  # channel id -> user id
        self.protocol_errors: list[str] = []
        self.identified = 0
        self.resumed = 0
        self._ids = itertools.count(1_000_000)
        self._seq = itertools.count(1)
        self._sockets: list[web.WebSocketResponse] = []
        self._runner: web.AppRunner | None = None
        self._open_requests = 0
        self._changed = asyncio.Event()  # set and replaced whenever something tests wait for changes
        self._sent_seq: dict[web.WebSocketResponse, int] = {}  # the last event's sequence number sent there
        self._read_seq: dict[web.WebSocketResponse, int] = {}  # ... and read there, by the client's heartbeats
        self._saved: tuple[str, yarl.URL] | None = None
        self.unreachable_users: set[int] = set()
        self.observer: Callable[[], Any] | None = None  # called at every message version (leak tests)
        self._server = ServerThread("fake-discord")
        self._home: asyncio.AbstractEventLoop | None = None  # the loop that started the fake (the observer's)
        # Rate limits (count, seconds) per bucket kind; None turns one off.
        self.channel_limit: tuple[int, float] | None = CHANNEL_LIMIT if limits else None
        self.webhook_limit: tuple[int, float] | None = WEBHOOK_LIMIT if limits else None
        self.global_limit: tuple[int, float] | None = GLOBAL_LIMIT if limits else None
        self.rate_limited = 0  # 429s answered
        self.limited_buckets: dict[str, int] = {}  # bucket kind -> 429s answered there
        self.global_limited = 0
        self._hits: dict[str, list[float]] = {}  # bucket -> its requests' times by Discord's clock
        self._spent: set[str] = set()  # buckets another process empties before the next request (`spend`)
        self.scale = scale  # real seconds one Discord second lasts (the module doc's two clocks)
        self._started = time.monotonic()
        self._rescaled = 0.0  # what `rescale` carried over to Discord's clock
        self.skew = 0.0  # what `advance` added to both clocks
        self.heartbeat_ms = heartbeat_ms
        self.heartbeats = 0
        self.invalid_sessions = 0
        self.sessions: set[str] = set()
        self.guild_ids: set[int] = {guild_id}  # guilds the bot is in; others are "unknown guilds"
        # 401, 403 and 429 answers counted on Discord's clock; past the limit Cloudflare shuts the bot out
        self.invalid = InvalidRequests(invalid_limit)
        # Sharding (see the module doc and the gateway's shard section).
        self.shard_count = 1  # recommended by GET /gateway/bot
        self.required_shards = 1  # identifying with fewer closes 4011
        self.max_concurrency = 1
        self.identify_window = IDENTIFY_WINDOW_S
        self.session_start_total = 1000
        self.session_starts = 0
        self.identify_refused = 0  # identifies over max_concurrency (answered with op 9)
        self.shard_overlaps = 0  # identifies for a shard that had a live session already
        self.undelivered: list[tuple[str, JSON]] = []  # events whose shard had no session
        self.channel_guild: dict[int, int] = {channel_id: guild_id}  # a guild's text channels
        self.threads: dict[int, int] = {}  # thread id -> its parent channel (`add_thread`)
        self._pressed_on: dict[int, list[FakeInteraction]] = {}  # message id -> presses it has not answered
        # What the bot may do in the guild's channels, as invited (`README.md`'s integer by default,
        # set by the tests that read it): a post in a thread needs Send Messages in Threads (1 << 38).
        self.bot_permissions = bot_permissions
        self._shard_of: dict[web.WebSocketResponse, tuple[int, int]] = {}
        self._session_of: dict[web.WebSocketResponse, str] = {}  # the session a connection identified or resumed
        self._session_shard: dict[str, tuple[int, int]] = {}
        self._identified_at: dict[int, float] = {}  # rate-limit bucket -> its last identify (Discord's clock)

    # ---- lifecycle -------------------------------------------------------

    @property
    def api_base(self) -> str:
        return f"http://127.0.0.1:{self.port}/api/v10"

    @property
    def gateway_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/gateway"

    async def start(self) -> None:
        """Starts the server's thread and the server in it; returns once it listens."""
        self._home = asyncio.get_running_loop()
        self._server.start()
        await self._server.call(self._listen())

    async def _listen(self) -> None:
        app = web.Application(middlewares=[self._record])
        app.router.add_get("/gateway", self._gateway)
        r = app.router
        base = "/api/v10"
        r.add_get(base + "/users/@me", self._me)
        r.add_get(base + "/oauth2/applications/@me", self._application)
        r.add_get(base + "/gateway", self._gateway_info)
        r.add_get(base + "/gateway/bot", self._gateway_info)
        r.add_put(base + "/applications/{app}/commands", self._put_commands)
        r.add_put(base + "/applications/{app}/guilds/{guild}/commands", self._put_commands)
        r.add_get(base + "/applications/{app}/commands", self._get_commands)
        r.add_get(base + "/applications/{app}/guilds/{guild}/commands", self._get_commands)
        r.add_post(base + "/interactions/{iid}/{token}/callback", self._callback)
        r.add_get(base + "/webhooks/{app}/{token}/messages/{mid}", self._get_webhook_message)
        r.add_patch(base + "/webhooks/{app}/{token}/messages/{mid}", self._edit_webhook_message)
        r.add_delete(base + "/webhooks/{app}/{token}/messages/{mid}", self._delete_webhook_message)
        r.add_post(base + "/webhooks/{app}/{token}", self._followup)
        r.add_post(base + "/users/@me/channels", self._open_dm)
        r.add_post(base + "/channels/{cid}/messages", self._post_message)
        r.add_get(base + "/channels/{cid}/messages/{mid}", self._get_message)
        r.add_patch(base + "/channels/{cid}/messages/{mid}", self._edit_message)
        r.add_delete(base + "/channels/{cid}/messages/{mid}", self._delete_message)
        self._runner = web.AppRunner(app)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        server = site._server
        assert server is not None and server.sockets  # type: ignore[attr-defined]
        self.port = server.sockets[0].getsockname()[1]  # type: ignore[attr-defined]

    async def stop(self) -> None:
        if self._server.loop is not None:
            await self._server.call(self._close())
        await self._server.stop()

    async def _close(self) -> None:
        for ws in list(self._sockets):
            await ws.close()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    @contextlib.contextmanager
    def pointed_at(self) -> Iterator[None]:
        """Point discord.py's REST base and default gateway at this fake, restoring them after."""
        saved = (discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY)
        discord.http.Route.BASE = self.api_base
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(self.gateway_url)
        try:
            yield
        finally:
            discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = saved

    async def __aenter__(self) -> FakeDiscord:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    # ---- recording -------------------------------------------------------

    @web.middleware
    async def _record(self, request: web.Request, handler: Any) -> web.StreamResponse:
        if not request.path.startswith("/api/"):
            return await handler(request)  # type: ignore[no-any-return]
        # Discord times an answer when it arrives: before the observer, which waits for the bot's
        # loop and would count the bot's backlog against this request
        request[_ARRIVED] = self.now()
        self._open_requests += 1
        try:
            if request.method != "GET":
                body = await self._body(request)
                self.requests.append((request.method, request.path, body))
                if self.observer is not None:  # what readers could know when this write arrived
                    _SNAPSHOT.set(await self._observe(self.observer))
            if self.invalid.banned(self.discord_now()):
                self.protocol_errors.append(f"{request.method} {request.path}: refused, over the invalid-request limit")
                # Cloudflare's answer: a 429 that is not Discord's JSON (discord.py raises at once)
                return web.Response(status=429, text="error code: 1015", content_type="text/plain")
            response = await self._answer(request, handler)
            self.invalid.count(response.status, self.discord_now(),
                               shared=response.headers.get("X-RateLimit-Scope") == "shared")
            return response
        finally:
            self._open_requests -= 1
            self._touch()

    async def _answer(self, request: web.Request, handler: Any) -> web.StreamResponse:
        if request.headers.get("Authorization") not in (
            f"Bot {self.token}", None,
        ):
            return _error(401, 0, "401: Unauthorized")
        bucket, limit = self._bucket(request)
        limited = self._take(bucket, limit)
        if limited is not None:
            return limited
        response: web.StreamResponse = await handler(request)
        if limit is not None:
            self._headers(response, bucket, limit)
        return response

    async def _observe(self, observer: Callable[[], Any]) -> Any:
        """The observer reads the bot's state: it runs on the loop that started the fake."""
        home = self._home
        if home is None or home.is_closed():
            return observer()

        async def look() -> Any:
            return observer()

        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(look(), home))

    async def _body(self, request: web.Request) -> JSON:
        """JSON body, or the payload_json of a multipart upload with its files under '_files'."""
        if _BODY in request:
            return request[_BODY]
        body: JSON = {}
        if request.content_type == "application/json":
            raw = await request.read()
            body = json.loads(raw) if raw else {}
        elif request.content_type.startswith("multipart/"):
            reader = await request.multipart()
            files: list[tuple[str, bytes]] = []
            async for part in reader:
                if not isinstance(part, BodyPartReader):
                    continue
                data = await part.read()
                if part.name == "payload_json":
                    body = json.loads(data)
                else:
                    files.append((part.filename or "file", bytes(data)))
            body["_files"] = files
        request[_BODY] = body
        return body

    # ---- waiting on events -------------------------------------------------

    def _touch(self) -> None:
        """Something a test may wait for changed (on the server's loop): wake the `until`s."""
        changed, self._changed = self._changed, asyncio.Event()
        changed.set()

    async def until(self, predicate: Callable[[], bool], what: str, timeout: float = HANG_S) -> None:
        """Waits until `predicate` holds, evaluated on the server's loop each time the fake's state
        changes (a request ends, an event is sent, a heartbeat or a session comes or goes). The
        timeout only tells a stuck test from a slow one."""
        await self._server.call(self._until(predicate, what, timeout))

    async def _until(self, predicate: Callable[[], bool], what: str, timeout: float) -> None:
        async def wait() -> None:
            while not predicate():
                await self._changed.wait()

        try:
            await asyncio.wait_for(wait(), timeout)
        except TimeoutError:
            raise AssertionError(f"fake Discord: {what}, not within {timeout} s") from None

    async def answered(self, timeout: float = HANG_S) -> None:
        """Until every interaction a session got has been answered, or refused as late: the bot has
        read and handled it. (One the bot is meant to ignore never is: see `delivered`.)"""
        await self.until(lambda: not any(i.delivered and i.callback_type is None and not i.late
                                         for i in self.interactions.values()),
                         "interactions unanswered", timeout)

    async def quiet(self, timeout: float = HANG_S) -> None:
        """Until no request of the bot is open here."""
        await self.until(lambda: self._open_requests == 0, "requests still open", timeout)

    async def delivered(self, timeout: float = HANG_S) -> None:
        """Until every live session's client has read every event sent to it so far. Discord may ask
        for a heartbeat at any time (op 1); the client answers at once, and a heartbeat carries the
        sequence number of the last event it read (discord.py runs an event's parser, which starts
        its handlers, in the same step that reads it). discord.py counts the heartbeats it sends so
        against its gateway limit (110 a minute): for a test's few checks, not for every step."""
        await self._server.call(self._delivered(timeout))

    async def _delivered(self, timeout: float) -> None:
        wanted = {ws: seq for ws, seq in self._sent_seq.items() if ws in self._sockets and not ws.closed}
        for ws in wanted:
            with contextlib.suppress(ConnectionError, RuntimeError):  # closing: nothing more to read
                await ws.send_str(json.dumps({"op": 1, "d": None}))
        await self._until(lambda: all(ws.closed or self._read_seq.get(ws, -1) >= seq for ws, seq in wanted.items()),
                          "a client did not read its gateway events", timeout)

    async def settle(self, timeout: float = HANG_S) -> None:
        """Until the bot is done with what Discord sent it: every gateway event read and its discord.py
        handlers run (on the caller's loop: the bot's), and no request of the bot open here; again
        while that brought new requests. Edits the bot's own queues hold back are its to flush."""
        while True:
            seen = len(self.requests)
            await self.delivered(timeout)
            await handled(timeout)
            await self.quiet(timeout)
            if len(self.requests) == seen:
                return

    # ---- views for tests -------------------------------------------------

    def public_messages(self) -> list[FakeMessage]:
        return [m for m in self.messages.values() if m.public]

    def private_messages(self, user: FakeUser) -> list[FakeMessage]:
        return [m for m in self.messages.values() if m.visible_to == user.id and not m.deleted and not m.gone]

    def reload(self, user: FakeUser) -> list[FakeMessage]:
        """The person's Discord client reloads (or they switch devices): the ephemeral messages it showed
        are gone for good; pressing them is impossible, and editing them is refused (404, 10008)."""
        gone = [m for m in self.private_messages(user) if m.ephemeral]
        for message in gone:
            message.gone = True
        self._touch()
        return gone

    def channel_messages(self, channel_id: int | None = None) -> list[FakeMessage]:
        cid = self.channel_id if channel_id is None else channel_id
        return [m for m in self.messages.values() if m.channel_id == cid and m.public and not m.deleted]

    def unanswered(self) -> list[FakeInteraction]:
        """Interactions never answered, or answered after Discord's 3-second window."""
        return [i for i in self.interactions.values() if i.callback_type is None or i.late]

    def wordless(self) -> list[FakeInteraction]:
        """Presses and slash commands answered without a word: Discord acknowledged them (no "This
        interaction failed"), yet the person saw nothing come of them: no response or follow-up with
        something in it (public or only theirs), no edit through its token, and for a press the
        message pressed never changed. (A change of that message counts whoever made it: a test asks
        once the press has settled.) A command whose words went out as a channel message of their
        own counts as wordless: nothing ties that message to the command (Discord shows a command's
        public response under "alice used /tractor help"; a channel message it shows on its own)."""
        return [i for i in self.interactions.values()
                if i.type in (COMMAND, COMPONENT) and i.callback_type is not None and not i.late and not i.words]

    def expire_tokens(self) -> None:
        """Make every interaction token seen so far stale, as after 15 minutes."""
        for interaction in self.interactions.values():
            interaction.expired = True

    def now(self) -> float:
        """The people's clock: real (monotonic) time, plus what `advance` added; any thread may read it.
        Interactions are stamped by it; their 3 s and their tokens' 15 minutes run on it."""
        return time.monotonic() + self.skew

    def discord_now(self) -> float:
        """Discord's clock, for the rate limits and the identify window: `scale` real seconds a Discord
        second, plus what `advance` added."""
        if self.scale == math.inf:
            return self.skew + self._rescaled
        return (time.monotonic() - self._started) / self.scale + self.skew + self._rescaled

    def rescale(self, scale: float) -> None:
        """Discord's clock runs at another pace from now on, without a jump (a test that sets a scene
        fast, then watches one moment at Discord's own speed)."""
        now = self.discord_now()
        self.scale, self._started = scale, time.monotonic()
        self._rescaled = now - self.skew  # Discord's clock alone: the people's (`now`) is never scaled

    def real(self, discord_seconds: float) -> float:
        """How many real seconds that many Discord seconds last (what the client is told to wait)."""
        return discord_seconds * self.scale

    def advance(self, seconds: float) -> None:
        """Moves both clocks on: tokens age (15 minutes and they are dead) and windows pass, as in
        real time."""
        self.skew += seconds

    def spend(self, bucket: str) -> None:
        """Another process of the bot spends the bucket's requests (`global`, or `channel<id>` or
        `webhook<token>`) just before this one's next request there: that request is refused with a
        429 however long it takes to come (a test's refusal never hangs on the machine's speed)."""
        limit = self.global_limit if bucket == "global" else (
            self.channel_limit if bucket.startswith("channel") else self.webhook_limit)
        if limit is None:
            raise ValueError(f"no limit on {bucket}: the fake was made with limits=False")
        self._spent.add(bucket)

    def token_dead(self, interaction: FakeInteraction) -> bool:
        return interaction.expired or self.now() - interaction.created > TOKEN_LIFE_S

    # ---- simulated users -------------------------------------------------

    def _member(self, user: FakeUser) -> JSON:
        return {
            "user": user.payload(), "roles": [], "joined_at": _now(), "deaf": False, "mute": False,
            "flags": 0, "permissions": "8" if user.admin else "1024", "nick": None, "pending": False,
        }

    def add_thread(self, thread_id: int, parent_id: int | None = None) -> None:
        """A public thread under a text channel (the default one): its own channel id, the parent's guild."""
        parent = self.channel_id if parent_id is None else parent_id
        self.threads[thread_id] = parent
        self.channel_guild[thread_id] = self.guild_of(parent)

    def _channel(self, channel_id: int) -> JSON:
        if channel_id in self.dm_channels:
            return {"id": str(channel_id), "type": 1, "recipients": []}
        if channel_id in self.threads:
            return {"id": str(channel_id), "type": 11, "guild_id": str(self.guild_of(channel_id)), "name": "table",
                    "parent_id": str(self.threads[channel_id]), "owner_id": "1", "message_count": 0,
                    "member_count": 1, "rate_limit_per_user": 0, "flags": 0,
                    "thread_metadata": {"archived": False, "auto_archive_duration": 1440, "locked": False,
                                        "archive_timestamp": _now()}}
        return {
            "id": str(channel_id), "type": 0, "guild_id": str(self.guild_of(channel_id)), "name": "tractor",
            "position": 0, "permission_overwrites": [], "nsfw": False, "parent_id": None,
        }

    async def _dispatch_interaction(
        self, user: FakeUser, itype: int, data: JSON, *, channel_id: int | None = None,
        message: FakeMessage | None = None, wait: bool = True, guild_id: int | None = None, age: float = 0.0,
        forged: bool = False,
    ) -> FakeInteraction:
        """The user acts now, by the server's clock (from whatever loop this is awaited on)."""
        return await self._server.call(self._create_interaction(
            user, itype, data, channel_id=channel_id, message=message, wait=wait, guild_id=guild_id, age=age,
            forged=forged))

    def _deliverable(self, user: FakeUser, itype: int, data: JSON, guild: bool, guild_id: int,
                     message: FakeMessage | None) -> None:
        """What Discord never delivers, refused to the test that asks (`forged=True` sends it anyway, as a
        hostile or broken gateway would): anything from a guild the bot is not in, a command outside
        the contexts it was registered for (`dm_permission: false`), a press on a message its person
        cannot see.

        :raises LookupError: Discord would not let the person do this."""
        if guild and guild_id not in self.guild_ids:
            raise LookupError(f"Discord delivers nothing from guild {guild_id}: the bot is not in it")
        if itype in (2, 4) and not guild:
            registered = next((c for c in self.commands if c["name"] == data.get("name")), None)
            contexts = (registered or {}).get("contexts")
            if registered is not None and (registered.get("dm_permission") is False
                                           or (contexts is not None and not {1, 2} & set(contexts))):
                raise LookupError(f"/{data.get('name')} is not offered in DMs (dm_permission false)")
        if itype in (2, 4) and guild:
            registered = next((c for c in self.commands if c["name"] == data.get("name")), None)
            needed = int((registered or {}).get("default_member_permissions") or 0)
            has = int(self._member(user)["permissions"])
            if registered is not None and registered.get("default_member_permissions") is not None \
                    and not has & ADMINISTRATOR and (needed == 0 or needed & ~has):
                raise LookupError(f"/{data.get('name')} is shown to members with permissions {needed} only")
        if message is not None and (message.gone or message.deleted or (
                message.visible_to is not None and message.visible_to != user.id)):
            raise LookupError(f"{user.name} cannot see message {message.id}")

    async def _create_interaction(
        self, user: FakeUser, itype: int, data: JSON, *, channel_id: int | None, message: FakeMessage | None,
        wait: bool, guild_id: int | None, age: float, forged: bool = False,
    ) -> FakeInteraction:
        cid = channel_id if channel_id is not None else (message.channel_id if message else self.channel_id)
        guild = cid not in self.dm_channels and guild_id != 0
        if not forged:
            self._deliverable(user, itype, data, guild, self.guild_of(cid) if guild_id is None else guild_id, message)
        iid = next(self._ids)
        interaction = FakeInteraction(
            id=iid, token=f"itoken{iid}", type=itype, user=user, channel_id=cid, guild=guild,
            message_id=message.id if message else None, data=data, created=self.now() - age,
        )
        if message is not None:
            interaction.owned.add(message.id)
        self.interactions[iid] = interaction
        self._by_token[interaction.token] = interaction
        payload: JSON = {
            "id": str(iid), "application_id": str(self.app_id), "type": itype, "token": interaction.token,
            "version": 1, "attachment_size_limit": 8 * 1024 * 1024, "data": data,
            "channel_id": str(cid), "channel": self._channel(cid), "locale": user.locale,
            "app_permissions": str(self.bot_permissions), "entitlements": [], "authorizing_integration_owners": {},
            "context": 0 if guild else 1,
        }
        if guild:
            payload["guild_id"] = str(self.guild_of(cid) if guild_id is None else guild_id)
            payload["guild_locale"] = "en-US"
            payload["member"] = self._member(user)
        else:
            payload["user"] = user.payload()
        if message is not None:
            payload["message"] = message.payload(self.guild_of(message.channel_id) if guild else None,
                                                 self.bot_user)
        interaction.payload = payload
        interaction.delivered = await self._send_event("INTERACTION_CREATE", payload)
        if wait:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(interaction.answered.wait(), ANSWER_WINDOW_S + 2)
        return interaction

    async def interact(
        self, user: FakeUser, itype: int, data: JSON, *, channel_id: int | None = None,
        message: FakeMessage | None = None, wait: bool = True, guild_id: int | None = None, age: float = 0.0,
        forged: bool = False,
    ) -> FakeInteraction:
        """Any interaction: `guild_id=0` as if from a DM, another id for a guild the bot is not in; `age`
        seconds old on arrival (past 3 s it can no longer be answered). What Discord would never deliver
        is refused unless `forged` (the fuzz's hostile ones): see `_deliverable`."""
        return await self._dispatch_interaction(user, itype, data, channel_id=channel_id, message=message,
                                                wait=wait, guild_id=guild_id, age=age, forged=forged)

    def after(self, seconds: float, action: Coroutine[Any, Any, Any]) -> asyncio.Future[Any]:
        """`action` (a call of this API, such as `fake.slash(...)`) happens `seconds` from now by the
        server's clock, even while the caller's loop is blocked; await the result for what it returns."""
        return self._server.later(seconds, action)

    async def replay(self, interaction: FakeInteraction) -> None:
        """The gateway delivers an interaction again (as after a resume): answering it twice is refused."""
        interaction.replayed += 1
        await self.dispatch("INTERACTION_CREATE", interaction.payload)

    def raw_command(self, sub: str, options: dict[str, str | int] | None = None) -> JSON:
        """The data of `/tractor sub ...` (for forged commands)."""
        return self._command_data("tractor", sub, options or {})

    async def slash(
        self, user: FakeUser, sub: str, options: dict[str, str | int] | None = None, *,
        command: str = "tractor", channel_id: int | None = None,
    ) -> FakeInteraction:
        """`/tractor sub option:value ...` typed by `user`."""
        return await self._dispatch_interaction(
            user, 2, self._command_data(command, sub, options or {}), channel_id=channel_id,
        )

    async def autocomplete(
        self, user: FakeUser, sub: str, focused: str, value: str,
        options: dict[str, str | int] | None = None, *, command: str = "tractor",
    ) -> list[JSON]:
        """Typing `value` into option `focused`: returns the choices the bot offered."""
        data = self._command_data(command, sub, {**(options or {}), focused: value})
        for option in data["options"][0]["options"]:
            if option["name"] == focused:
                option["focused"] = True
        interaction = await self._dispatch_interaction(user, 4, data)
        return interaction.choices

    def _command_data(self, command: str, sub: str, options: dict[str, str | int]) -> JSON:
        registered = next((c for c in self.commands if c["name"] == command), None)
        if registered is None:
            raise LookupError(f"command /{command} was never registered: {[c['name'] for c in self.commands]}")
        subcommand = next((o for o in registered.get("options", []) if o["name"] == sub), None)
        if subcommand is None:
            raise LookupError(f"/{command} has no subcommand {sub!r}")
        declared = {o["name"]: o for o in subcommand.get("options", [])}
        opts = []
        for name, value in options.items():
            if name not in declared:
                raise LookupError(f"/{command} {sub} has no option {name!r}: {list(declared)}")
            opts.append({"name": name, "type": declared[name]["type"], "value": value})
        return {
            "id": registered["id"], "name": command, "type": 1,
            "options": [{"name": sub, "type": 1, "options": opts}],
        }

    async def press(
        self, user: FakeUser, message: FakeMessage, custom_id: str, *, wait: bool = True,
    ) -> FakeInteraction:
        """`user` clicks the button `custom_id` on `message` (need not be one the bot drew: forgeries too).

        With wait=False it returns at once (for presses the bot may never answer).
        """
        return await self._dispatch_interaction(
            user, 3, {"custom_id": custom_id, "component_type": 2}, message=message, wait=wait,
        )

    async def click(self, user: FakeUser, message: FakeMessage, label: str) -> FakeInteraction:
        """`user` clicks the button labelled `label` on `message`; it must be drawn and enabled."""
        button = message.button(label)
        if button.get("disabled"):
            raise LookupError(f"button {label!r} is disabled")
        return await self.press(user, message, button["custom_id"])

    async def choose(
        self, user: FakeUser, message: FakeMessage, custom_id: str, values: list[str],
    ) -> FakeInteraction:
        """`user` picks `values` in the select menu `custom_id` on `message`."""
        return await self._dispatch_interaction(
            user, 3, {"custom_id": custom_id, "component_type": 3, "values": values}, message=message,
        )

    # ---- gateway ---------------------------------------------------------

    async def dispatch(self, event: str, data: JSON) -> None:
        """Send a DISPATCH event to the newest session of its shard (see `session_for`); an event whose
        shard has no session is lost, as on Discord (kept in `undelivered`)."""
        await self._server.call(self._send_event(event, data))

    async def _send_event(self, event: str, data: JSON) -> bool:
        """Whether a session got it."""
        if not self._sockets:
            raise RuntimeError("no gateway session is connected")
        ws = self.session_for(data.get("guild_id"))
        if ws is None:
            self.undelivered.append((event, data))
            self._touch()
            return False
        await self._send_dispatch(ws, event, data)
        return True

    async def _send_dispatch(self, ws: web.WebSocketResponse, event: str, data: JSON) -> None:
        """One DISPATCH, remembering its sequence number for `delivered`."""
        seq = next(self._seq)
        self._sent_seq[ws] = seq
        await ws.send_str(json.dumps({"op": 0, "t": event, "s": seq, "d": data}))

    async def ask_reconnect(self, limit_s: float = 10.0) -> None:
        """Gateway op 7: the client must reconnect and resume; returns once it has."""
        await self._server.call(self._ask_reconnect(limit_s))

    async def _ask_reconnect(self, limit_s: float) -> None:
        before = self.resumed
        await self._sockets[-1].send_str(json.dumps({"op": 7, "d": None}))
        await self._until(lambda: self.resumed > before, "the client did not resume", limit_s)

    async def invalidate_session(self, limit_s: float = 10.0) -> None:
        """Gateway op 9 (invalid session, not resumable): the client must identify anew; returns once it has."""
        await self._server.call(self._invalidate_session(limit_s))

    async def _invalidate_session(self, limit_s: float) -> None:
        before = self.identified
        ws = self._sockets[-1]
        self.sessions.clear()
        self.invalid_sessions += 1
        await ws.send_str(json.dumps({"op": 9, "d": False}))
        await self._until(lambda: self.identified > before, "the client did not identify anew", limit_s)

    async def _watch_heartbeats(self, ws: web.WebSocketResponse, last: list[float]) -> None:
        """Discord closes a connection whose heartbeats stop (the client then resumes)."""
        interval = self.heartbeat_ms / 1000
        loop = asyncio.get_running_loop()
        while not ws.closed:
            await asyncio.sleep(interval / 2)
            if loop.time() - last[0] > interval * 1.5 + 1.0:
                self.protocol_errors.append("gateway: no heartbeat within the interval")
                await ws.close(code=4000, message=b"Heartbeat missed.")
                return

    async def _gateway(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        await ws.send_str(json.dumps({"op": 10, "d": {"heartbeat_interval": self.heartbeat_ms}}))
        last = [asyncio.get_running_loop().time()]
        watchdog = asyncio.create_task(self._watch_heartbeats(ws, last))
        try:
            async for msg in ws:
                if msg.type != WSMsgType.TEXT:
                    continue
                frame = json.loads(msg.data)
                op = frame.get("op")
                if op == 1:
                    self.heartbeats += 1
                    last[0] = asyncio.get_running_loop().time()
                    read = frame.get("d")
                    if isinstance(read, int):
                        self._read_seq[ws] = max(read, self._read_seq.get(ws, -1))
                    self._touch()
                    await ws.send_str(json.dumps({"op": 11}))
                elif op == 2:
                    if frame["d"].get("token") != self.token:
                        await ws.close(code=4004, message=b"Authentication failed.")
                        break
                    shard = self._shard_in(frame["d"])
                    if isinstance(shard, int):  # a close code
                        await ws.close(code=shard, message=b"Invalid shard." if shard == 4010 else b"Sharding required.")
                        break
                    if not self._identify_allowed(shard[0]):
                        await ws.send_str(json.dumps({"op": 9, "d": False}))
                        self._touch()
                        continue
                    self.identified += 1
                    self._sockets.append(ws)
                    session = f"session{self.identified}"
                    self.sessions.add(session)
                    self._session_of[ws] = session
                    await self._ready(ws, session, shard)
                    self._touch()
                elif op == 6:
                    d = frame.get("d") or {}
                    if d.get("token") != self.token or d.get("session_id") not in self.sessions:
                        self.invalid_sessions += 1
                        await ws.send_str(json.dumps({"op": 9, "d": False}))  # identify anew
                        continue
                    if ws not in self._sockets:
                        self._sockets.append(ws)
                    self._shard_of[ws] = self._session_shard.get(d["session_id"], (0, 1))
                    self._session_of[ws] = d["session_id"]
                    self.resumed += 1
                    await self._send_dispatch(ws, "RESUMED", {})
                    self._touch()
        finally:
            watchdog.cancel()
            if ws in self._sockets:
                self._sockets.remove(ws)
            self._shard_of.pop(ws, None)
            self._session_of.pop(ws, None)
            self._sent_seq.pop(ws, None)
            self._read_seq.pop(ws, None)
            self._touch()
        return ws

    # ---- gateway: shards ----------------------------------------------------

    def guild_of(self, channel_id: int) -> int:
        """The guild a text channel is in (`add_guild`); the default guild for any other channel."""
        return self.channel_guild.get(channel_id, self.guild_id)

    def add_guild(self, guild_id: int, channel_id: int) -> None:
        """The bot joins another guild, with one text channel (tests put guilds on different shards)."""
        self.guild_ids.add(guild_id)
        self.channel_guild[channel_id] = guild_id

    def _guild_seen(self, interaction: FakeInteraction) -> int | None:
        return self.guild_of(interaction.channel_id) if interaction.guild else None

    @staticmethod
    def shard_for(guild_id: int, count: int) -> int:
        """Discord's sharding formula."""
        return (guild_id >> 22) % count

    def session_for(self, guild_id: object) -> web.WebSocketResponse | None:
        """The newest live session that Discord routes this guild's events to (DMs: shard 0)."""
        for ws in reversed(self._sockets):
            shard = self._shard_of.get(ws)
            if shard is None or ws.closed:
                continue
            wanted = 0 if guild_id is None else self.shard_for(int(str(guild_id)), shard[1])
            if shard[0] == wanted:
                return ws
        return None

    def live_sessions(self) -> set[str]:
        """The session ids of the live gateway connections (to tell one process's from another's)."""
        return {self._session_of[ws] for ws in list(self._sockets) if ws in self._session_of and not ws.closed}

    def live_shards(self) -> list[tuple[int, int]]:
        """The (shard id, count) of every live session, one entry a session."""
        return sorted(self._shard_of[ws] for ws in list(self._sockets) if ws in self._shard_of and not ws.closed)

    def _shard_in(self, identify: JSON) -> tuple[int, int] | int:
        """The shard an IDENTIFY asks for, or the close code refusing it."""
        raw = identify.get("shard", [0, 1])
        try:
            shard_id, count = int(raw[0]), int(raw[1])
        except (TypeError, ValueError, IndexError):
            return 4010
        if count < 1 or not 0 <= shard_id < count:
            return 4010
        if count < self.required_shards:
            return 4011
        return shard_id, count

    def _identify_allowed(self, shard_id: int) -> bool:
        """max_concurrency identifies in a 5-second window (Discord's clock), one a bucket; a faster one
        is refused."""
        now = self.discord_now()
        bucket = shard_id % self.max_concurrency
        last = self._identified_at.get(bucket)
        if last is not None and now - last < self.identify_window:
            self.identify_refused += 1
            return False
        self._identified_at[bucket] = now
        self.session_starts += 1
        return True

    def since_identify(self, bucket: int) -> float | None:
        """Real seconds since the bucket's last identify (None: never), for tests that must wait out a
        bot's own identify pace."""
        last = self._identified_at.get(bucket)
        return None if last is None else self.real(self.discord_now() - last)

    async def _ready(self, ws: web.WebSocketResponse, session: str, shard: tuple[int, int]) -> None:
        """READY, then a GUILD_CREATE for each guild of the shard."""
        if shard in self.live_shards():
            self.shard_overlaps += 1
        self._shard_of[ws] = shard
        self._session_shard[session] = shard
        guilds = sorted(g for g in self.guild_ids if self.shard_for(g, shard[1]) == shard[0])
        ready = {
            "v": 10, "user": self.bot_user, "guilds": [{"id": str(g), "unavailable": True} for g in guilds],
            "session_id": session, "resume_gateway_url": self.gateway_url, "shard": list(shard),
            "application": {"id": str(self.app_id), "flags": 0},
        }
        await self._send_dispatch(ws, "READY", ready)
        for g in guilds:
            await self._send_dispatch(ws, "GUILD_CREATE", self._guild(g))

    def _guild(self, guild_id: int) -> JSON:
        channels = [c for c, g in self.channel_guild.items() if g == guild_id]
        return {
            "id": str(guild_id), "name": f"guild {guild_id}", "icon": None, "owner_id": "1", "unavailable": False,
            "large": False, "member_count": 5, "roles": [], "emojis": [], "stickers": [], "features": [],
            "members": [], "presences": [], "voice_states": [], "threads": [], "stage_instances": [],
            "guild_scheduled_events": [], "soundboard_sounds": [],
            "channels": [{k: v for k, v in self._channel(c).items() if k != "guild_id"} for c in channels],
            "joined_at": _now(), "premium_tier": 0, "preferred_locale": "en-US",
        }

    # ---- REST: identity and commands ---------------------------------------

    async def _me(self, request: web.Request) -> web.Response:
        return _json(self.bot_user)

    async def _application(self, request: web.Request) -> web.Response:
        return _json({
            "id": str(self.app_id), "name": "tractor-host", "description": "", "icon": None,
            "bot_public": True, "bot_require_code_grant": False, "verify_key": "0" * 64,
            "owner": {"id": "1", "username": "owner", "discriminator": "0", "avatar": None},
            "flags": 0, "summary": "", "rpc_origins": [], "team": None,
        })

    async def _gateway_info(self, request: web.Request) -> web.Response:
        return _json({"url": self.gateway_url, "shards": self.shard_count,
                      "session_start_limit": {"total": self.session_start_total,
                                              "remaining": max(0, self.session_start_total - self.session_starts),
                                              "reset_after": 86_400_000, "max_concurrency": self.max_concurrency}})

    async def _put_commands(self, request: web.Request) -> web.Response:
        body = await self._body(request)
        commands: list[JSON] = body if isinstance(body, list) else []
        problems = command_problems(commands)
        if problems:
            self.protocol_errors.extend(f"commands: {p}" for p in problems)
            errors = {"_form": {"_errors": [{"code": "BASE_TYPE_INVALID", "message": p} for p in problems]}}
            return _json({"code": 50035, "message": "Invalid Form Body", "errors": errors}, status=400)
        stored = []
        for command in commands:
            stored.append({**command, "id": str(next(self._ids)), "application_id": str(self.app_id),
                           "version": "1", "default_member_permissions": _bits(command.get("default_member_permissions")),
                           "dm_permission": command.get("dm_permission", True), "type": command.get("type", 1)})
        self.commands = stored
        return _json(stored)

    async def _get_commands(self, request: web.Request) -> web.Response:
        return _json(self.commands)

    # ---- REST: interaction responses -----------------------------------------

    def _interaction_by_token(self, token: str) -> FakeInteraction | None:
        return self._by_token.get(token)

    def _new_message(
        self, channel_id: int, body: JSON, *, visible_to: int | None, via: str, flags: int = 0,
    ) -> FakeMessage:
        message = FakeMessage(
            id=next(self._ids), channel_id=channel_id, content=str(body.get("content") or ""),
            embeds=list(body.get("embeds") or []), components=list(body.get("components") or []),
            flags=flags, visible_to=visible_to, via=via, attachments=list(body.get("_files", [])),
        )
        self._record_version(message)
        self.messages[message.id] = message
        return message

    def _update_message(self, message: FakeMessage, body: JSON) -> None:
        if "content" in body:
            message.content = str(body["content"] or "")
        if "embeds" in body:
            message.embeds = list(body["embeds"] or [])
        if "components" in body:
            message.components = list(body["components"] or [])
        if body.get("_files"):
            message.attachments = list(body["_files"])
        message.loading = False
        self._record_version(message)
        for press in self._pressed_on.pop(message.id, []):
            self._said(press, message)

    @staticmethod
    def _said(interaction: FakeInteraction, message: FakeMessage) -> None:
        if not message.loading and (text := message.text()):
            interaction.words.append(text)

    def _record_version(self, message: FakeMessage) -> None:
        message.history.append(message.text())
        message.peak_selects = max(message.peak_selects, len(message.selects()))
        message.snapshots.append(_SNAPSHOT.get() if self.observer is not None else None)

    def _invalid(self, body: JSON, what: str) -> web.Response | None:
        """Discord refuses a message beyond its limits with a 400: nothing is stored, and the test fails."""
        problems = form_problems(body)
        if not problems:
            return None
        self.protocol_errors.extend(f"{what}: {p}" for p in problems)
        errors = {"_form": {"_errors": [{"code": "BASE_TYPE_INVALID", "message": p} for p in problems]}}
        return _json({"code": 50035, "message": "Invalid Form Body", "errors": errors}, status=400)

    async def _callback(self, request: web.Request) -> web.Response:
        interaction = self.interactions.get(int(request.match_info["iid"]))
        if interaction is None or interaction.token != request.match_info["token"]:
            return _error(404, 10062, "Unknown interaction")
        if interaction.callback_type is not None:
            if not interaction.replayed:  # a replayed one may well be answered again, and refused
                self.protocol_errors.append(f"interaction {interaction.id} answered twice")
            return _error(400, 40060, "Interaction has already been acknowledged.")
        arrived = request.get(_ARRIVED, self.now())
        if arrived - interaction.created > ANSWER_WINDOW_S:
            interaction.late = True
            interaction.answered.set()
            return _error(404, 10062, "Unknown interaction")
        body = await self._body(request)
        ctype = int(body.get("type", 0))
        data: JSON = body.get("data") or {}
        misfit = callback_problem(interaction.type, ctype)
        if misfit is not None:
            return self._refuse_callback(interaction, misfit, 50035, "Invalid Form Body")
        if ctype in (MESSAGE, UPDATE_MESSAGE):
            invalid = self._invalid(data, f"interaction {interaction.id}")
            if invalid is not None:
                return invalid
        if ctype == MESSAGE and empty(data):
            return self._refuse_callback(interaction, "an empty message", 50006, "Cannot send an empty message")
        if ctype == AUTOCOMPLETE and (problems := choice_problems(data.get("choices", []))):
            return self._refuse_callback(interaction, "; ".join(problems), 50035, "Invalid Form Body")
        interaction.answered_at = arrived
        interaction.callback_type = ctype
        interaction.callback_data = data
        resource: JSON = {"type": ctype}
        info: JSON = {"id": str(interaction.id), "type": interaction.type}
        flags = int(data.get("flags", 0))
        visible = interaction.user.id if flags & EPHEMERAL or not interaction.guild else None
        if ctype in (MESSAGE, DEFERRED_MESSAGE):
            message = self._new_message(
                interaction.channel_id, data if ctype == MESSAGE else {}, visible_to=visible,
                via="interaction", flags=flags & EPHEMERAL,
            )
            message.loading = ctype == DEFERRED_MESSAGE
            message.interaction_id, message.interaction_user = interaction.id, interaction.user.payload()
            interaction.original_id = message.id
            interaction.owned.add(message.id)
            self._said(interaction, message)
            info.update(response_message_id=str(message.id), response_message_loading=message.loading,
                        response_message_ephemeral=bool(flags & EPHEMERAL))
            resource["message"] = message.payload(self._guild_seen(interaction), self.bot_user)
        elif ctype in (DEFERRED_UPDATE, UPDATE_MESSAGE):
            if interaction.message_id is None:
                self.protocol_errors.append(f"interaction {interaction.id}: update without a message")
                interaction.answered.set()  # answered, wrongly: whoever waits for it need wait no more
                return _error(400, 50035, "Invalid Form Body")
            target = self.messages[interaction.message_id]
            if ctype == UPDATE_MESSAGE:
                self._update_message(target, data)
                self._said(interaction, target)
                resource["message"] = target.payload(self.guild_of(target.channel_id), self.bot_user)
            else:  # answered once the message it was pressed on changes
                self._pressed_on.setdefault(target.id, []).append(interaction)
        elif ctype == AUTOCOMPLETE:
            interaction.choices = list(data.get("choices", []))
        elif ctype != MODAL:
            self.protocol_errors.append(f"interaction {interaction.id}: callback type {ctype}")
        interaction.answered.set()
        return _json({"interaction": info, "resource": resource})

    def _refuse_callback(self, interaction: FakeInteraction, problem: str, code: int, message: str) -> web.Response:
        """A callback Discord refuses (400): the interaction stays unanswered, and the test fails."""
        self.protocol_errors.append(f"interaction {interaction.id}: {problem}")
        interaction.answered.set()  # whoever waits for it need wait no more
        return _error(400, code, message)

    def _empty(self, what: str) -> web.Response:
        self.protocol_errors.append(f"{what}: an empty message")
        return _error(400, 50006, "Cannot send an empty message")

    def _webhook_target(self, request: web.Request) -> tuple[FakeInteraction | None, FakeMessage | None, str]:
        interaction = self._interaction_by_token(request.match_info["token"])
        if interaction is None:
            return None, None, "Unknown Webhook"
        if self.token_dead(interaction):
            return interaction, None, "Invalid Webhook Token"
        mid = request.match_info["mid"]
        try:
            target_id = (interaction.original_id or interaction.message_id) if mid == "@original" else int(mid)
        except ValueError:
            return interaction, None, "Unknown Message"
        message = self.messages.get(target_id) if target_id is not None else None
        if message is None or message.deleted or message.gone or target_id not in interaction.owned:
            return interaction, None, "Unknown Message"  # another interaction's message: not this token's
        return interaction, message, ""

    @staticmethod
    def _webhook_error(interaction: FakeInteraction | None, error: str) -> web.Response:
        if interaction is None:
            return _error(404, 10015, error)
        if error == "Invalid Webhook Token":
            return _error(401, 50027, error)
        return _error(404, 10008, error)

    async def _get_webhook_message(self, request: web.Request) -> web.Response:
        interaction, message, error = self._webhook_target(request)
        if message is None or interaction is None:
            return self._webhook_error(interaction, error)
        return _json(message.payload(self._guild_seen(interaction), self.bot_user))

    async def _edit_webhook_message(self, request: web.Request) -> web.Response:
        interaction, message, error = self._webhook_target(request)
        if message is None or interaction is None:
            return self._webhook_error(interaction, error)
        if interaction.callback_type is None:
            self.protocol_errors.append(f"interaction {interaction.id}: edited before it was answered")
            return _error(404, 10062, "Unknown interaction")
        body = await self._body(request)
        invalid = self._invalid(body, f"edit of message {message.id}")
        if invalid is not None:
            return invalid
        if empty({**_showing(message), **body}):
            return self._empty(f"edit of message {message.id}")
        self._update_message(message, body)
        self._said(interaction, message)
        return _json(message.payload(self._guild_seen(interaction), self.bot_user))

    async def _delete_webhook_message(self, request: web.Request) -> web.Response:
        interaction, message, error = self._webhook_target(request)
        if message is None or interaction is None:
            return self._webhook_error(interaction, error)
        message.deleted = True
        return web.Response(status=204)

    async def _followup(self, request: web.Request) -> web.Response:
        interaction = self._interaction_by_token(request.match_info["token"])
        if interaction is None:
            return _error(404, 10015, "Unknown Webhook")
        if self.token_dead(interaction):
            return _error(401, 50027, "Invalid Webhook Token")
        if interaction.callback_type is None:
            self.protocol_errors.append(f"interaction {interaction.id}: follow-up before it was answered")
            return _error(404, 10015, "Unknown Webhook")
        body = await self._body(request)
        invalid = self._invalid(body, f"follow-up of interaction {interaction.id}")
        if invalid is not None:
            return invalid
        if empty(body):
            return self._empty(f"follow-up of interaction {interaction.id}")
        guild = self._guild_seen(interaction)
        original = self.messages.get(interaction.original_id) if interaction.original_id is not None else None
        if interaction.callback_type == DEFERRED_MESSAGE and original is not None and original.loading:
            # Discord: the first follow-up after a deferred reply fills that reply (its flags stay)
            self._update_message(original, body)
            self._said(interaction, original)
            return _json(original.payload(guild, self.bot_user))
        flags = int(body.get("flags", 0)) & EPHEMERAL
        visible = interaction.user.id if flags or not interaction.guild else None
        message = self._new_message(interaction.channel_id, body, visible_to=visible, via="followup", flags=flags)
        message.interaction_id, message.interaction_user = interaction.id, interaction.user.payload()
        interaction.owned.add(message.id)
        self._said(interaction, message)
        return _json(message.payload(guild, self.bot_user))

    # ---- REST: channels and DMs -----------------------------------------------

    async def _open_dm(self, request: web.Request) -> web.Response:
        body = await self._body(request)
        user_id = int(body["recipient_id"])
        channel_id = next((c for c, u in self.dm_channels.items() if u == user_id), None)
        if channel_id is None:
            channel_id = next(self._ids)
            self.dm_channels[channel_id] = user_id
        return _json({"id": str(channel_id), "type": 1, "last_message_id": None,
                      "recipients": [{"id": str(user_id), "username": f"user{user_id}", "discriminator": "0",
                                      "avatar": None}]})

    def _visibility(self, channel_id: int) -> tuple[int | None, str]:
        user = self.dm_channels.get(channel_id)
        return (user, "dm") if user is not None else (None, "channel")

    async def _post_message(self, request: web.Request) -> web.Response:
        channel_id = int(request.match_info["cid"])
        visible, via = self._visibility(channel_id)
        if visible is not None and visible in self.unreachable_users:
            return _error(403, 50007, "Cannot send messages to this user")
        body = await self._body(request)
        need = SEND_IN_THREADS if channel_id in self.threads else SEND_MESSAGES
        if visible is None and not self.bot_permissions & need:
            self.protocol_errors.append(f"message to channel {channel_id}: the bot lacks permission {need}")
            return _error(403, 50013, "Missing Permissions")
        invalid = self._invalid(body, f"message to channel {channel_id}")
        if invalid is not None:
            return invalid
        if empty(body):
            return self._empty(f"message to channel {channel_id}")
        message = self._new_message(channel_id, body, visible_to=visible, via=via)
        return _json(message.payload(self.guild_of(message.channel_id) if via == "channel" else None,
                                     self.bot_user))

    def _channel_message(self, request: web.Request) -> FakeMessage | None:
        message = self.messages.get(int(request.match_info["mid"]))
        if message is None or message.deleted or message.channel_id != int(request.match_info["cid"]):
            return None
        if message.ephemeral:
            return None  # ephemeral messages are reachable only through their interaction token
        return message

    async def _get_message(self, request: web.Request) -> web.Response:
        message = self._channel_message(request)
        if message is None:
            return _error(404, 10008, "Unknown Message")
        return _json(message.payload(
            self.guild_of(message.channel_id) if message.via == "channel" else None, self.bot_user))

    # ---- rate limits ------------------------------------------------------

    def _bucket(self, request: web.Request) -> tuple[str, tuple[int, float] | None]:
        """The route's bucket and its limit: a channel's messages, a token's webhook, or none."""
        info = request.match_info
        if request.path.startswith("/api/v10/interactions/"):
            return "callback", None
        if "cid" in info:
            return f"channel{info['cid']}", self.channel_limit
        if "token" in info and request.path.startswith("/api/v10/webhooks/"):
            return f"webhook{info['token']}", self.webhook_limit
        return "", None

    def _take(self, bucket: str, limit: tuple[int, float] | None) -> web.Response | None:
        """Counts one request; a 429 as Discord sends it (discord.py sleeps `retry_after`), or None.

        Interaction endpoints (the callback, and the webhook of an interaction token) are not bound
        by the global limit (Discord's rule); everything else is. Windows run on Discord's clock."""
        now = self.discord_now()
        if self.global_limit is not None and not bucket.startswith(("callback", "webhook")):
            count, window = self.global_limit
            if "global" in self._spent:
                self._spent.discard("global")
                self._hits["global"] = [now] * count
            recent = self._hits["global"] = [t for t in self._hits.get("global", []) if now - t < window]
            if len(recent) >= count:
                self.rate_limited += 1
                self.global_limited += 1
                return self._429(window - (now - recent[0]), "global", count, is_global=True)
            recent.append(now)
        if limit is None:
            return None
        count, window = limit
        if bucket in self._spent:
            self._spent.discard(bucket)
            self._hits[bucket] = [now] * count
        recent = self._hits[bucket] = [t for t in self._hits.get(bucket, []) if now - t < window]
        if len(recent) >= count:
            self.rate_limited += 1
            kind = bucket.rstrip("0123456789").split("itoken")[0]
            self.limited_buckets[kind] = self.limited_buckets.get(kind, 0) + 1
            return self._429(window - (now - recent[0]), bucket, count)
        recent.append(now)
        return None

    def _headers(self, response: web.StreamResponse, bucket: str, limit: tuple[int, float]) -> None:
        """The bucket's state as Discord announces it; its reset in real seconds (the module doc)."""
        count, window = limit
        now = self.discord_now()
        recent = self._hits.get(bucket, [])
        reset_after = max(0.001, self.real(window - (now - recent[0]) if recent else window))
        response.headers.update({
            "X-RateLimit-Limit": str(count), "X-RateLimit-Remaining": str(max(0, count - len(recent))),
            "X-RateLimit-Reset": f"{datetime.now(UTC).timestamp() + reset_after:.3f}",
            "X-RateLimit-Reset-After": f"{reset_after:.3f}", "X-RateLimit-Bucket": bucket,
        })

    def _429(self, retry: float, bucket: str, count: int, *, is_global: bool = False) -> web.Response:
        """Discord's 429 for a wait of `retry` Discord seconds, told to the client in real seconds."""
        retry = max(0.001, self.real(retry))
        body = json.dumps({"message": "You are being rate limited.", "retry_after": retry, "global": is_global})
        headers = {"Content-Type": "application/json", "Via": "1.1 google", "Retry-After": str(retry),
                   "X-RateLimit-Limit": str(count), "X-RateLimit-Remaining": "0",
                   "X-RateLimit-Reset-After": f"{retry:.3f}", "X-RateLimit-Bucket": bucket,
                   "X-RateLimit-Scope": "global" if is_global else "user"}
        if is_global:
            headers["X-RateLimit-Global"] = "true"
        return web.Response(status=429, body=body.encode(), headers=headers)

    async def _edit_message(self, request: web.Request) -> web.Response:
        message = self._channel_message(request)
        if message is None:
            return _error(404, 10008, "Unknown Message")
        body = await self._body(request)
        invalid = self._invalid(body, f"edit of message {message.id}")
        if invalid is not None:
            return invalid
        if empty({**_showing(message), **body}):
            return self._empty(f"edit of message {message.id}")
        self._update_message(message, body)
        return _json(message.payload(
            self.guild_of(message.channel_id) if message.via == "channel" else None, self.bot_user))

    async def _delete_message(self, request: web.Request) -> web.Response:
        message = self._channel_message(request)
        if message is None:
            return _error(404, 10008, "Unknown Message")
        message.deleted = True
        return web.Response(status=204)


@contextlib.asynccontextmanager
async def running_fake(*, scale: float = 1.0) -> AsyncIterator[FakeDiscord]:
    """A started fake with discord.py pointed at it; restored and stopped afterwards. `scale`: real
    seconds a Discord second lasts (the module doc)."""
    fake = FakeDiscord(scale=scale)
    await fake.start()
    try:
        with fake.pointed_at():
            yield fake
    finally:
        await fake.stop()
