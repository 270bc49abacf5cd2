"""The small protocol between the host and a chat platform.

The host speaks in platform-neutral views; an adapter turns them into
Telegram messages, Discord messages or terminal output, and turns the
platform's updates into `Incoming` events for the host.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Literal, Protocol, runtime_checkable

from bot.intents.codec import pack
from bot.intents.text import parse as parse_line
from bot.intents.types import ButtonAct, Drawn, Intent
from bot.scene.diff import Shown
from bot.scene.types import Scene

ButtonKind = Literal["callback", "inline_query", "url", "web_app"]


@dataclass(frozen=True)
class Button:
    """A button: what it stands for (`act`, drawn at `drawn`), or a link.

    A press button is made with `Button.press` from its typed intent; the door packs it through the
    one codec (`token`) only when it draws the button, so a view that is built and found unchanged
    packs nothing, and no adapter reads a token to draw one.

    kind "inline_query": Telegram opens inline mode in the current chat with
    `link` as the query; kind "url": `link` is a link (deep link to the bot);
    kind "web_app": `link` is the web table's address, opened as a Telegram Mini App
    (private chats only; platforms without Mini Apps show it as a link).
    """

    label: str
    link: str = ""
    kind: ButtonKind = "callback"
    style: Literal["default", "primary", "selected", "danger"] = "default"
    act: ButtonAct | None = None
    drawn: Drawn | None = None

    @classmethod
    def press(cls, label: str, drawn: Drawn, act: ButtonAct,
              style: Literal["default", "primary", "selected", "danger"] = "default") -> Button:
        """A callback button standing for `act`, drawn at `drawn`."""
        return cls(label, style=style, act=act, drawn=drawn)

    @cached_property
    def token(self) -> str:
        """The button's data as the door sends it: the intent packed by the codec (<= 64 bytes), or the link."""
        if self.act is not None and self.drawn is not None:
            return pack(self.drawn, self.act)
        return self.link


@dataclass(frozen=True)
class Cue:
    """Whom a table message waits for, for a platform that notifies them (a mention) and counts down.

    `user_ids`: the people who must act now and have not asked to be left alone (none: nobody to
    notify); `seconds`: until their time runs out, when the view was drawn (None: no limit);
    `version`: the state version it was drawn at, which tells one turn from the next."""

    user_ids: tuple[str, ...] = ()
    seconds: float | None = None
    lang: str = "en"
    version: int = 0


@dataclass(frozen=True)
class View:
    """Text plus a grid of buttons (rows of buttons).

    `choices`: each a whole move in one press (a legal play, the suggested bury), for a platform that
    shows them as one menu (`Platform.play_menu`); others ignore them, the grid offers the same moves.
    `cue`: whose turn it is, on a table message (`Platform.live_countdown`).
    `scene`: what the view was drawn from (`bot.scene`), for a door that lays the table out itself
    (the terminal) or needs more than the text (Discord's hand menus); not part of what it shows.
    `said`: an announcement, never edited nor deleted: a door may deliver it later, in order, and
    answer with an id that is not yet the message's (Discord, so that the table does not wait for a
    channel's rate limit).
    `urgent`: someone learns that they must act only from this message (the bot cannot reach them
    privately): a door that rations a group's messages lets it go first, within the group's whole
    budget rather than the share its table edits may use (Telegram's 20 a minute).
    `lazy`: an edit that tells its reader nothing they were not told otherwise or need at once (the
    cards a tap picked, which the tap's answer named; a hand redrawn as cards are dealt, with the
    same buttons): a door that rations messages may hold it back briefly, and drop it unsent when a
    newer edit of the same message replaces it."""

    text: str
    buttons: tuple[tuple[Button, ...], ...] = ()
    choices: tuple[Button, ...] = ()
    cue: Cue | None = None
    scene: Scene | None = field(default=None, compare=False)
    still: str | None = None  # the text less what changes by itself (the seconds left): what decides an edit
    said: bool = field(default=False, compare=False)
    urgent: bool = field(default=False, compare=False)
    lazy: bool = field(default=False, compare=False)


@dataclass(frozen=True)
class User:
    platform: str
    user_id: str
    name: str
    language: str | None = None


@dataclass(frozen=True)
class Where:
    """Where a message lives: a group chat, or the private chat with a user."""

    platform: str
    chat_id: str
    private: bool = False
    # For a private message about a table: the group chat the table is in (Discord shows a hand only
    # through an interaction its owner made in that channel). Not part of the identity of the chat.
    about: str = field(default="", compare=False)


class Receipt:
    """When an update's fate is settled, for a platform that redelivers what it was not told was
    taken (Telegram: a webhook answered with an error, a long poll that does not confirm).

    Settled `stored` once what the update asked for is in the store (an action appended, a
    command done, an answer in words that changes nothing, or the update queued in the database
    for its table's owner); settled `failed` when the store could not be reached, so that the
    platform sends it again later. The first word counts."""

    def __init__(self, *, redelivers: bool = False) -> None:
        self._outcome: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self.handed = False  # queued at a table's actor: the actor settles it
        #: The platform sends the update again when not told it was taken: a failure is then
        #: answered by that delivery, not by this one.
        self.redelivers = redelivers

    def stored(self) -> None:
        if not self._outcome.done():
            self._outcome.set_result(True)

    def failed(self) -> None:
        if not self._outcome.done():
            self._outcome.set_result(False)

    @property
    def settled(self) -> bool:
        return self._outcome.done()

    def when_settled(self, callback: Callable[[], object]) -> None:
        self._outcome.add_done_callback(lambda _: callback())

    async def outcome(self) -> bool:
        """True: taken for good; False: not taken, to be sent again."""
        return await asyncio.shield(self._outcome)


@dataclass(frozen=True)
class Incoming:
    """One platform event, already parsed by the adapter into what the person asked.

    kind "press" (a button) and "chosen" (an inline result): `intent` from the button's data,
    read by the one codec (`bot.intents.codec.read`), bound to the version it was drawn for;
    kind "text": a typed line (chat, terminal) in `text`, read by the one text parser
    (`bot.intents.text`) when the event is built, or an `intent` given as such (the web page's
    structured act); a typed move is bound by the host to the turn it arrives in;
    kind "command": `name` and `args` (e.g. "new", ["classic"]);
    kind "inline_query": `text` is the query; the adapter answers with `Host.inline_choices`.
    `extra["posted"] == "group"` on a chosen result: the person's client posted it in a group chat
    (where the people at the table saw it), even when the adapter cannot tell which.
    `key` is the platform's idempotency key (update id, callback id,
    interaction id): an event whose key was seen before changes nothing.
    `reply` lets the host answer this very event (a callback answer, an
    ephemeral reply); it may be None. `receipt`, when the platform redelivers
    unconfirmed updates, is settled once the event is stored or could not be.
    `alone`: the adapter's answer reaches this person alone even in a group (Discord's ephemeral
    replies), so the host answers in the person's language rather than the group's.
    """

    kind: Literal["command", "press", "text", "inline_query", "chosen"]
    user: User
    where: Where
    key: str
    name: str = ""
    args: tuple[str, ...] = ()
    text: str = ""
    intent: Intent | None = None
    reply: Replier | None = None
    extra: dict[str, str] = field(default_factory=dict)
    receipt: Receipt | None = field(default=None, compare=False, repr=False)
    alone: bool = False

    def __post_init__(self) -> None:
        if self.kind == "text" and self.intent is None:
            object.__setattr__(self, "intent", Intent(parse_line(self.text)))


class Replier(Protocol):
    """Answers one incoming event (Telegram answerCallbackQuery, Discord interaction response)."""

    async def notice(self, text: str, alert: bool = False) -> None: ...


@runtime_checkable
class Poster(Protocol):
    """A replier that can also answer in front of everyone where the event came from, tied to the
    event: Discord shows a command's public response under "alice used /tractor help", so the
    person sees what came of their command (a message posted beside it would be tied to nothing)."""

    async def post(self, view: View) -> bool:
        """Shows `view` as this event's public answer; False when it cannot now (the host then sends
        it as a message where the event came from)."""
        ...


class Unreachable(Exception):
    """The platform cannot deliver to this user (never opened the bot, blocked it)."""

    def __init__(self, user_id: str, how_to_fix: str = "") -> None:
        super().__init__(user_id)
        self.user_id = user_id
        self.how_to_fix = how_to_fix


class PlatformError(Exception):
    """A platform call failed after the adapter's own retries; the host logs it and goes on."""


class CredentialsRefused(Exception):
    """At start-up the platform refused the bot's token (wrong or revoked): no retry can help.
    `str()` is one line for the operator, naming the platform and what to do; never the token."""

    def __init__(self, platform: str, words: str) -> None:
        super().__init__(f"{platform}: {words}")
        self.platform = platform


class PlatformDown(Exception):
    """At start-up the platform could not be reached (no network, DNS, a time-out, a 5xx): worth
    trying again later. `str()` is one line naming the platform and the cause."""

    def __init__(self, platform: str, cause: str) -> None:
        super().__init__(f"{platform}: cannot reach the API ({cause})")
        self.platform = platform


class Platform(Protocol):
    """What an adapter offers the host, capabilities included; message ids are strings the host stores.

    The host asks these declared capabilities instead of knowing platform names:
    every adapter (and every test fake) states each of them.
    """

    #: The platform's name in `User.platform` and `Where.platform` ("telegram", "discord", ...).
    name: str
    #: How many cards one page of a hand's buttons may show (the platform's button grid).
    hand_page_size: int
    #: True where the group chat and the private chat are one screen read by one person
    #: (a terminal): a person's choices there are both the table's and their own.
    one_screen: bool
    #: True where `send_file` delivers (league pictures and CSV exports); else the host sends text only.
    sends_files: bool
    #: True where a person learns it is their turn from a new private message (it notifies their
    #: phone; an edit does not), deleted once they acted; the group's table is then drawn once a
    #: trick and not after every play (Telegram: 20 group messages a minute).
    turn_notices: bool
    #: True where a hand shows each legal play as one choice (`View.choices`, a select menu).
    play_menu: bool
    #: True where the table message counts down by itself and the person to act is notified from
    #: `View.cue`; the host then writes no fixed "30s left" into the text.
    live_countdown: bool
    #: What each message shows now (`bot.scene.diff`): the platform writes it once a message shows a
    #: view, the host reads it before it asks for an edit. The door's one record of what is shown.
    shown: Shown

    async def send(self, where: Where, view: View) -> str:
        """Post a message; returns its id. Raises Unreachable for a private chat the bot cannot reach."""
        ...

    async def edit(self, where: Where, message_id: str, view: View) -> None:
        """Edit a message in place; editing to identical content is a no-op, not an error."""
        ...

    async def delete(self, where: Where, message_id: str) -> None: ...

    async def send_file(self, where: Where, filename: str, data: bytes, caption: str = "") -> str:
        """Post a file; returns the message id. Only called where `sends_files` is true."""
        ...

    def join_link(self, payload: str) -> str | None:
        """A link that opens the private chat with the bot (Telegram deep link), or None."""
        ...

    def how_to_fix(self) -> str:
        """What a person the bot cannot reach privately must do (a link to press Start), or ""."""
        ...
