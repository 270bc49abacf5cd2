"""The small protocol between the host and a chat platform.

The host speaks in platform-neutral views; an adapter turns them into
Telegram messages, Discord messages or terminal output, and turns the
platform's updates into `Incoming` events for the host.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal, Protocol

ButtonKind = Literal["callback", "inline_query", "url", "web_app"]


@dataclass(frozen=True)
class Button:
    """A button. `token` is a compact, versioned action token (<= 64 bytes).

    kind "inline_query": Telegram opens inline mode in the current chat with
    `token` as the query; kind "url": `token` is a link (deep link to the bot);
    kind "web_app": `token` is the web table's address, opened as a Telegram Mini App
    (private chats only; platforms without Mini Apps show it as a link).
    """

    label: str
    token: str
    kind: ButtonKind = "callback"
    style: Literal["default", "primary", "selected", "danger"] = "default"


@dataclass(frozen=True)
class Cue:
    """Whom a table message waits for, for a platform that notifies them (a mention) and counts down.

    `user_ids`: the people who must act now and have not asked to be left alone (none: nobody to
    notify); `seconds`: until their time runs out, when the view was drawn (None: no limit)."""

    user_ids: tuple[str, ...] = ()
    seconds: float | None = None
    lang: str = "en"


@dataclass(frozen=True)
class View:
    """Text plus a grid of buttons (rows of buttons).

    `choices`: each a whole move in one press (a legal play, the suggested bury), for a platform that
    shows them as one menu (`Platform.play_menu`); others ignore them, the grid offers the same moves.
    `cue`: whose turn it is, on a table message (`Platform.live_countdown`)."""

    text: str
    buttons: tuple[tuple[Button, ...], ...] = ()
    choices: tuple[Button, ...] = ()
    cue: Cue | None = None


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
    """One platform event, already parsed by the adapter.

    kind "command": `name` and `args` (e.g. "new", ["classic"]);
    kind "press": `token` from a button;
    kind "text": free text (terminal input, or garbage);
    kind "inline_query": `text` is the query; the adapter answers with
    `Host.inline_choices`.
    `key` is the platform's idempotency key (update id, callback id,
    interaction id): an event whose key was seen before changes nothing.
    `reply` lets the host answer this very event (a callback answer, an
    ephemeral reply); it may be None. `receipt`, when the platform redelivers
    unconfirmed updates, is settled once the event is stored or could not be.
    """

    kind: Literal["command", "press", "text", "inline_query", "chosen"]
    user: User
    where: Where
    key: str
    name: str = ""
    args: tuple[str, ...] = ()
    token: str = ""
    text: str = ""
    reply: Replier | None = None
    extra: dict[str, str] = field(default_factory=dict)
    receipt: Receipt | None = field(default=None, compare=False, repr=False)


class Replier(Protocol):
    """Answers one incoming event (Telegram answerCallbackQuery, Discord interaction response)."""

    async def notice(self, text: str, alert: bool = False) -> None: ...


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
