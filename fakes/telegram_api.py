"""A fake Telegram Bot API server on 127.0.0.1 for tests.

The real python-telegram-bot client talks to it unpatched (point the
application's `base_url` at `fake.base_url`). It keeps chats and messages,
records every call, lets a test push the updates a real Telegram client
would produce (commands, button presses, inline queries, chosen inline
results, a private /start with a deep-link payload), models users who never
opened the bot or blocked it, refuses identical edits the way Telegram does,
enforces Telegram's flood limits (429 with retry_after) on a scaled clock,
refuses edits and sends into a chat whose user blocked the bot (403) and
answers to callback and inline queries after their time limit, caps inline
results at 50 (more come page by page through `next_offset`), and can inject
timeouts, 5xx answers and dropped connections.

Strict by default: a test that wants the limits off says so (`limits=None`),
since a fake that accepts what Telegram refuses hides bugs.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import re
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

BOT_ID = 7000001
BOT_USERNAME = "tractor_test_bot"

# Fields the client JSON-encodes inside a form body; everything else stays a string.
_JSON_FIELDS = frozenset(
    {
        "reply_markup",
        "entities",
        "caption_entities",
        "results",
        "allowed_updates",
        "show_alert",
        "cache_time",
        "is_personal",
        "offset",
        "limit",
        "timeout",
        "message_id",
        "drop_pending_updates",
        "disable_notification",
        "link_preview_options",
        "commands",
        "button",
        "reply_parameters",
        "protect_content",
        "scope",
    }
)
#: The scopes of setMyCommands, and what each one names besides its type.
_SCOPES = {"default": (), "all_private_chats": (), "all_group_chats": (), "all_chat_administrators": (),
           "chat": ("chat_id",), "chat_administrators": ("chat_id",), "chat_member": ("chat_id", "user_id")}
_COMMAND_NAME = re.compile(r"^[a-z0-9_]{1,32}$")
# Calls that put a message into a chat (or change one): these count towards the flood limits.
_MESSAGE_CALLS = frozenset(
    {"sendMessage", "editMessageText", "editMessageReplyMarkup", "sendPhoto", "sendDocument"}
)

NOT_MODIFIED = (
    "Bad Request: message is not modified: specified new message content and reply markup are "
    "exactly the same as a current content and reply markup of the message"
)
CANT_INITIATE = "Forbidden: bot can't initiate conversation with a user"
BLOCKED = "Forbidden: bot was blocked by the user"
QUERY_TOO_OLD = "Bad Request: query is too old and response timeout expired or query ID is invalid"
# Telegram drops a callback or inline query's answer a few seconds after the press (reports put it
# between 5 and 15 s); the fake refuses answers later than this many real seconds (not scaled with
# the flood clock: the person waits in real time).
QUERY_ANSWER_WITHIN = 10.0
MAX_INLINE_RESULTS = 50


@dataclass
class FakeUser:
    """A Telegram user; `opened` once they pressed Start in the private chat."""

    id: int
    first_name: str
    language_code: str = "en"
    opened: bool = False
    blocked: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "is_bot": False,
            "first_name": self.first_name,
            "language_code": self.language_code,
        }


@dataclass
class FakeMessage:
    chat_id: int
    message_id: int
    text: str
    reply_markup: dict[str, Any] | None
    sender: dict[str, Any]
    kind: str = "text"  # "text", "photo", "document"
    deleted: bool = False
    edits: int = 0
    thread: int | None = None  # the forum topic it is in (None: a chat without topics, or General)
    entities: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class ApiCall:
    """One request the bot made, with its decoded parameters and what it got back."""

    method: str
    params: dict[str, Any]
    at: float
    status: int = 200
    result: Any = None
    description: str = ""
    snapshot: Any = None

    @property
    def ok(self) -> bool:
        return self.status == 200


@dataclass
class Limits:
    """Telegram's flood limits, on a clock that can run faster than real time.

    `scale` is how many real seconds one Telegram second lasts: 0.05 makes a
    minute three real seconds, so a test match need not take an hour.
    """

    scale: float = 1.0
    chat_per_second: float = 1.0
    chat_burst: int = 3
    group_per_minute: int = 20
    global_per_second: int = 30


@dataclass
class _Fault:
    method: str | None
    kind: str  # "timeout", "5xx", "drop", "429"
    remaining: int
    delay: float = 0.0
    retry_after: int = 1


@dataclass
class _Bucket:
    tokens: float
    at: float


@dataclass
class FakeTelegram:
    """The fake server. `await start()`, then build the client with `base_url`."""

    token: str = "123456:TEST-TOKEN"
    limits: Limits | None = field(default_factory=Limits)
    clock: Callable[[], float] = time.monotonic
    calls: list[ApiCall] = field(default_factory=list)
    users: dict[int, FakeUser] = field(default_factory=dict)
    messages: dict[tuple[int, int], FakeMessage] = field(default_factory=dict)
    callback_answers: dict[str, dict[str, Any]] = field(default_factory=dict)
    inline_answers: dict[str, dict[str, Any]] = field(default_factory=dict)
    groups: dict[int, str] = field(default_factory=dict)
    rejected_429: int = 0
    # Which limit each 429 came from: "chat", "group" or "bot" (the overall second).
    rejected_by: dict[str, int] = field(default_factory=dict)
    answer_within: float = QUERY_ANSWER_WITHIN
    # Called at every recorded call; what it returns is kept on the call (leak tests).
    observer: Callable[[], Any] | None = None

    def __post_init__(self) -> None:
        self._updates: list[dict[str, Any]] = []
        self._all_updates: list[dict[str, Any]] = []
        self._update_by_id: dict[int, dict[str, Any]] = {}
        self._inline_by_id: dict[str, dict[str, Any]] = {}  # inline query id -> the query
        self._forced: list[dict[str, Any]] = []
        #: update id -> how many times getUpdates handed it out (an unconfirmed one goes out again)
        self.deliveries: dict[int, int] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._confirmed = 0
        self._update_ids = itertools.count(1000)
        self._message_ids: dict[int, itertools.count[int]] = {}
        self._query_ids = itertools.count(9_000_000)
        self._new_update = asyncio.Condition()
        self._stopping = False
        self._faults: list[_Fault] = []
        self._chat_buckets: dict[int, _Bucket] = {}
        self._group_window: dict[int, deque[float]] = {}
        self._global_window: deque[float] = deque()
        self._runner: web.AppRunner | None = None
        self.port = 0
        self.webhook: str | None = None
        self.pending_polls = 0
        self.pushed_at: dict[int, float] = {}
        # (when, chat, user) of each mention in a message a person's client posted (a chosen inline
        # result): Telegram notifies the mentioned person, as a message from the bot would
        self.mentions: list[tuple[float, int, int]] = []
        self.admins: dict[int, set[int]] = {}
        self.forums: dict[int, set[int]] = {}  # forum groups: their topics' thread ids
        #: The bot's "/" menus by (scope type, chat, user, language), as setMyCommands left them.
        self.menus: dict[tuple[str, int, int, str], list[dict[str, str]]] = {}
        self._query_at: dict[str, float] = {}  # callback/inline query id -> when it was pushed

    # -- server lifecycle -------------------------------------------------

    async def start(self) -> None:
        app = web.Application()
        app.router.add_route("*", "/bot{token}/{method}", self._dispatch)
        self._runner = web.AppRunner(app, handle_signals=False, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        server = site._server
        assert server is not None
        sockets = getattr(server, "sockets", None)
        assert sockets
        self.port = sockets[0].getsockname()[1]
        self._stopping = False

    async def stop(self) -> None:
        """Release pending long polls, then close the server."""
        self._stopping = True
        async with self._new_update:
            self._new_update.notify_all()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/bot"

    @property
    def base_file_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/file/bot"

    @property
    def api_root(self) -> str:
        """What TELEGRAM_API_BASE_URL would be set to."""
        return f"http://127.0.0.1:{self.port}"

    # -- people and chats -------------------------------------------------

    def add_user(self, user_id: int, first_name: str, *, opened: bool = False, language: str = "en") -> FakeUser:
        user = FakeUser(user_id, first_name, language, opened=opened)
        self.users[user_id] = user
        return user

    def add_group(self, chat_id: int, title: str = "Tractor club", *, admins: tuple[int, ...] = (),
                  topics: tuple[int, ...] | None = None) -> int:
        """A supergroup; with `topics`, a forum with those topics (thread ids) besides General."""
        self.groups[chat_id] = title
        self.admins[chat_id] = set(admins)
        if topics is not None:
            self.forums[chat_id] = set(topics)
        return chat_id

    def block(self, user_id: int, blocked: bool = True) -> int:
        """The user blocks the bot (or unblocks it); Telegram tells the bot with a my_chat_member update."""
        user = self.users[user_id]
        old = "kicked" if user.blocked else "member"
        user.blocked = blocked
        new = "kicked" if blocked else "member"
        return self._push({"my_chat_member": {
            "chat": self._chat(user_id), "from": user.to_dict(), "date": int(time.time()),
            "old_chat_member": {"status": old, "user": self._bot_user(), **({"until_date": 0} if old == "kicked" else {})},
            "new_chat_member": {"status": new, "user": self._bot_user(), **({"until_date": 0} if new == "kicked" else {})},
        }})

    def _chat(self, chat_id: int) -> dict[str, Any]:
        if chat_id in self.groups:
            forum = {"is_forum": True} if chat_id in self.forums else {}
            return {"id": chat_id, "type": "supergroup", "title": self.groups[chat_id], **forum}
        user = self.users.get(chat_id)
        name = user.first_name if user else str(chat_id)
        return {"id": chat_id, "type": "private", "first_name": name}

    def _next_message_id(self, chat_id: int) -> int:
        counter = self._message_ids.setdefault(chat_id, itertools.count(1))
        return next(counter)

    @staticmethod
    def _bot_user() -> dict[str, Any]:
        return {"id": BOT_ID, "is_bot": True, "first_name": "Tractor", "username": BOT_USERNAME}

    def _message_dict(self, msg: FakeMessage) -> dict[str, Any]:
        out: dict[str, Any] = {
            "message_id": msg.message_id,
            "date": int(time.time()),
            "chat": self._chat(msg.chat_id),
            "from": msg.sender,
        }
        if msg.kind == "text":
            out["text"] = msg.text
        elif msg.kind == "photo":
            out["photo"] = [{"file_id": f"p{msg.message_id}", "file_unique_id": f"u{msg.message_id}",
                             "width": 10, "height": 10}]
            out["caption"] = msg.text
        else:
            out["document"] = {"file_id": f"d{msg.message_id}", "file_unique_id": f"u{msg.message_id}"}
            out["caption"] = msg.text
        if msg.reply_markup is not None:
            out["reply_markup"] = msg.reply_markup
        if msg.thread is not None:
            out["message_thread_id"] = msg.thread
            out["is_topic_message"] = True
        if msg.edits:
            out["edit_date"] = int(time.time())
        return out

    # -- what a real client sends -----------------------------------------

    def _push(self, body: dict[str, Any]) -> int:
        update_id = next(self._update_ids)
        update = {"update_id": update_id, **body}
        self._updates.append(update)
        self._all_updates.append(update)
        self._update_by_id[update_id] = update
        if "inline_query" in body:
            self._inline_by_id.setdefault(str(body["inline_query"].get("id")), body["inline_query"])
        self.pushed_at[update_id] = self.clock()
        self._wake_soon()
        return update_id

    def redeliver(self, update_id: int) -> None:
        """Deliver an update once more, as Telegram does when the bot did not confirm it."""
        update = self._update_by_id[update_id]
        self._forced.append(update)
        self._wake_soon()

    def _wake_soon(self) -> None:
        task = asyncio.get_running_loop().create_task(self._wake())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _wake(self) -> None:
        async with self._new_update:
            self._new_update.notify_all()

    def send_text(self, user_id: int, chat_id: int, text: str, *, thread: int | None = None) -> int:
        """A user types a message (a command gets its bot_command entity, as clients do); `thread`:
        in that topic of a forum group."""
        user = self.users[user_id]
        if thread is not None:
            assert thread in self.forums.get(chat_id, set()), f"no topic {thread} in {chat_id}"
        if chat_id == user_id:
            if user.blocked:  # "Restart bot" unblocks it and sends /start
                self.block(user_id, False)
            user.opened = True
        msg = FakeMessage(chat_id, self._next_message_id(chat_id), text, None, user.to_dict(), thread=thread)
        self.messages[(chat_id, msg.message_id)] = msg
        body = self._message_dict(msg)
        if text.startswith("/"):
            length = len(text.split()[0])
            body["entities"] = [{"type": "bot_command", "offset": 0, "length": length}]
        return self._push({"message": body})

    def edit_text(self, user_id: int, chat_id: int, message_id: int, text: str) -> int:
        """The user edits a message they sent (Telegram sends an edited_message update)."""
        msg = self.messages[(chat_id, message_id)]
        assert msg.sender["id"] == user_id
        msg.text = text
        msg.edits += 1
        body = self._message_dict(msg)
        if text.startswith("/"):
            body["entities"] = [{"type": "bot_command", "offset": 0, "length": len(text.split()[0])}]
        return self._push({"edited_message": body})

    def command(self, user_id: int, chat_id: int, text: str, *, thread: int | None = None) -> int:
        """`/new classic`, `/join@tractor_test_bot`, ... in a chat (in a forum's topic: `thread`)."""
        assert text.startswith("/")
        return self.send_text(user_id, chat_id, text, thread=thread)

    def start_private(self, user_id: int, payload: str = "") -> int:
        """The user opens the bot (deep link: payload) and presses Start."""
        text = f"/start {payload}" if payload else "/start"
        return self.send_text(user_id, user_id, text)

    def press(self, user_id: int, chat_id: int, message_id: int, data: str, *, check: bool = True) -> tuple[int, str]:
        """The user presses an inline button. With `check`, the button must be on the message.

        Returns (update_id, callback_query_id).
        """
        msg = self.messages[(chat_id, message_id)]
        if check:
            assert data in self.callback_data_on(chat_id, message_id), (data, msg.reply_markup)
        query_id = str(next(self._query_ids))
        self._query_at[query_id] = self.clock()
        body = {
            "callback_query": {
                "id": query_id,
                "from": self.users[user_id].to_dict(),
                "chat_instance": f"ci{chat_id}",
                "data": data,
                "message": self._message_dict(msg),
            }
        }
        return self._push(body), query_id

    def inline_query(self, user_id: int, query: str, *, chat_type: str = "supergroup", offset: str = "") -> str:
        """The user types `@bot query` (or pressed a switch_inline_query_current_chat button)."""
        query_id = str(next(self._query_ids))
        self._query_at[query_id] = self.clock()
        self._push(
            {
                "inline_query": {
                    "id": query_id,
                    "from": self.users[user_id].to_dict(),
                    "query": query,
                    "offset": offset,
                    "chat_type": chat_type,
                }
            }
        )
        return query_id

    def scroll_inline(self, query_id: str) -> str | None:
        """The user scrolls to the end of the results: the client asks again with the answer's
        `next_offset` (None when the bot said there is no more)."""
        answer = self.inline_answers[query_id]
        if not answer.get("next_offset"):
            return None
        return self.inline_query(answer["user_id"], answer["query"], offset=answer["next_offset"])

    def choose_inline(self, user_id: int, query_id: str, result_id: str, chat_id: int, *,
                      thread: int | None = None) -> int:
        """The user picks one of the results the bot offered for `query_id`.

        As a real client does, it posts the result's message into the chat
        ("via @bot") and, with inline feedback on, Telegram sends the bot a
        chosen_inline_result.
        """
        answer = self.inline_answers[query_id]
        result = next(r for r in answer["results"] if r["id"] == result_id)
        user = self.users[user_id]
        content = result.get("input_message_content", {})
        text = content.get("message_text", "")
        msg = FakeMessage(chat_id, self._next_message_id(chat_id), text, None, user.to_dict(), thread=thread,
                          entities=list(content.get("entities") or []))
        self.messages[(chat_id, msg.message_id)] = msg
        update_id = self._push(
            {
                "chosen_inline_result": {
                    "result_id": result_id,
                    "from": user.to_dict(),
                    "query": answer["query"],
                }
            }
        )
        for entity in msg.entities:  # the mentioned person's client notifies them, as the post arrives
            if entity.get("type") == "text_mention" and int(entity["user"]["id"]) in self.users:
                self.mentions.append((self.pushed_at[update_id], chat_id, int(entity["user"]["id"])))
        return update_id

    # -- looking at what the bot did ---------------------------------------

    def chat_messages(self, chat_id: int, *, from_bot: bool = True) -> list[FakeMessage]:
        return [
            m
            for (c, _), m in sorted(self.messages.items())
            if c == chat_id and not m.deleted and (not from_bot or m.sender["id"] == BOT_ID)
        ]

    def callback_data_on(self, chat_id: int, message_id: int) -> list[str]:
        markup = self.messages[(chat_id, message_id)].reply_markup or {}
        return [b["callback_data"] for row in markup.get("inline_keyboard", []) for b in row if "callback_data" in b]

    def buttons_on(self, chat_id: int, message_id: int) -> list[dict[str, Any]]:
        markup = self.messages[(chat_id, message_id)].reply_markup or {}
        return [b for row in markup.get("inline_keyboard", []) for b in row]

    def calls_of(self, *methods: str) -> list[ApiCall]:
        return [c for c in self.calls if c.method in methods]

    # -- faults -------------------------------------------------------------

    def inject(self, kind: str, *, method: str | None = None, count: int = 1, delay: float = 0.0,
               retry_after: int = 1) -> None:
        """Make the next `count` calls (of `method`, or any) fail: "timeout" (answer after
        `delay` seconds), "5xx" (502), "drop" (close the connection before acting) or "429". A timed-out call
        still takes effect, as it can on Telegram."""
        assert kind in {"timeout", "5xx", "drop", "429"}
        self._faults.append(_Fault(method, kind, count, delay, retry_after))

    def clear_faults(self) -> None:
        """End every injected fault at once (an outage injected with a large count is over)."""
        self._faults.clear()

    def _take_fault(self, method: str) -> _Fault | None:
        for fault in self._faults:
            if fault.remaining > 0 and fault.method in (None, method):
                fault.remaining -= 1
                return fault
        return None

    # -- flood limits --------------------------------------------------------

    def _flood_wait(self, chat_id: int) -> int:
        """Seconds (Telegram seconds) to wait before this chat may get another message; 0 if now."""
        limits = self.limits
        if limits is None:
            return 0
        now = self.clock() / limits.scale
        bucket = self._chat_buckets.get(chat_id)
        if bucket is None:
            bucket = self._chat_buckets[chat_id] = _Bucket(float(limits.chat_burst), now)
        bucket.tokens = min(float(limits.chat_burst), bucket.tokens + (now - bucket.at) * limits.chat_per_second)
        bucket.at = now
        waits: list[tuple[float, str]] = []
        if bucket.tokens < 1.0:
            waits.append(((1.0 - bucket.tokens) / limits.chat_per_second, "chat"))
        group = self._group_window.setdefault(chat_id, deque()) if chat_id < 0 else None
        if group is not None:
            while group and group[0] <= now - 60.0:
                group.popleft()
            if len(group) >= limits.group_per_minute:
                waits.append((group[0] + 60.0 - now, "group"))
        while self._global_window and self._global_window[0] <= now - 1.0:
            self._global_window.popleft()
        if len(self._global_window) >= limits.global_per_second:
            waits.append((self._global_window[0] + 1.0 - now, "bot"))
        if waits:
            wait, kind = max(waits)
            self.rejected_by[kind] = self.rejected_by.get(kind, 0) + 1
            return max(1, int(wait + 0.999))
        bucket.tokens -= 1.0
        if group is not None:
            group.append(now)
        self._global_window.append(now)
        return 0

    # -- HTTP -----------------------------------------------------------------

    async def _dispatch(self, request: web.Request) -> web.StreamResponse:
        method = request.match_info["method"]
        if request.match_info["token"] != self.token:
            return self._error(None, 401, "Unauthorized")
        params = await self._params(request)
        call = ApiCall(method, params, self.clock())
        if self.observer is not None and method != "getUpdates":
            call.snapshot = self.observer()
        if method != "getUpdates":
            self.calls.append(call)
        fault = self._take_fault(method) if method != "getUpdates" else None
        if fault is not None:
            if fault.kind == "5xx":
                return self._error(call, 502, "Bad Gateway")
            elif fault.kind == "drop":
                if request.transport is not None:
                    request.transport.abort()
                return web.Response(status=204)
            elif fault.kind == "429":
                self.rejected_429 += 1
                return self._error(call, 429, f"Too Many Requests: retry after {fault.retry_after}",
                                   retry_after=fault.retry_after)
        handler = getattr(self, f"_api_{method}", None)
        if handler is None:
            return self._error(call, 404, "Not Found: method not found")
        if method in _MESSAGE_CALLS:
            wait = self._flood_wait(int(params.get("chat_id", 0)))
            if wait:
                self.rejected_429 += 1
                return self._error(call, 429, f"Too Many Requests: retry after {wait}", retry_after=wait)
        try:
            result = await handler(params)
        except _ApiError as exc:
            return self._error(call, exc.status, exc.description)
        call.result = result
        if fault is not None and fault.kind == "timeout":
            # The call took effect; only the answer comes too late (the nasty case).
            await asyncio.shield(asyncio.sleep(fault.delay))
        return web.json_response({"ok": True, "result": result})

    @staticmethod
    async def _params(request: web.Request) -> dict[str, Any]:
        if request.content_type == "application/json":
            body = await request.json()
            return dict(body) if isinstance(body, dict) else {}
        form = await request.post()
        params: dict[str, Any] = {}
        for key, value in form.items():
            if isinstance(value, web.FileField):
                params[key] = {"filename": value.filename, "data": value.file.read()}
            elif key in _JSON_FIELDS:
                try:
                    params[key] = json.loads(value)
                except ValueError:
                    params[key] = value
            elif key == "chat_id" and value.lstrip("-").isdigit():
                params[key] = int(value)
            else:
                params[key] = value
        # The library may send a file as an attach:// reference to another part.
        for key, value in list(params.items()):
            if isinstance(value, str) and value.startswith("attach://"):
                params[key] = params.get(value[len("attach://"):], value)
        return params

    @staticmethod
    def _error(call: ApiCall | None, status: int, description: str, **parameters: Any) -> web.Response:
        if call is not None:
            call.status = status
            call.description = description
        body: dict[str, Any] = {"ok": False, "error_code": status, "description": description}
        if parameters:
            body["parameters"] = parameters
        return web.json_response(body, status=status)

    # -- methods --------------------------------------------------------------

    async def _api_getMe(self, params: dict[str, Any]) -> Any:
        return {**self._bot_user(), "can_join_groups": True, "can_read_all_group_messages": False,
                "supports_inline_queries": True}

    async def _api_deleteWebhook(self, params: dict[str, Any]) -> Any:
        self.webhook = None
        if params.get("drop_pending_updates"):
            self._updates.clear()
        return True

    async def _api_setWebhook(self, params: dict[str, Any]) -> Any:
        self.webhook = str(params.get("url", ""))
        return True

    async def _api_getChatAdministrators(self, params: dict[str, Any]) -> Any:
        chat_id = params.get("chat_id")
        if chat_id not in self.groups:
            raise _ApiError(400, "Bad Request: there are no administrators in the private chat")
        rights = dict.fromkeys(
            ("can_be_edited", "is_anonymous", "can_manage_chat", "can_delete_messages", "can_manage_video_chats",
             "can_restrict_members", "can_promote_members", "can_change_info", "can_invite_users",
             "can_post_stories", "can_edit_stories", "can_delete_stories"), False)
        out = []
        for user_id in sorted(self.admins.get(chat_id, set())):
            user = self.users.get(user_id) or FakeUser(user_id, str(user_id))
            out.append({"status": "administrator", "user": user.to_dict(), **rights})
        return out

    def _menu_key(self, params: dict[str, Any]) -> tuple[str, int, int, str]:
        """(scope type, chat, user, language) as Telegram checks them for the commands' calls."""
        scope = params.get("scope") or {"type": "default"}
        if not isinstance(scope, dict) or scope.get("type") not in _SCOPES:
            raise _ApiError(400, "Bad Request: can't parse BotCommandScope JSON object")
        ids: dict[str, int] = {}
        for name in _SCOPES[str(scope["type"])]:
            value = scope.get(name)
            if not isinstance(value, int) or (name == "chat_id" and value not in self.groups and value not in self.users):
                raise _ApiError(400, "Bad Request: chat not found")
            ids[name] = value
        code = params.get("language_code") or ""
        if not isinstance(code, str) or (code and not re.fullmatch(r"[a-z]{2}", code)):
            raise _ApiError(400, "Bad Request: invalid language code specified")
        return str(scope["type"]), ids.get("chat_id", 0), ids.get("user_id", 0), code

    async def _api_setMyCommands(self, params: dict[str, Any]) -> Any:
        """Telegram's checks: at most 100 commands of 1-32 characters from a-z, 0-9 and _, each with a
        description of 1-256 characters; a known scope (a chat the bot knows), a two-letter language."""
        key = self._menu_key(params)
        commands = params.get("commands")
        if not isinstance(commands, list):
            raise _ApiError(400, "Bad Request: can't parse commands JSON object")
        if len(commands) > 100:
            raise _ApiError(400, "Bad Request: too many commands specified")
        menu: list[dict[str, str]] = []
        for c in commands:
            if not isinstance(c, dict) or not isinstance(c.get("command"), str):
                raise _ApiError(400, "Bad Request: can't parse BotCommand: Can't find field \"command\"")
            if not isinstance(c.get("description"), str):
                raise _ApiError(400, "Bad Request: can't parse BotCommand: Can't find field \"description\"")
            if not _COMMAND_NAME.match(c["command"]):
                raise _ApiError(400, "Bad Request: BOT_COMMAND_INVALID")
            if not 1 <= len(c["description"].strip()) <= 256:
                raise _ApiError(400, "Bad Request: command description must be 1-256 characters")
            menu.append({"command": c["command"], "description": c["description"]})
        if menu:
            self.menus[key] = menu
        else:
            self.menus.pop(key, None)
        return True

    async def _api_getMyCommands(self, params: dict[str, Any]) -> Any:
        return list(self.menus.get(self._menu_key(params), []))

    async def _api_deleteMyCommands(self, params: dict[str, Any]) -> Any:
        self.menus.pop(self._menu_key(params), None)
        return True

    def menu_for(self, user_id: int, chat_id: int) -> list[dict[str, str]]:
        """The menu a person sees in a chat, as Telegram picks it: the narrowest scope that has one
        (this member, the chat, all group or private chats, the default), in the person's language
        (its first two letters) before the one without a language."""
        code = (self.users[user_id].language_code if user_id in self.users else "")[:2]
        group = chat_id in self.groups
        scopes = [("chat_member", chat_id, user_id), ("chat", chat_id, 0),
                  ("all_group_chats" if group else "all_private_chats", 0, 0), ("default", 0, 0)]
        for scope, chat, user in scopes:
            for lang in (code, ""):
                found = self.menus.get((scope, chat, user, lang))
                if found:
                    return list(found)
        return []

    async def _api_getUpdates(self, params: dict[str, Any]) -> Any:
        offset = int(params.get("offset") or 0)
        timeout = float(params.get("timeout") or 0)
        if offset:
            self._updates = [u for u in self._updates if u["update_id"] >= offset]
        self.pending_polls += 1
        try:
            async with self._new_update:
                if not self._updates and not self._forced and timeout > 0 and not self._stopping:
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(self._new_update.wait(), timeout)
        finally:
            self.pending_polls -= 1
        ready = [u for u in self._updates if u["update_id"] >= offset]
        limit = int(params.get("limit") or 100)
        out = ready[:limit]
        if self._forced:
            out, self._forced = self._forced + out, []
        for u in out:
            self.deliveries[u["update_id"]] = self.deliveries.get(u["update_id"], 0) + 1
        return out

    def _target_chat(self, params: dict[str, Any]) -> int:
        chat_id = params.get("chat_id")
        if not isinstance(chat_id, int):
            raise _ApiError(400, "Bad Request: chat not found")
        if chat_id in self.groups:
            return chat_id
        user = self.users.get(chat_id)
        if user is None:
            raise _ApiError(400, "Bad Request: chat not found")
        if user.blocked:
            raise _ApiError(403, BLOCKED)
        if not user.opened:
            raise _ApiError(403, CANT_INITIATE)
        return chat_id

    @staticmethod
    def _check_markup(markup: Any) -> None:
        if markup is None:
            return
        for row in markup.get("inline_keyboard", []):
            if len(row) > 8:
                raise _ApiError(400, "Bad Request: too many buttons in a row")
            for button in row:
                data = button.get("callback_data")
                if data is not None and not 1 <= len(data.encode()) <= 64:
                    raise _ApiError(400, "Bad Request: BUTTON_DATA_INVALID")
        if sum(len(row) for row in markup.get("inline_keyboard", [])) > 100:
            raise _ApiError(400, "Bad Request: reply markup is too long")

    def _thread(self, chat_id: int, params: dict[str, Any]) -> int | None:
        """The topic a message goes to: `message_thread_id`, a topic of this forum (as Telegram, which
        refuses a thread it does not know); none: General in a forum, or a chat without topics."""
        raw = params.get("message_thread_id")
        if raw is None:
            return None
        thread = int(raw) if str(raw).isdigit() else -1
        if thread not in self.forums.get(chat_id, set()):
            raise _ApiError(400, "Bad Request: message thread not found")
        return thread

    def _new_message(self, chat_id: int, text: str, markup: Any, kind: str = "text",
                     thread: int | None = None) -> dict[str, Any]:
        msg = FakeMessage(chat_id, self._next_message_id(chat_id), text, markup, self._bot_user(), kind, thread=thread)
        self.messages[(chat_id, msg.message_id)] = msg
        return self._message_dict(msg)

    async def _api_sendMessage(self, params: dict[str, Any]) -> Any:
        chat_id = self._target_chat(params)
        text = str(params.get("text", ""))
        if not text.strip():
            raise _ApiError(400, "Bad Request: message text is empty")
        if len(text) > 4096:
            raise _ApiError(400, "Bad Request: message is too long")
        markup = params.get("reply_markup")
        self._check_markup(markup)
        return self._new_message(chat_id, text, markup, thread=self._thread(chat_id, params))

    @staticmethod
    def _check_file(params: dict[str, Any], field: str) -> None:
        """A file part (sent as multipart) or a file_id/URL string, as the Bot API wants it."""
        value = params.get(field)
        if isinstance(value, dict):
            if not value.get("data"):
                raise _ApiError(400, "Bad Request: file must be non-empty")
        elif not (isinstance(value, str) and value.strip()):
            raise _ApiError(400, f"Bad Request: there is no {field} in the request")

    async def _api_sendPhoto(self, params: dict[str, Any]) -> Any:
        chat_id = self._target_chat(params)
        self._check_file(params, "photo")
        return self._new_message(chat_id, str(params.get("caption", "")), params.get("reply_markup"), "photo",
                                 self._thread(chat_id, params))

    async def _api_sendDocument(self, params: dict[str, Any]) -> Any:
        chat_id = self._target_chat(params)
        self._check_file(params, "document")
        return self._new_message(chat_id, str(params.get("caption", "")), params.get("reply_markup"), "document",
                                 self._thread(chat_id, params))

    def _existing(self, params: dict[str, Any]) -> FakeMessage:
        chat_id = self._target_chat(params)
        msg = self.messages.get((chat_id, int(params.get("message_id", 0))))
        if msg is None or msg.deleted:
            raise _ApiError(400, "Bad Request: message to edit not found")
        if msg.sender["id"] != BOT_ID:
            raise _ApiError(400, "Bad Request: message can't be edited")
        return msg

    async def _api_editMessageText(self, params: dict[str, Any]) -> Any:
        msg = self._existing(params)
        text = str(params.get("text", ""))
        markup = params.get("reply_markup")
        if not text.strip():
            raise _ApiError(400, "Bad Request: message text is empty")
        self._check_markup(markup)
        if text == msg.text and markup == msg.reply_markup:
            raise _ApiError(400, NOT_MODIFIED)
        msg.text, msg.reply_markup = text, markup
        msg.edits += 1
        return self._message_dict(msg)

    async def _api_editMessageReplyMarkup(self, params: dict[str, Any]) -> Any:
        msg = self._existing(params)
        markup = params.get("reply_markup")
        self._check_markup(markup)
        if markup == msg.reply_markup:
            raise _ApiError(400, NOT_MODIFIED)
        msg.reply_markup = markup
        msg.edits += 1
        return self._message_dict(msg)

    async def _api_deleteMessage(self, params: dict[str, Any]) -> Any:
        msg = self._existing(params)
        msg.deleted = True
        return True

    async def _api_answerCallbackQuery(self, params: dict[str, Any]) -> Any:
        query_id = str(params.get("callback_query_id", ""))
        if query_id in self.callback_answers or not query_id or self._too_old(query_id):
            raise _ApiError(400, QUERY_TOO_OLD)
        text = str(params.get("text", ""))
        if len(text) > 200:
            raise _ApiError(400, "Bad Request: MESSAGE_TOO_LONG")
        self.callback_answers[query_id] = {"text": text, "show_alert": bool(params.get("show_alert"))}
        return True

    async def _api_answerInlineQuery(self, params: dict[str, Any]) -> Any:
        query_id = str(params.get("inline_query_id", ""))
        if query_id in self.inline_answers or self._too_old(query_id):
            raise _ApiError(400, QUERY_TOO_OLD)
        results = params.get("results") or []
        if len(results) > MAX_INLINE_RESULTS:
            raise _ApiError(400, "Bad Request: RESULTS_TOO_MUCH")
        next_offset = str(params.get("next_offset") or "")
        if len(next_offset.encode()) > 64:
            raise _ApiError(400, "Bad Request: NEXT_OFFSET_INVALID")
        button = params.get("button")
        if button is not None and not (isinstance(button, dict) and str(button.get("text", "")).strip()
                                       and ("web_app" in button or "start_parameter" in button)):
            raise _ApiError(400, "Bad Request: BUTTON_INVALID")
        if isinstance(button, dict) and "start_parameter" in button and not (
                1 <= len(str(button["start_parameter"])) <= 64):
            raise _ApiError(400, "Bad Request: START_PARAM_INVALID")
        for r in results:
            content = r.get("input_message_content") or {}
            _check_entities(str(content.get("message_text", "")), content.get("entities") or [])
        ids = [r.get("id", "") for r in results]
        if len(set(ids)) != len(ids) or any(not 1 <= len(i.encode()) <= 64 for i in ids):
            raise _ApiError(400, "Bad Request: RESULT_ID_INVALID")
        asked = self._inline_by_id.get(str(query_id), {})
        self.inline_answers[query_id] = {
            "results": results,
            "query": asked.get("query", ""),
            "offset": asked.get("offset", ""),
            "user_id": asked.get("from", {}).get("id"),
            "next_offset": next_offset,
            "button": button,
            "cache_time": params.get("cache_time"),
            "is_personal": params.get("is_personal"),
        }
        return True


    def _too_old(self, query_id: str) -> bool:
        """Whether the query's answer comes after Telegram stopped waiting for it."""
        asked = self._query_at.get(query_id)
        return asked is not None and self.clock() - asked > self.answer_within


ENTITY_TYPES = frozenset({"mention", "hashtag", "cashtag", "bot_command", "url", "email", "phone_number", "bold",
                          "italic", "underline", "strikethrough", "spoiler", "blockquote", "expandable_blockquote",
                          "code", "pre", "text_link", "text_mention", "custom_emoji"})


def _check_entities(text: str, entities: list[dict[str, Any]]) -> None:
    """Telegram's check of a message's entities: known types, inside the text (in UTF-16 units), and a
    text_mention names a user."""
    size = len(text.encode("utf-16-le")) // 2
    for e in entities:
        offset, length = e.get("offset"), e.get("length")
        if e.get("type") not in ENTITY_TYPES:
            raise _ApiError(400, "Bad Request: can't parse entities: unsupported entity type")
        if not isinstance(offset, int) or not isinstance(length, int) or offset < 0 or length < 1 \
                or offset + length > size:
            raise _ApiError(400, "Bad Request: ENTITY_BOUNDS_INVALID")
        if e["type"] == "text_mention" and not isinstance((e.get("user") or {}).get("id"), int):
            raise _ApiError(400, "Bad Request: can't parse entities: text_mention without a user")


class _ApiError(Exception):
    def __init__(self, status: int, description: str) -> None:
        super().__init__(description)
        self.status = status
        self.description = description
