"""Four simulated people playing through the fake Telegram server, and a leak scanner.

The people act only as a Telegram client can: commands, button presses on
messages the bot sent them, inline queries and chosen inline results. To
decide *what* to do they read the host's state (as a person reads the
screen); what they *send* is always a client update.
"""

from __future__ import annotations

import asyncio
import re
import weakref
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from adapters.telegram.run import TelegramRunner
from bot.cardtext import card_text, cards_text
from bot.host import Host
from bot.intents import codec
from bot.intents.types import BurySelection, ButtonAct, Declare, LobbyStart, Page, Pass, PlaySelection, Toggle
from bot.table.seats import Seat
from engine.match import Match
from fakes.telegram_api import BOT_ID, BOT_USERNAME, ApiCall, FakeTelegram
from fakes.telegram_rig import HandledOrder

_CARD = re.compile(r"[♠♥♦♣](?:10|[2-9JQKA])|大王|小王")
SEAT_NAMES = ("Ann", "Bo", "Cy", "Di")


async def until(predicate: Callable[[], bool], timeout: float = 10.0) -> None:
    """Wait (polling the loop) until the fake shows what a test expects."""
    async with asyncio.timeout(timeout):
        while not predicate():
            await asyncio.sleep(0.001)


def card_mentions(text: str) -> Counter[str]:
    """Cards named in a text, as people read them ("♠10", "大王")."""
    return Counter(_CARD.findall(text))


@dataclass
class Snapshot:
    """What was known when a call went out: each person's cards and the public ones."""

    public: set[str] = field(default_factory=set)
    known: dict[str, set[str]] = field(default_factory=dict)  # user id -> cards seen in own hand
    by_hand: dict[int, set[str]] = field(default_factory=dict)  # hand number -> cards public in it so far


@dataclass
class Sim:
    """A group with four people and the bot, on the fake server."""

    fake: FakeTelegram
    host: Host
    runner: TelegramRunner
    group: int
    users: tuple[int, ...] = (101, 102, 103, 104)
    match_id: int | None = None
    plays: int = 0
    inline_plays: int = 0
    button_plays: int = 0
    hands_done: set[int] = field(default_factory=set)
    steps: int = 0
    table_seats: list[Seat] = field(default_factory=list)
    drain_each: bool = False  # benchmarks: let every update's messages go out before the next one
    # Every this many plays one is made with the private hand's buttons (a press a card, each
    # waiting for the hand's edit), the others inline; 0: inline only.
    button_every: int = 3

    # -- talking like a client ------------------------------------------------

    async def settle(self) -> None:
        """Let the host finish what it is doing (queued events, AI, renders)."""
        await self.runner.inbound.settle()
        await self.host.settle()

    async def handled(self, update_id: int) -> None:
        """Wait until the adapter handed this update to the host and the host is done with it."""
        order = self.runner.order
        assert isinstance(order, HandledOrder), "build the runner with order=HandledOrder()"
        await order.wait_for([update_id], 10.0)
        await self.settle()
        if self.drain_each:
            await self.runner.inbound.settle()
            await self.runner.platform.drain()

    async def press(self, uid: int, chat_id: int, message_id: int, data: str) -> str:
        """Press a button and wait for the callback answer; returns its text."""
        update_id, qid = self.fake.press(uid, chat_id, message_id, data)
        await self.handled(update_id)
        await until(lambda: qid in self.fake.callback_answers)
        return str(self.fake.callback_answers[qid]["text"])

    async def command(self, uid: int, chat_id: int, text: str) -> None:
        await self.handled(self.fake.command(uid, chat_id, text))

    def buttons(self, chat_id: int, *, code: type[ButtonAct] | None = None) -> list[tuple[int, dict[str, Any]]]:
        """Buttons on the bot's messages in a chat (newest message last): (message_id, button)."""
        out = []
        for msg in self.fake.chat_messages(chat_id):
            for b in self.fake.buttons_on(chat_id, msg.message_id):
                if code is not None and _code(b) is not code:
                    continue
                out.append((msg.message_id, b))
        return out

    def seat_of(self, uid: int) -> int:
        return next(s for s, seat in enumerate(self.table_seats) if seat.user_id == str(uid))

    def hand_message(self, uid: int) -> int:
        """The private hand message (the one the person has been looking at all along)."""
        mid = int(self.table.messages[f"hand{self.seat_of(uid)}"])
        assert (uid, mid) in self.fake.messages
        return mid

    async def fresh(self, uid: int) -> None:
        """Wait until this person's private chat shows the latest view."""
        await self.runner.platform.outboxes.drain_chat(uid)

    # -- lobby ------------------------------------------------------------------

    async def open_table(self, options: str = "classic target=3") -> None:
        """Ann opens a table; Bo and Cy join through the Join deep link, Di with /join in the group."""
        for uid, name in zip(self.users, SEAT_NAMES, strict=True):
            self.fake.add_user(uid, name)
        a, b, c, d = self.users
        self.fake.users[a].opened = True  # she has used the bot before
        await self.command(a, self.group, f"/new {options}")
        table = self.host.by_chat[("telegram", str(self.group))]
        self.match_id = table.id
        self.table_seats = table.seats
        await self.runner.platform.outboxes.drain_chat(self.group)
        links = [btn["url"] for _, btn in self.buttons(self.group) if "url" in btn]
        assert links and links[-1].startswith(f"https://t.me/{BOT_USERNAME}?start=")
        payload = links[-1].split("?start=", 1)[1]
        for uid in (b, c):  # the link opens the private chat; the client sends /start <payload>
            await self.handled(self.fake.start_private(uid, payload))
        await self.command(d, self.group, f"/join@{BOT_USERNAME}")
        assert all(s.human for s in table.seats)

    async def start_until_reachable(self) -> list[str]:
        """Start: refused while Di never opened the bot; she opens it; the Start button starts it.

        Returns the group messages that explained the refusal.
        """
        a, d = self.users[0], self.users[3]
        table = self.table
        before = len(self.fake.chat_messages(self.group))
        await self.command(a, self.group, "/start")
        assert table.status == "lobby"
        await self.runner.platform.outboxes.drain_chat(self.group)
        told = [m.text for m in self.fake.chat_messages(self.group)[before:] if "t.me/" in m.text]
        link = re.search(r"https://t\.me/\S+", told[0]) if told else None
        assert link is not None
        payload = link.group(0).partition("?start=")[2]
        await self.handled(self.fake.start_private(d, payload))  # she follows the link
        assert self.fake.users[d].opened
        if table.status == "lobby":  # else it started by itself once she had opened the bot
            mid, start = self.buttons(self.group, code=LobbyStart)[-1]
            await self.press(a, self.group, mid, start["callback_data"])
        await until(lambda: table.status != "lobby")
        await self.settle()
        await self.runner.platform.outboxes.drain_chat(self.group)
        assert not self.buttons(self.group, code=LobbyStart)  # the lobby says it began, without buttons
        await self.settle()
        return told

    @property
    def table(self) -> Any:
        assert self.match_id is not None
        table = self.host.tables.get(self.match_id)
        assert table is not None
        return table

    # -- playing ------------------------------------------------------------------

    async def step(self) -> bool:
        """Make the next move someone is waiting for; False once the match is over."""
        self.steps += 1
        assert self.match_id is not None
        table = self.host.tables.get(self.match_id)
        if table is None or table.match is None or table.status == "finished":
            return False
        m = table.match
        if m.phase == "match_over":
            return False
        to_act = m.to_act()
        if m.phase in ("dealing", "declaring") and to_act:
            await self._declare_or_pass(table, to_act[0])
        elif m.phase == "burying" and to_act:
            await self._bury(table, to_act[0])
        elif m.phase == "playing" and to_act:
            await self._play(table, to_act[0])
        else:
            clock = self.host.clock
            clock.advance(1.0)  # type: ignore[attr-defined]  # a timer (deal, window, next hand)
            await asyncio.sleep(0)
            await self.settle()
        self.hands_done.add(int(m.public_view().get("hand_no", 1)))
        return True

    def uid(self, table: Any, seat: int) -> int:
        return int(str(table.seats[seat].user_id))

    async def _declare_or_pass(self, table: Any, seat: int) -> None:
        uid = self.uid(table, seat)
        await self.fresh(uid)
        m = table.match
        declared = m.public_view().get("declaration") is not None
        hand_mid = self.hand_message(uid)
        buttons = self.fake.buttons_on(uid, hand_mid)
        declare = [b for b in buttons if _code(b) is Declare]
        passing = [b for b in buttons if _code(b) is Pass]
        choice = declare[0] if declare and not declared else (passing[0] if passing else None)
        if choice is None:
            self.host.clock.advance(1.0)  # type: ignore[attr-defined]
            await self.settle()
            return
        version = m.version
        answer = await self.press(uid, uid, hand_mid, choice["callback_data"])
        if table.match.version == version and not answer:
            self.host.clock.advance(1.0)  # type: ignore[attr-defined]
            await self.settle()

    async def _toggle(self, uid: int, cards: Iterable[str]) -> int:
        """Select `cards` on the private hand by their labels; returns the hand message id."""
        await self.fresh(uid)
        hand_mid = self.hand_message(uid)
        buttons = [b for b in self.fake.buttons_on(uid, hand_mid) if _code(b) is Toggle]
        if not buttons:  # folded away while they played from the group: ↻ shows it again
            (refresh,) = [b for b in self.fake.buttons_on(uid, hand_mid) if _code(b) is Page]
            await self.press(uid, uid, hand_mid, refresh["callback_data"])
            await self.fresh(uid)
            buttons = [b for b in self.fake.buttons_on(uid, hand_mid) if _code(b) is Toggle]
        used: set[str] = set()
        for card in cards:
            label = card_text(card)
            button = next(b for b in buttons if b["text"] == label and b["callback_data"] not in used)
            used.add(button["callback_data"])
            answer = await self.press(uid, uid, hand_mid, button["callback_data"])
            assert label in answer, (label, answer)
        return hand_mid

    async def _bury(self, table: Any, seat: int) -> None:
        uid = self.uid(table, seat)
        cards = list(table.match.auto_action(seat).cards)
        hand_mid = await self._toggle(uid, cards)
        await self.fresh(uid)
        bury = next(b for b in self.fake.buttons_on(uid, self.hand_message(uid)) if _code(b) is BurySelection)
        version = table.match.version
        answer = await self.press(uid, uid, hand_mid, bury["callback_data"])
        assert answer in ("✓", ""), answer  # "" if the host was still busy when the answer was due
        await until(lambda: table.match.version > version)
        await self.settle()

    async def _play(self, table: Any, seat: int) -> None:
        uid = self.uid(table, seat)
        m = table.match
        version = m.version
        if not self.button_every or self.plays % self.button_every != self.button_every - 1:
            await self._play_inline(uid)
            self.inline_plays += 1
        else:
            cards = list(m.auto_action(seat).cards)
            hand_mid = await self._toggle(uid, cards)
            play = next(b for b in self.fake.buttons_on(uid, hand_mid) if _code(b) is PlaySelection)
            answer = await self.press(uid, uid, hand_mid, play["callback_data"])
            assert answer in ("✓", ""), answer
            self.button_plays += 1
        await until(lambda: table.match.version > version)
        await self.settle()
        self.plays += 1

    async def _play_inline(self, uid: int) -> None:
        """Press "play from here" (an inline query in the group) and choose a result."""
        group_buttons = [b for _, b in self.buttons(self.group) if "switch_inline_query_current_chat" in b]
        query = group_buttons[-1]["switch_inline_query_current_chat"] if group_buttons else ""
        qid = self.fake.inline_query(uid, query)
        await until(lambda: qid in self.fake.inline_answers)
        results = self.fake.inline_answers[qid]["results"]
        assert results, "the current player gets their legal plays"
        await self.handled(self.fake.choose_inline(uid, qid, results[self.plays % len(results)]["id"], self.group))

    def hand_no(self) -> int:
        return int(self.table.match.public_view().get("hand_no", 1))

    async def play_to_the_end(self, *, max_steps: int = 20_000, stop_after_plays: int | None = None,
                              stop_at_hand: int | None = None) -> None:
        while self.steps < max_steps:
            if stop_after_plays is not None and self.plays >= stop_after_plays:
                return
            if stop_at_hand is not None and self.match_id in self.host.tables and self.hand_no() >= stop_at_hand:
                return
            if not await self.step():
                return
        raise AssertionError("the match did not finish")


def _code(button: dict[str, Any]) -> type[ButtonAct] | None:
    """The kind of act a button's data stands for (the codec reads it, as the bot does)."""
    data = button.get("callback_data")
    if data is None:
        return None
    try:
        return type(codec.parse(data)[1])
    except codec.BadToken:
        return None


# -- leak scanning ---------------------------------------------------------------


def snapshot_of(host: Host, match_id: int | None, by_hand: dict[int, set[str]] | None = None) -> Snapshot:
    """Cards each seated person has seen in their own hand, and the cards that are public.

    `by_hand` collects the public cards of every hand so far: a table message
    drawn for hand 1 may still be going out (coalesced) when hand 2 begins.
    """
    snap = Snapshot()
    if by_hand is not None:
        snap.by_hand = {k: set(v) for k, v in by_hand.items()}
    table = host.tables.get(match_id) if match_id is not None else None
    if table is None or table.match is None:
        return snap
    m = table.match
    people = tuple((s, str(seat.user_id)) for s, seat in enumerate(table.seats) if seat.human)
    # A fake takes a snapshot at every call the bot makes, and reading the whole log each time made
    # the leak scan most of a whole match's CPU: what was read is kept until the match moves.
    key = (m.version, people)
    kept = _SEEN.get(m)
    if kept is None or kept[0] != key:
        kept = (key, *_read(m, people))
        _SEEN[m] = kept
    _, public, known, hand_no = kept
    snap.public = set(public)
    if by_hand is not None:
        by_hand.setdefault(hand_no, set()).update(public)
        snap.by_hand = {k: set(v) for k, v in by_hand.items()}
    snap.known = {user: set(cards) for user, cards in known.items()}
    return snap


_SEEN: weakref.WeakKeyDictionary[Match, tuple[object, frozenset[str], dict[str, frozenset[str]], int]] = (
    weakref.WeakKeyDictionary())


def _read(m: Match, people: tuple[tuple[int, str], ...]) -> tuple[frozenset[str], dict[str, frozenset[str]], int]:
    actions = m.actions_json()
    start = max((i + 1 for i, a in enumerate(actions) if a.get("t") == "next"), default=0)
    public: set[str] = set()
    own: dict[int, set[str]] = {s: set() for s in range(4)}
    for a in actions[start:]:
        if a.get("t") in ("play", "declare", "chao"):
            public.update(card_text(c) for c in a["cards"])
        if a.get("t") in ("play", "declare", "chao", "bury") and isinstance(a.get("seat"), int):
            own[a["seat"]].update(card_text(c) for c in a["cards"])
    pub = m.public_view()
    last: dict[str, Any] = dict(pub.get("last_result") or {})
    public.update(card_text(c) for c in last.get("kitty") or [])
    known = {user: frozenset({card_text(c) for c in m.view(s, pub).get("hand") or []} | own[s]) for s, user in people}
    return frozenset(public), known, int(pub.get("hand_no", 1))


def _call_texts(call: ApiCall) -> list[str]:
    p = call.params
    texts = [str(p.get("text", "")), str(p.get("caption", ""))]
    markup = p.get("reply_markup") or {}
    if isinstance(markup, dict):
        texts += [str(b.get("text", "")) for row in markup.get("inline_keyboard", []) for b in row]
    return texts


def leaks(fake: FakeTelegram, users: Iterable[int], group: int) -> list[str]:
    """Every card a message, callback answer or inline result showed someone who may not see it."""
    found: list[str] = []
    users = [str(u) for u in users]
    answers_to: dict[str, str] = {}
    for upd in fake._all_updates:  # who pressed / asked what
        if "callback_query" in upd:
            answers_to[upd["callback_query"]["id"]] = str(upd["callback_query"]["from"]["id"])
        if "inline_query" in upd:
            answers_to[upd["inline_query"]["id"]] = str(upd["inline_query"]["from"]["id"])
    for call in fake.calls:
        snap: Snapshot | None = call.snapshot
        if snap is None or not call.ok:
            continue
        if call.method in ("sendMessage", "editMessageText", "sendPhoto", "sendDocument"):
            chat = str(call.params.get("chat_id"))
            viewer = None if chat == str(group) else chat
            shown = Counter[str]()
            for t in _call_texts(call):
                shown.update(card_mentions(t))
        elif call.method == "answerCallbackQuery":
            viewer = answers_to.get(str(call.params.get("callback_query_id")))
            shown = card_mentions(str(call.params.get("text", "")))
        elif call.method == "answerInlineQuery":
            viewer = answers_to.get(str(call.params.get("inline_query_id")))
            shown = Counter()
            for r in call.params.get("results") or []:
                shown.update(card_mentions(str(r.get("title", "")) + " " + str(r.get("description", ""))))
                shown.update(card_mentions(str(r.get("input_message_content", {}).get("message_text", ""))))
        else:
            continue
        allowed = set(snap.public)
        for t in _call_texts(call)[:1]:
            for n in re.findall(r"hand (\d+)", t):
                allowed |= snap.by_hand.get(int(n), set())
        if viewer is not None:
            allowed |= snap.known.get(viewer, set())
        bad = sorted(set(shown) - allowed)
        if bad and (viewer is None or viewer in users or not snap.known):
            found.append(f"{call.method} to {viewer or 'group'}: {bad} in {_call_texts(call)[0]!r}"
                         f" (public then: {sorted(snap.public)})")
    return found


def group_messages_from_bot(fake: FakeTelegram, group: int) -> list[str]:
    return [m.text for m in fake.messages.values() if m.chat_id == group and m.sender["id"] == BOT_ID]


def text_of_cards(cards: list[str]) -> str:
    return cards_text(cards)
