"""The Telegram door: the real python-telegram-bot client against the fake Bot API (its limits on, on
the rig's clock). Ann and Bob play as most people do there: they tap their cards on their private hand
and press Play; an inline answer is what Ann chooses from in the group. What each sees is what the
fake holds: the group's table and announcements, their hand, the answers to their presses, their
private notes."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from bot.cardtext import card_text
from bot.intents import codec
from bot.intents.types import ButtonAct, Page, PlaySelection, Toggle
from engine import Match
from fakes.clock import FakeClock
from fakes.telegram_api import FakeMessage, FakeTelegram
from fakes.telegram_rig import Rig, boot, start_fake, stop_fake, until
from persistence.store import SqliteStore
from tests.scenarios.doors import ANN_SEAT, BOB_SEAT, NAMES, Deal, write_match
from tests.scenarios.seen import Play, Seen, codes, hand_cards, plays, read, summary_facts, table_facts

GROUP, ANN, BOB = -4001, 401, 403
USERS = {ANN_SEAT: ANN, BOB_SEAT: BOB}


@dataclass
class Inline:
    """An inline answer Ann was shown, and the result she picks from it."""

    query_id: str
    result_id: str


def act_of(data: str) -> ButtonAct | None:
    try:
        return codec.parse(data)[1]
    except codec.BadToken:
        return None


class TelegramDoor:
    name = "telegram"
    people: tuple[int, ...] = (ANN_SEAT, BOB_SEAT)
    # the group's table is drawn once a trick (20 messages a minute a group); the person waited for in
    # the middle of a trick is told privately (bot.table.notices)
    group_lags: bool = True

    def __init__(self, tmp: Path) -> None:
        self.db = str(tmp / "tg.sqlite3")
        tmp.mkdir(parents=True, exist_ok=True)
        self.rig: Rig | None = None
        self.fake: FakeTelegram | None = None
        self.moves: dict[str, int] = {}  # the callback queries that were moves (their answers are "said"): whose
        self.clock = FakeClock()
        self.lang = "en"

    async def open(self, deal: Deal) -> None:
        self.lang = deal.lang
        store = await SqliteStore.open(self.db, synchronous="OFF")
        await write_match(store, "telegram", str(GROUP), {s: str(u) for s, u in USERS.items()}, deal)
        await store.close()
        self.fake = await start_fake()
        self.fake.add_group(GROUP)
        for seat, user in USERS.items():
            self.fake.add_user(user, NAMES[seat], opened=True, language="zh-hant" if deal.lang == "zh-Hant" else deal.lang)
        self.rig = await boot(self.fake, self.db, clock=self.clock)
        await self.rig.settle()

    async def restart(self) -> None:
        assert self.rig is not None and self.fake is not None
        await self.rig.stop()
        self.rig = await boot(self.fake, self.db, clock=self.clock)
        await self.rig.settle()

    def hand_message(self, user: int = ANN) -> FakeMessage:
        assert self.fake is not None
        hands = [m for m in self.fake.chat_messages(user) if m.reply_markup]
        assert hands, f"{user} has no hand"
        return hands[-1]

    async def hand(self, user: int = ANN) -> FakeMessage:
        """Their hand message, with their cards: one folded while they play from the group shows them
        again when they press its ↻."""
        hand = self.hand_message(user)
        if not hand_cards(self.lang, hand.text):
            again = next(b["callback_data"] for b in self.keyboard(hand)
                         if isinstance(act_of(b.get("callback_data", "")), Page))
            await self.press(hand, again, user=user)
            hand = self.hand_message(user)
        return hand

    def keyboard(self, message: FakeMessage) -> list[dict[str, str]]:
        return [b for row in (message.reply_markup or {}).get("inline_keyboard", []) for b in row]

    async def press(self, message: FakeMessage, data: str, *, move: bool = False, check: bool = True,
                    user: int = ANN) -> None:
        assert self.rig is not None and self.fake is not None
        update, query = self.fake.press(user, user, message.message_id, data, check=check)
        if move:
            self.moves[query] = user
        await self.rig.handled(update)

    async def play(self, cards: Sequence[str], seat: int = ANN_SEAT) -> None:
        await self.pick(cards, USERS[seat])
        await self.confirm(USERS[seat])

    async def pick(self, cards: Sequence[str], user: int = ANN) -> None:
        """Taps each card on their hand (a button a card)."""
        hand = await self.hand(user)
        want = Counter(card_text(c) for c in cards)
        for b in self.keyboard(hand):
            if want[b.get("text", "")] > 0 and isinstance(act_of(b.get("callback_data", "")), Toggle):
                want[b["text"]] -= 1
                await self.press(hand, b["callback_data"], user=user)
                hand = self.hand_message(user)
        assert not +want, f"cards not on the hand of {user}: {+want}"

    async def confirm(self, user: int = ANN) -> None:
        """Presses Play on their hand."""
        hand = await self.hand(user)
        play = next(b["callback_data"] for b in self.keyboard(hand)
                    if isinstance(act_of(b.get("callback_data", "")), PlaySelection))
        await self.press(hand, play, move=True, user=user)

    async def draw_choice(self, cards: Sequence[str]) -> Inline:
        """She types @bot in the group: the inline answer offers her plays; she picks `cards` there."""
        assert self.fake is not None
        qid = self.fake.inline_query(ANN, "")
        fake = self.fake
        await until(lambda: qid in fake.inline_answers)
        results = self.fake.inline_answers[qid]["results"]
        found = next(r for r in results if sorted(codes(r["title"])) == sorted(cards))
        return Inline(qid, found["id"])

    async def send_later(self, later: object) -> None:
        assert isinstance(later, Inline) and self.rig is not None and self.fake is not None
        await self.rig.handled(self.fake.choose_inline(ANN, later.query_id, later.result_id, GROUP))

    async def keep_view(self) -> list[str]:
        return [b["callback_data"] for b in self.keyboard(await self.hand()) if "callback_data" in b]

    async def press_on(self, kept: object) -> None:
        """A card of her hand as it was drawn then: her client had not redrawn it yet (Telegram passes
        on the data of the button pressed, whatever the message shows now)."""
        assert isinstance(kept, list)
        old = next(d for d in kept if isinstance(act_of(d), Toggle))
        await self.press(self.hand_message(), old, move=True, check=False)

    def notice(self, seat: int) -> tuple[tuple[int, ...], tuple[Play, ...]] | None:
        """Whose turn and the trick as their turn notice says them: in the middle of a trick the person
        waited for is told privately, while the group's table waits for the end of the trick."""
        assert self.fake is not None
        notes = [m.text for m in self.fake.chat_messages(USERS[seat]) if m.text.startswith("🔔")]
        if not notes:
            return None
        follow = read(self.lang, "notice.follow", notes[-1])
        if follow is not None:
            return (seat,), plays(follow["trick"])
        assert any(read(self.lang, key, notes[-1]) is not None for key in ("notice.lead", "notice.bury")), notes[-1]
        return (seat,), ()

    async def look(self, seat: int = ANN_SEAT) -> Seen:
        assert self.fake is not None
        user = USERS[seat]
        group = self.fake.chat_messages(GROUP)
        tables = [m for m in group if m.reply_markup]
        turn, trick = table_facts(self.lang, tables[-1].text) if tables else ((), ())
        turn, trick = self.notice(seat) or (turn, trick)
        said: list[str] = []
        for call in self.fake.calls:
            if not call.ok:
                continue
            text = str(call.params.get("text", ""))
            if call.method == "answerCallbackQuery" and self.moves.get(str(call.params.get("callback_query_id"))) == user:
                if text not in ("", "✓"):
                    said.append(text)
            elif (call.method == "sendMessage" and int(call.params.get("chat_id", 0)) == user
                  and not call.params.get("reply_markup") and not text.startswith("🔔")):
                said.append(text)
        told = [line for m in group for line in m.text.splitlines()]
        hand = hand_cards(self.lang, (await self.hand(user)).text)
        return Seen(turn, trick, hand, tuple(said), summary_facts(self.lang, told))

    async def group(self) -> Seen:
        assert self.fake is not None
        messages = self.fake.chat_messages(GROUP)
        tables = [m for m in messages if m.reply_markup]
        turn, trick = table_facts(self.lang, tables[-1].text) if tables else ((), ())
        lines = tuple(line for m in messages for line in m.text.splitlines())
        return Seen(turn, trick, None, lines, summary_facts(self.lang, lines))

    def match(self) -> Match:
        assert self.rig is not None
        (table,) = self.rig.host.tables.values()
        return table.game

    async def close(self) -> None:
        if self.rig is not None:
            await self.rig.stop()
            assert self.rig.errors == [] and self.fake is not None and self.fake.rejected_429 == 0
            self.rig = None
        if self.fake is not None:
            await stop_fake(self.fake)
            self.fake = None
