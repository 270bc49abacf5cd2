"""A host behind the real Discord adapter behind the real discord.py client, against the fake server.

Simulated people act only through what a Discord user sees: slash commands,
buttons and select menus on the messages the fake shows them.
"""

from __future__ import annotations

import functools
import json
import random
import re
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from adapters.discord.components import PLAYS_PREFIX, SELECT_PREFIX
from adapters.discord.config import DiscordConfig
from adapters.discord.run import DiscordRunner
from app.features import build_host
from bot.cardtext import card_text
from bot.commands import Registry
from bot.host import Host
from bot.intents import codec
from bot.intents.types import (
    BurySelection,
    ButtonAct,
    Chao,
    Declare,
    Drawn,
    Pass,
    PlayCards,
    PlaySelection,
    Revolt,
    Toggle,
)
from bot.settings import TableSettings
from bot.table import Table
from fakes.clock import FakeClock
from fakes.discord_api import FakeDiscord, FakeMessage, FakeUser, handled
from persistence.memory import MemoryStore

ALICE = FakeUser(201, "alice", admin=True)
BOB = FakeUser(202, "bob")
CAROL = FakeUser(203, "carol", locale="zh-CN")
DAVE = FakeUser(204, "dave")
PEOPLE = (ALICE, BOB, CAROL, DAVE)

# a joker's word followed by its typed name ("小王 sj") is the help teaching how to type it, not a card
CARD_RE = re.compile(r"(?:大王|小王)(?!\s*[sb]j)|[♠♥♦♣](?:10|[2-9JQKA])")
_FACES = [r + s for s in "SHDC" for r in "23456789TJQKA"] + ["SJ", "BJ"]
TEXT_TO_CODE = {card_text(c): c for c in _FACES}

SETTINGS = TableSettings(turn=0, bury=0, declare=30, deal=0, next=30, lobby=0, ai_budget=0.05)
# Discord's clock in the tests (FakeDiscord's `scale`): one Discord second lasts 50 ms, so a channel's
# 5-second window is a quarter of a real second, about the pace of the simulated people: the limits
# still bind and are waited out, in real time twenty times shorter.
FAST = 0.05


@functools.cache
def full_registry() -> Registry:
    """Every command of the house, for test doubles of the host that the adapter asks for them."""
    return build_host(MemoryStore()).registry


JSONish = dict[str, Any]
NewRig = Callable[..., Awaitable["Rig"]]  # conftest's new_rig: a booted rig on the test's store


def token_of(custom_id: str) -> tuple[Drawn, ButtonAct] | None:
    """What a button's custom id stands for, read by the codec (None: no button of the host's)."""
    if not custom_id.startswith("b:"):
        return None
    try:
        return codec.parse(custom_id[2:])
    except codec.BadToken:
        return None


def _is(act: ButtonAct, want: ButtonAct | type[ButtonAct]) -> bool:
    return isinstance(act, want) if isinstance(want, type) else act == want


def cards_named(text: str) -> Counter[str]:
    return Counter(TEXT_TO_CODE[m] for m in CARD_RE.findall(text))


_CODE_RE = re.compile(r'"([2-9TJQKA][SHDC]|SJ|BJ)"')


def cards_in(obj: Any) -> Counter[str]:
    """Every card code inside a JSON-like value (a view)."""
    return Counter(_CODE_RE.findall(json.dumps(obj)))


@dataclass
class Rig:
    fake: FakeDiscord
    store: Any  # MemoryStore or persistence.store.SqliteStore
    clock: FakeClock
    host: Host = field(init=False)
    ever_public: Counter[str] = field(default_factory=Counter)
    ever_seat: list[Counter[str]] = field(default_factory=lambda: [Counter() for _ in range(4)])
    clicks: list[tuple[str, int]] = field(default_factory=list)  # (action, clicks it took), in order
    # Clicks that did not act: My hand pressed for want of a hand message, a press only to bring an
    # old hand up to date, a press refused; (user, why) in order.
    extra: list[tuple[str, str]] = field(default_factory=list)
    _observed: tuple[Any, int] | None = None
    _last_snapshot: dict[str, Any] | None = None
    runner: DiscordRunner = field(init=False)
    rng: random.Random | None = None  # the host's, for its deals (None: a fresh system one)
    running: bool = False
    edit_interval: float = 0.0  # the adapter's pause between edits of one message (production: 0.5)

    async def boot(self) -> None:
        """A fresh host and adapter on the same store (first start, or after a restart)."""
        self.host = build_host(self.store, clock=self.clock, defaults=SETTINGS, use_ai_threads=False, rng=self.rng)
        config = DiscordConfig(token=self.fake.token, api_base=self.fake.api_base,
                               gateway_url=self.fake.gateway_url, edit_interval=self.edit_interval,
                               scale=self.fake.scale)
        self.runner = DiscordRunner(self.host, config, ready_timeout=10)
        self.runner.platform.routes.clock = self.fake.now  # the bot's clock is Discord's: tokens age alike
        self.running = True
        await self.runner.start()
        await self.host.start()
        await self.idle()

    async def shutdown(self) -> None:
        """Everything queued goes out, then the process stops (a restart's first half)."""
        try:
            await self.settled()
        finally:
            await self.stop()

    async def kill(self) -> None:
        """The process dies at once (a SIGKILL): edits still queued never go out; what the store
        holds and what Discord shows stay."""
        await self.runner.platform.outbox.close()
        await self.runner.platform.said.close()
        await self.stop()

    async def stop(self) -> None:
        """Stops the host and the adapter at once, without waiting for quiet: `shutdown`'s end, and
        what a failed test left running (else discord.py's client would go on reconnecting to a
        stopped fake, and the test's event loop could not close)."""
        if not self.running:
            return
        self.running = False
        await self.host.stop()
        await self.runner.stop()

    async def idle(self) -> None:
        """Until the host, the people's hands and the fake server are quiet: every interaction answered
        and handled, the host settled, private views out, no request open; again while that made
        new requests (events all, no quiet periods). A channel message's edit waiting out Discord's
        rate limit goes on meanwhile (people at the table do not wait for it either); `settled` waits
        for that too."""
        seen = -1
        while seen != len(self.fake.requests):
            seen = len(self.fake.requests)
            await self.fake.answered()
            await handled()
            await self.runner.inbound.idle()
            await self.host.settle()
            await self.runner.platform.flush(private_only=True)
            await self.fake.quiet()

    async def settled(self) -> None:
        """Until everything queued went out, channel messages included."""
        await self.idle()
        await self.runner.idle()
        await self.idle()

    def table(self) -> Table:
        (table,) = self.host.tables.values()
        return table

    def table_message(self) -> FakeMessage:
        """The latest public message carrying a "My hand" or lobby button."""
        for message in reversed(list(self.fake.messages.values())):
            if message.public and not message.deleted and message.buttons():
                return message
        raise LookupError("no table message")

    def hand_message(self, user: FakeUser) -> FakeMessage | None:
        """The user's newest private message that has controls (their hand)."""
        for message in reversed(self.fake.private_messages(user)):
            if message.components:
                return message
        return None

    def observe(self) -> dict[str, Any] | None:
        """Every card each reader could know by now (for the leak scan).

        A message is rendered a little before the fake receives it, so the
        scan allows what was known at any moment up to its arrival: a card
        that was public (or in your hand) once stays allowed.
        """
        if not self.host.tables:
            return None
        table = next(iter(self.host.tables.values()))
        if table.match is None:
            return None
        if self._observed == (table.match, table.match.version):
            return self._last_snapshot
        self._observed = (table.match, table.match.version)
        self.ever_public |= cards_in(table.match.public_view())
        for s in range(4):
            self.ever_seat[s] |= cards_in(table.match.view(s))
        self._last_snapshot = {"public": Counter(self.ever_public), "seats": [Counter(c) for c in self.ever_seat],
                               "users": {str(table.seats[s].user_id): s for s in range(4)}}
        return self._last_snapshot

    # ----- a person at the table -----

    async def act(self, user: FakeUser, style: str = "menu") -> bool:
        """If `user` must act, does what the engine's auto_action suggests, through Discord.

        Like a person: they use the hand message they have (My hand only when they have none), a
        play from the menu of plays (`style="menu"`) or by picking its cards and pressing Play
        (`"pick"`). A press on a hand message that is out of date is answered by that message
        showing the current hand: they then act on that. Each click is counted in `clicks`."""
        if not self.host.tables:
            return False  # the match is over
        table = self.table()
        m = table.match
        s = table.seat_of(str(user.id))
        if m is None or s is None or s not in m.to_act():
            return False
        auto = m.auto_action(s, rng_seed=m.version)
        if auto is None:
            return False
        action = auto.to_json()
        version = m.version
        spent = 0
        hand = self.hand_message(user)
        if hand is None:
            await self.fake.click(user, self.table_message(), "My hand")
            spent += 1
            self.extra.append((user.name, "my hand"))
            await self.idle()
            hand = self.hand_message(user)
            assert hand is not None, f"{user.name} got no hand"
        t = action["t"]
        for attempt in range(3):
            if attempt:
                self.extra.append((user.name, f"{t} again"))
            if t in ("pass", "declare", "chao", "revolt"):
                cards = tuple(action.get("cards", []))
                want: ButtonAct = {"pass": Pass(), "declare": Declare(cards), "chao": Chao(cards),
                                   "revolt": Revolt()}[t]
                if self._find(hand, want) is None:
                    spent += await self._poke(user, hand)  # an old message: any press brings the hand up to date
                else:
                    await self.press_code(user, hand, want)
                    spent += 1
            elif t == "play" and style == "menu" and await self._from_menu(user, hand, list(action["cards"])):
                spent += self._last_menu_clicks
            else:
                spent += await self.choose_cards(user, s, list(action["cards"]), count=True)
                hand = self.hand_message(user)
                assert hand is not None
                await self.press_code(user, hand, PlaySelection() if t == "play" else BurySelection())
                spent += 1
            await self.idle()
            if not self.host.tables or self.table().match.version > version:  # type: ignore[union-attr]
                break
            hand = self.hand_message(user)
            assert hand is not None
        else:
            raise AssertionError(f"{user.name} could not {t}: {hand.content[-300:] if hand else None}")
        self.clicks.append((t, spent))
        return True

    _last_menu_clicks = 0

    async def _from_menu(self, user: FakeUser, hand: FakeMessage, cards: list[str]) -> bool:
        """The play chosen from the hand's plays: its button (1 click) or its menu option (2)."""
        want = Counter(cards)
        for b in hand.buttons():
            tok = token_of(str(b.get("custom_id", "")))
            if tok is not None and isinstance(tok[1], PlayCards) and cards_named(str(b.get("label", ""))) == want:
                await self.fake.press(user, hand, b["custom_id"])
                self._last_menu_clicks = 1
                return True
        for select in hand.selects():
            if not str(select["custom_id"]).startswith(PLAYS_PREFIX):
                continue
            for option in select["options"]:
                if cards_named(str(option["label"])) == want:
                    await self.fake.choose(user, hand, select["custom_id"], [option["value"]])
                    self._last_menu_clicks = 2
                    return True
        return False

    def _find(self, message: FakeMessage, want: ButtonAct | type[ButtonAct]) -> JSONish | None:
        for b in message.buttons():
            tok = token_of(str(b.get("custom_id", "")))
            if tok is not None and _is(tok[1], want):
                return b
        return None

    async def _poke(self, user: FakeUser, hand: FakeMessage) -> int:
        """A press on whatever the hand message offers (Clear): answered with the current hand there."""
        for b in hand.buttons():
            if token_of(str(b.get("custom_id", ""))) is not None:
                await self.fake.press(user, hand, b["custom_id"])
                self.extra.append((user.name, "poke"))
                return 1
        await self.fake.click(user, self.table_message(), "My hand")
        self.extra.append((user.name, "my hand"))
        return 1

    @staticmethod
    def _versions(message: FakeMessage) -> set[int]:
        out = set()
        for b in message.buttons():
            tok = token_of(str(b.get("custom_id", "")))
            if tok is not None:
                out.add(tok[0].version)
        return out

    async def press_code(self, user: FakeUser, message: FakeMessage, want: ButtonAct | type[ButtonAct]) -> None:
        """Presses the button standing for `want` (an act, or any act of that kind)."""
        b = self._find(message, want)
        if b is None:
            raise AssertionError(f"no {want} button for {user.name}: {[b.get('label') for b in message.buttons()]}")
        interaction = await self.fake.press(user, message, b["custom_id"])
        assert interaction.callback_type is not None

    async def choose_cards(self, user: FakeUser, seat: int, cards: list[str], *, count: bool = False) -> Any:
        """Picks `cards` in the hand's select menus (each menu holds part of the hand); with `count`,
        returns the clicks it took (open a menu, tick or untick each option, close it)."""
        hand = list(self.table().match.view(seat)["hand"])
        wanted: set[int] = set()
        for c in cards:
            wanted.add(next(i for i, h in enumerate(hand) if h == c and i not in wanted))
        done = []
        message = self.hand_message(user)
        assert message is not None
        clicks = 0
        for select in message.selects():
            custom_id = str(select["custom_id"])
            if not custom_id.startswith(SELECT_PREFIX):
                continue  # the menu of whole plays
            values = []
            for option in select["options"]:
                act = codec.parse(option["value"])[1]
                if isinstance(act, Toggle) and act.index in wanted:
                    values.append(option["value"])
            previous = [o["value"] for o in select["options"] if o.get("default")]
            if sorted(values) != sorted(previous):
                clicks += 2 + len(set(values) ^ set(previous))
                done.append(await self.fake.choose(user, message, custom_id, values))
                await self.idle()
                message = self.hand_message(user)
                assert message is not None
        return clicks if count else done


async def open_table(rig: Rig) -> None:
    """alice opens with /tractor new, bob joins by command, carol and dave with the lobby button."""
    fake = rig.fake
    choices = await fake.autocomplete(ALICE, "new", "preset", "cl")
    assert [c["value"] for c in choices] == ["classic"]
    levels = await fake.autocomplete(ALICE, "addbot", "level", "b")
    assert [c["value"] for c in levels] == ["basic"]
    await fake.slash(ALICE, "new", {"preset": "classic"})
    await rig.idle()
    await fake.slash(BOB, "join")
    await rig.idle()
    lobby = rig.table_message()
    for person in (CAROL, DAVE):
        await fake.click(person, lobby, "Join")
        await rig.idle()
    await rig.settled()  # the lobby is a channel message: its edits may wait out the channel's limit
    assert "4/4" in lobby.content
    await fake.click(ALICE, lobby, "Start")
    await rig.idle()


async def play_until(rig: Rig, done: object, limit: int = 600) -> None:
    """People act in turn; when nobody must, the clock moves on (deal window, next hand)."""
    for _ in range(limit):
        if callable(done) and done():
            return
        if not rig.host.tables:
            raise AssertionError("the match ended first")
        acted = False
        for person in PEOPLE:
            if await rig.act(person):
                acted = True
                break
        if not acted:
            rig.clock.advance(31)
            await rig.idle()
    raise AssertionError("the hand did not finish")


def to_act(rig: Rig) -> set[int]:
    """The user ids of the people who must act now."""
    table = rig.table()
    m = table.match
    return set() if m is None else {int(str(table.seats[s].user_id)) for s in m.to_act()}


def hand_over(rig: Rig) -> bool:
    m = rig.table().match
    return m is not None and (m.phase in ("hand_over", "match_over") or m.public_view().get("hand_no", 1) > 1)


def leaks(fake: FakeDiscord) -> list[str]:
    """Cards shown to someone who could not know them by the time the message reached Discord.

    Each line is checked on its own (a card may repeat on a button label).
    """
    problems = []
    for message in fake.messages.values():
        for text, snap in zip(message.history, message.snapshots, strict=True):
            if snap is None:
                continue
            allowed = snap["public"]
            seat = None if message.public else snap["users"].get(str(message.visible_to))
            if seat is not None:
                allowed = allowed | snap["seats"][seat]
            for line in text.splitlines():
                extra = sorted((cards_named(line) - allowed).elements())
                if extra:
                    kind = "public" if message.public else f"private to {message.visible_to}"
                    problems.append(f"message {message.id} ({kind}): {extra} in {line!r}")
    return problems
