"""A recording fake platform and helpers to drive the host as an adapter would."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

from bot.intents import codec
from bot.platform import Incoming, Unreachable, User, View, Where
from bot.scene.diff import Shown, signature
from bot.views import HAND_PAGE_SIZE


@dataclass
class Sent:
    """One outgoing message or edit, with a snapshot of what was public at that moment."""

    op: str  # "send" or "edit" or "notice"
    where: Where
    message_id: str
    view: View
    snapshot: Any = None


class Recorder:
    """Collects every notice of one event (the adapter's callback answer)."""

    def __init__(self, platform: RecordingPlatform, user: User) -> None:
        self.platform = platform
        self.user = user
        self.texts: list[str] = []

    async def notice(self, text: str, alert: bool = False) -> None:
        self.texts.append(text)
        where = Where(self.platform.name, self.user.user_id, private=True)
        self.platform.log.append(Sent("notice", where, "", View(text), self.platform.snapshot()))


@dataclass
class RecordingPlatform:
    """Implements the Platform protocol in memory; keeps the latest content of every message."""

    name: str = "fake"
    log: list[Sent] = field(default_factory=list)
    messages: dict[str, tuple[Where, View]] = field(default_factory=dict)
    unreachable: set[str] = field(default_factory=set)
    observer: Any = None  # () -> snapshot of public state, set by leak tests
    files: list[tuple[Where, str, bytes]] = field(default_factory=list)
    deep_links: bool = False  # like Telegram: joining goes through a link to the private chat
    turn_notices: bool = False
    hand_page_size: int = HAND_PAGE_SIZE
    one_screen: bool = False
    sends_files: bool = True
    play_menu: bool = False
    live_countdown: bool = False
    shown: Shown = field(default_factory=Shown)  # what each message shows, as a real door keeps it
    _ids: Any = field(default_factory=lambda: itertools.count(1))

    def snapshot(self) -> Any:
        return self.observer() if self.observer is not None else None

    async def send(self, where: Where, view: View) -> str:
        if where.private and where.chat_id in self.unreachable:
            raise Unreachable(where.chat_id, self.how_to_fix())
        mid = str(next(self._ids))
        self.messages[mid] = (where, view)
        self.shown.put(where.chat_id, mid, signature(view))
        self.log.append(Sent("send", where, mid, view, self.snapshot()))
        return mid

    async def edit(self, where: Where, message_id: str, view: View) -> None:
        self.messages[message_id] = (where, view)
        self.shown.put(where.chat_id, message_id, signature(view))
        self.log.append(Sent("edit", where, message_id, view, self.snapshot()))

    async def delete(self, where: Where, message_id: str) -> None:
        self.messages.pop(message_id, None)
        self.shown.drop(where.chat_id, message_id)

    async def send_file(self, where: Where, filename: str, data: bytes, caption: str = "") -> str:
        self.files.append((where, filename, data))
        return await self.send(where, View(f"[file {filename}]"))

    def join_link(self, payload: str) -> str | None:
        return f"https://t.me/testbot?start={payload}" if self.deep_links else None

    def how_to_fix(self) -> str:
        return "open a private chat with the bot first"

    def group_texts(self, chat_id: str = "g1") -> list[str]:
        return [s.view.text for s in self.log if not s.where.private and s.where.chat_id == chat_id]

    def private_latest(self, user_id: str) -> View | None:
        """The newest private message to a user (their hand)."""
        for mid in sorted(self.messages, key=int, reverse=True):
            where, view = self.messages[mid]
            if where.private and where.chat_id == user_id and view.buttons is not None and "·" in view.text:
                return view
        return None


class Driver:
    """Builds Incoming events with fresh keys, as an adapter would."""

    def __init__(self, platform: RecordingPlatform, chat_id: str = "g1") -> None:
        self.platform = platform
        self.chat_id = chat_id
        self.keys = itertools.count(1)
        self.last: Recorder | None = None

    def user(self, uid: str, lang: str | None = "en") -> User:
        return User(self.platform.name, uid, f"P{uid}", lang)

    def event(self, kind: str, uid: str, *, private: bool = False, key: str | None = None, **kw: Any) -> Incoming:
        u = self.user(uid)
        where = Where(self.platform.name, uid if private else self.chat_id, private=private)
        self.last = Recorder(self.platform, u)
        if "token" in kw:  # button data, read by the one codec as an adapter does
            kw["intent"] = codec.read(kw.pop("token"))
        return Incoming(kind, u, where, key=key or f"k{next(self.keys)}", reply=self.last, **kw)  # type: ignore[arg-type]

    def command(self, uid: str, name: str, *args: str, **kw: Any) -> Incoming:
        return self.event("command", uid, name=name, args=tuple(args), **kw)

    def press(self, uid: str, token: str, **kw: Any) -> Incoming:
        return self.event("press", uid, token=token, private=kw.pop("private", True), **kw)

    def text(self, uid: str, text: str, **kw: Any) -> Incoming:
        return self.event("text", uid, text=text, **kw)
