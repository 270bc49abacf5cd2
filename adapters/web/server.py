"""The web table's server: the page, its WebSocket and the replays, on aiohttp in the bot's process.

Each socket says who it is first (a Telegram Mini App's initData or a signed link), then watches
its table through the host (`bot.live`): the table's actor hands it every state it reaches, as
that seat's view (an onlooker: the public view), and the socket sends the newest one. Actions
come back as the same typed actions a person can write in the chat ("play AS AS"), so they take
the host's one path (`Host.handle`) and are refused in the same words.

`WebTable.add_routes` puts the routes on any `aiohttp.web.Application`, so the process can serve
other routes (health, metrics) beside them.

It runs past 400 lines because every route shares one socket's life (who it is, its rate limits,
its watch on the table, its refusals); the checks of a frame are in `guard.py`, the credentials in
`auth.py`, the words in `words.py`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import resources
from typing import Any
from urllib.parse import quote

from aiohttp import WSMsgType, web

from adapters.web.auth import AuthError, LinkSigner, Person, check_init_data
from adapters.web.config import WebConfig
from adapters.web.guard import BadFrame, Bucket, Limits, act_refusal, content_security_policy, read_frame
from adapters.web.words import page_words
from bot.host import Host
from bot.i18n import DEFAULT_LANG, LANGS, normalize_lang, tr
from bot.intents.text import move
from bot.intents.types import Drawn, Intent
from bot.live import LiveFrame, Watch
from bot.platform import ButtonKind, Incoming, User, Where

log = logging.getLogger(__name__)

HELLO_TIMEOUT = 10.0  # seconds a new socket has to say who it is
ACTIONS = {"play": "play", "bury": "bury", "declare": "declare", "chao": "chao", "pass": "pass",
           "revolt": "revolt", "hint": "hint"}
MAX_CARDS = 40
MAX_BODY = 16 * 1024  # a replay's request: a credential and three numbers
REFUSED = 4401  # the close code of a socket whose credential was refused (the page does not retry)
LINK_RESIGN = 3600.0  # seconds a button's link is kept before it is signed anew
FLOODED = 4429  # the close code of a socket that sent more than its limits (the page retries later)
REPLACED = 4409  # the close code of a person's oldest socket when one too many is open (no retry)
MOVED = 4302  # the close code after `moved`: the page opens the table it names at once
STATIC = resources.files("adapters.web") / "static"


@dataclass(eq=False)
class Connection:
    """One open socket: the newest state not yet sent, and the answers to send before it."""

    ws: web.WebSocketResponse
    seat: int | None = None
    tap: Callable[[int | None, str], None] | None = None  # sees every text sent (the tests' leak scan)
    bucket: Bucket | None = None  # frames it may still send (`adapters.web.guard`)
    latest: str | None = None
    sent: str | None = None
    notices: list[str] = field(default_factory=list)
    wake: asyncio.Event = field(default_factory=asyncio.Event)

    def frame(self, frame: LiveFrame) -> None:
        """Called by the table's actor: keep this seat's view of the state just reached."""
        self.latest = frame.json(self.seat)
        self.wake.set()

    def notice(self, obj: dict[str, Any]) -> None:
        self.notices.append(json.dumps(obj, ensure_ascii=False))
        self.wake.set()

    async def pump(self) -> None:
        """Sends answers and the newest state; states it could not send in time are skipped, not queued."""
        while not self.ws.closed:
            await self.wake.wait()
            self.wake.clear()
            while self.notices:
                await self._send(self.notices.pop(0))
            latest = self.latest
            if latest is not None and latest != self.sent:
                self.sent = latest
                await self._send(latest)

    async def flush(self) -> None:
        """Sends the answers not sent yet (before the socket is closed for flooding: what the table
        answered is still said)."""
        with contextlib.suppress(ConnectionError, RuntimeError):
            while self.notices:
                await self._send(self.notices.pop(0))

    async def _send(self, text: str) -> None:
        if self.tap is not None:
            self.tap(self.seat, text)
        await self.ws.send_str(text)


class _Reply:
    """The host's answer to one action, sent to the socket it came from."""

    def __init__(self, conn: Connection, key: str) -> None:
        self.conn = conn
        self.key = key

    async def notice(self, text: str, alert: bool = False) -> None:
        self.conn.notice({"type": "notice", "key": self.key, "ok": text == "✓", "text": text})


@dataclass(eq=False)
class _Sender:
    """One person across their sockets: what they may still send, and the sockets open."""

    bucket: Bucket
    sockets: list[Connection] = field(default_factory=list)


class WebTable:
    """The web front of a host: links for its buttons (`bot.live.WebLinks`) and the routes."""

    def __init__(self, host: Host, config: WebConfig, *, clock: Callable[[], float] = time.time,
                 monotonic: Callable[[], float] = time.monotonic, limits: Limits | None = None) -> None:
        self.host = host
        self.config = config
        self.clock = clock
        self.monotonic = monotonic  # the rate limits' clock
        self.limits = limits or Limits()
        self.signer = LinkSigner(config.secret, config.link_ttl)
        self.connections: set[Connection] = set()
        self.people: dict[tuple[str, str], _Sender] = {}
        self.tap: Callable[[int | None, str], None] | None = None
        self._runner: web.AppRunner | None = None
        self._keys = 0
        self._links: dict[tuple[str, int, str | None], tuple[float, str]] = {}

    # ----- links (bot.live.WebLinks) -----

    def seat_link(self, platform: str, match_id: int, user_id: str) -> tuple[str, ButtonKind] | None:
        base = self.config.public_url
        if not base:
            return None
        if platform == "telegram" and self.config.telegram_token:
            return f"{base}/?m={match_id}", "web_app"  # the Mini App proves who opens it
        return f"{base}/?m={match_id}#k={quote(self._signed(platform, match_id, user_id))}", "url"

    def table_link(self, platform: str, match_id: int) -> tuple[str, ButtonKind] | None:
        if platform == "telegram" and self.config.miniapp:
            proof = self.signer.table_proof(platform, match_id)
            return f"https://t.me/{self.config.miniapp}?startapp=m{match_id}_{proof}", "url"
        base = self.config.public_url
        if not base:
            return None
        return f"{base}/?m={match_id}#k={quote(self._signed(platform, match_id, None))}", "url"

    def _signed(self, platform: str, match_id: int, user_id: str | None) -> str:
        """A link lasts its whole lifetime from the moment it is signed, and a button's link is
        signed anew at most once an hour (each change costs an edit of the message carrying it),
        so a link on a button has at least `link_ttl` - 1 h left."""
        now = self.clock()
        key = (platform, match_id, user_id)
        kept = self._links.get(key)
        if kept is not None and 0 <= now - kept[0] < LINK_RESIGN:
            return kept[1]
        if len(self._links) > 4096:  # links of tables long gone
            self._links = {k: v for k, v in self._links.items() if 0 <= now - v[0] < LINK_RESIGN}
        token = self.signer.sign(platform, match_id, user_id, now=now)
        self._links[key] = (now, token)
        return token

    # ----- the server -----

    def add_routes(self, app: web.Application) -> None:
        app.router.add_get("/", self.page)
        app.router.add_get("/ws", self.socket)
        app.router.add_post("/replay", self.replay)
        app.router.add_post("/review", self.review)
        app.router.add_get("/words/{lang}.json", self.words)
        app.router.add_static("/static/", str(STATIC), append_version=False)

    def application(self) -> web.Application:
        app = web.Application()
        self.add_routes(app)
        return app

    async def start(self, app: web.Application | None = None) -> None:
        """Serves `app` (by default one with only the web table's routes) on the configured port."""
        self._runner = web.AppRunner(app or self.application(), shutdown_timeout=1.0)
        await self._runner.setup()
        await web.TCPSite(self._runner, self.config.listen, self.config.port).start()

    async def stop(self) -> None:
        for conn in list(self.connections):
            await conn.ws.close()
        if self._runner is not None:
            await self._runner.cleanup()

    async def page(self, request: web.Request) -> web.Response:
        html = (STATIC / "index.html").read_text(encoding="utf-8")
        html = html.replace("{{TELEGRAM_SCRIPT}}", self.config.telegram_script)
        return web.Response(text=html, content_type="text/html",
                            headers={"Cache-Control": "no-store", "Referrer-Policy": "no-referrer",
                                     "Content-Security-Policy": content_security_policy(self.config.telegram_script, request.host),
                                     "X-Content-Type-Options": "nosniff"})

    async def words(self, request: web.Request) -> web.Response:
        """The page's texts in one language (`adapters.web.words`): the chats' catalogs, as JSON."""
        lang = normalize_lang(request.match_info["lang"]) or "en"
        return web.json_response(page_words(lang), headers={"Cache-Control": "public, max-age=3600"})

    def authenticate(self, auth: Any) -> Person:
        """The person a hello's credential names, or AuthError."""
        if not isinstance(auth, dict):
            raise AuthError("malformed")
        if isinstance(auth.get("tg"), str) and auth["tg"]:
            if not self.config.telegram_token:
                raise AuthError("forged")
            return check_init_data(auth["tg"], self.config.telegram_token, now=self.clock(),
                                   max_age=self.config.init_data_max_age)
        if isinstance(auth.get("link"), str) and auth["link"]:
            return self.signer.check(auth["link"], now=self.clock())
        raise AuthError("malformed")

    async def socket(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(heartbeat=20.0, max_msg_size=16 * 1024)
        await ws.prepare(request)
        conn = Connection(ws, tap=self.tap)
        conn.bucket = Bucket(self.limits.socket_rate, self.limits.socket_burst, self.monotonic)
        try:
            hello = await asyncio.wait_for(self._frame(conn), HELLO_TIMEOUT)
            if hello is None:
                return ws
            person = self.authenticate(hello.get("auth"))
            match_id = person.match_id
            asked = hello.get("match")
            if match_id is None and isinstance(asked, int):
                match_id = asked
            if match_id is None or (person.match_id is not None and asked not in (None, person.match_id)):
                raise AuthError("malformed")
        except AuthError as err:
            await self._refuse(ws, err.reason, REFUSED)
            return ws
        except (TimeoutError, BadFrame):
            await self._refuse(ws, "malformed", REFUSED)
            return ws
        sender = self._sender(person)
        if sender is not None and not sender.bucket.take():
            await self._refuse(ws, "flood", FLOODED)  # a burst of reconnects
            return ws
        await self.host.live_load(match_id)  # with several workers: a table driven by another one
        where = self.host.live_where(match_id, person.platform)
        if where is None:
            following = await self.host.live_next(match_id, person.platform)
            if following is not None and (self.may_look_on(person, match_id) or (person.user_id is not None
                                          and self.host.live_seat(following, person.user_id) is not None)):
                # a best of three's game that ended: its next game, with a link of that table
                token = self._signed(person.platform, following, person.user_id)
                await ws.send_json({"type": "moved", "match": following, "link": token})
                await ws.close(code=MOVED)
                return ws
            await self._refuse(ws, "no_table", REFUSED)
            return ws
        conn.seat = self.host.live_seat(match_id, person.user_id) if person.user_id else None
        if conn.seat is None and (not self.may_look_on(person, match_id) or (
                self.host.live_board(match_id) and not person.user_id)):
            # a board's onlookers must be known: they have seen it and may not play it (docs/duplicate.md)
            await self._refuse(ws, "not_seated", REFUSED)
            return ws
        if conn.seat is None and person.user_id:  # looking on is being in the group
            await self.host.heard(User(person.platform, person.user_id, person.name, person.language), where)
        if sender is not None:
            sender.sockets.append(conn)
            while len(sender.sockets) > self.limits.person_sockets:  # the oldest goes, the newest stays
                await self._refuse(sender.sockets.pop(0).ws, "replaced", REPLACED)
        self.connections.add(conn)
        pump = asyncio.create_task(conn.pump())
        self.host.watch(match_id, Watch(conn.frame, conn.seat))
        try:
            while True:
                try:
                    data = await self._frame(conn, sender)
                except BadFrame:
                    conn.notice(self._refusal(person, "", "bad_frame"))
                    continue
                if data is None:
                    break
                if data.get("t") == "act":
                    await self.act(conn, person, Where(person.platform, where.chat_id), match_id, data)
                elif data.get("t") == "seen" and isinstance(data.get("hidden"), bool):
                    if conn.seat is not None:  # the page was hidden or shown: whether the chat takes over
                        self.host.live_seen(match_id, conn.frame, data["hidden"])
                else:
                    conn.notice(self._refusal(person, data.get("key"), "bad_frame"))
        finally:
            self.connections.discard(conn)
            if sender is not None:
                with contextlib.suppress(ValueError):
                    sender.sockets.remove(conn)
            self.host.unwatch(match_id, conn.frame)
            pump.cancel()
            with contextlib.suppress(asyncio.CancelledError, ConnectionError):
                await pump
        return ws

    async def _frame(self, conn: Connection, sender: _Sender | None = None) -> dict[str, Any] | None:
        """The socket's next frame as a dict; None once it closed, or was closed for sending too
        much (every frame counts, for the socket and for the person); BadFrame for one it cannot read."""
        while True:
            msg = await conn.ws.receive()
            if msg.type in (WSMsgType.CLOSE, WSMsgType.CLOSING, WSMsgType.CLOSED, WSMsgType.ERROR):
                return None  # a frame over max_msg_size too: aiohttp closed the socket with 1009
            if not ((conn.bucket is None or conn.bucket.take()) and (sender is None or sender.bucket.take())):
                log.info("web: a socket sent more than its limits; closed")
                await conn.flush()
                await self._refuse(conn.ws, "flood", FLOODED)
                return None
            if msg.type != WSMsgType.TEXT:
                raise BadFrame("binary")
            text = str(msg.data)
            if sender is not None and len(text) > self.limits.max_act_bytes:
                raise BadFrame("too big")
            return read_frame(text, self.limits.max_depth)

    async def _refuse(self, ws: web.WebSocketResponse, reason: str, code: int) -> None:
        with contextlib.suppress(ConnectionError, RuntimeError):
            await ws.send_json({"type": "refused", "reason": reason})
        await ws.close(code=code)

    def _sender(self, person: Person) -> _Sender | None:
        """A person's limits across all their sockets (onlookers by a group's link have each their own)."""
        if person.user_id is None:
            return None
        key = (person.platform, person.user_id)
        found = self.people.get(key)
        if found is None:
            if len(self.people) > 4096:  # people with no socket open and nothing held against them
                self.people = {k: v for k, v in self.people.items() if v.sockets or not v.bucket.full()}
            found = self.people[key] = _Sender(Bucket(self.limits.person_rate, self.limits.person_burst, self.monotonic))
        return found

    def _refusal(self, person: Person, key: object, code: str) -> dict[str, Any]:
        """The answer to an act refused before it reached the table: its own code and words."""
        return {"type": "notice", "key": str(key or "")[:64], "ok": False, "code": code,
                "text": tr(normalize_lang(person.language) or "en", f"web.refused_{code}")}

    def may_look_on(self, person: Person, match_id: int) -> bool:
        """An onlooker needs a link of that table's group: a signed link names it, a Mini App's start
        parameter carries its proof. (A person seated needs nothing more than who they are.)"""
        if person.signed_link:
            return person.match_id == match_id
        return self.signer.proves(person, match_id)

    async def act(self, conn: Connection, person: Person, where: Where, match_id: int, data: dict[str, Any]) -> None:
        """An act from the page, as the structured intent it is, through the host's one path.

        `v`: the version of the state the page drew it from; without one (an older page) it is
        bound to the turn it arrives in, like a typed move."""
        key = str(data.get("key", ""))[:64]
        word = ACTIONS.get(str(data.get("a", "")))
        cards = data.get("cards") or []
        version = data.get("v")
        refusal = act_refusal(word, cards, version, MAX_CARDS)
        if person.user_id is None or conn.seat is None:
            refusal = "onlooker"
        if refusal is not None or word is None or person.user_id is None:
            conn.notice(self._refusal(person, key, refusal or "bad_act"))
            return
        if not key:
            self._keys += 1
            key = f"{id(conn)}.{self._keys}"
        user = User(person.platform, person.user_id, person.name, person.language)
        act = move(word, cards)
        event = Incoming("text" if version is None else "press", user, where,
                         key=f"web:{person.platform}:{person.user_id}:{key}",
                         intent=Intent(act, None if version is None else Drawn(match_id, version)),
                         reply=_Reply(conn, key))
        await self.host.handle(event)

    async def replay(self, request: web.Request) -> web.Response:
        """A finished hand of the credential's chat, trick by trick (public cards only)."""
        try:
            if (request.content_length or 0) > MAX_BODY:
                raise BadFrame("too big")
            text = await request.text()
            if len(text) > MAX_BODY:
                raise BadFrame("too big")
            data = read_frame(text, self.limits.max_depth)
            person = self.authenticate(data.get("auth"))
            chat_of = int(data["match"]) if person.match_id is None else person.match_id
            match_id = int(data.get("replay", chat_of))
            hand_no = int(data.get("hand", 0))
            if not self.may_look_on(person, chat_of) and not await self.host.was_seated(chat_of, person.user_id or ""):
                raise AuthError("not_seated")
        except AuthError as err:
            return web.json_response({"error": err.reason}, status=403)
        except (ValueError, TypeError, AttributeError, KeyError):  # BadFrame too
            return web.json_response({"error": "malformed"}, status=400)
        body = await self.host.replay(person.platform, chat_of, match_id, hand_no, person.user_id)
        if body is None:
            return web.json_response({"error": "no_hand"}, status=404)
        return web.json_response(body)

    async def review(self, request: web.Request) -> web.Response:
        """The asker's own review (复盘) of a finished hand of the credential's chat: only a person who
        held a seat of that match gets one, of that seat (it names their cards)."""
        try:
            data = await request.json()
            person = self.authenticate(data.get("auth"))
            chat_of = int(data.get("match") if person.match_id is None else person.match_id)
            match_id = int(data.get("replay", chat_of))
            hand_no = int(data.get("hand", 0))
            asked = data.get("lang")
            lang = asked if isinstance(asked, str) and asked in LANGS else normalize_lang(person.language) or DEFAULT_LANG
            user_id = person.user_id
            if user_id is None or not await self.host.was_seated(match_id, user_id):
                raise AuthError("not_seated")
        except AuthError as err:
            return web.json_response({"error": err.reason}, status=403)
        except (ValueError, TypeError, AttributeError):
            return web.json_response({"error": "malformed"}, status=400)
        got = await self.host.review(person.platform, chat_of, match_id, hand_no, user_id, lang)
        if isinstance(got, str):
            return web.json_response({"error": "no_hand"}, status=404)
        return web.json_response(got)
