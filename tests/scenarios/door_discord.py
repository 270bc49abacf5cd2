"""The Discord door: the real discord.py client against the fake Discord (REST and gateway, its limits
on, on the rig's clock `FAST`), through the Discord rig's host and adapter (`tests.discord.rig.Rig`).
Ann and Bob play as a person does there: My hand on the table message, their cards ticked in the
hand's menus, then Play. What each sees is what the fake holds: the channel's table and
announcements, their hand and what was answered to their presses."""

from __future__ import annotations

import copy
from collections.abc import Awaitable, Sequence
from contextlib import AsyncExitStack
from dataclasses import dataclass
from pathlib import Path

from adapters.discord.components import PLAYS_PREFIX, SELECT_PREFIX
from bot.cardtext import card_text
from bot.intents.types import PlaySelection, ShowHand, Toggle
from engine import Match
from fakes.clock import FakeClock
from fakes.discord_api import FakeDiscord, FakeInteraction, FakeMessage, FakeUser, running_fake
from persistence.store import SqliteStore
from tests.discord.rig import FAST, Rig, token_of
from tests.scenarios.doors import ANN_SEAT, BOB_SEAT, Deal, write_match
from tests.scenarios.seen import Seen, codes, hand_cards, summary_facts, table_facts

ANN, BOB = FakeUser(201, "Ann"), FakeUser(203, "Bob")


@dataclass
class Kept:
    """A play picked in the plays menu of a hand message, chosen there later."""

    message: FakeMessage
    custom_id: str
    value: str


class DiscordDoor:
    name = "discord"
    people: tuple[int, ...] = (ANN_SEAT, BOB_SEAT)
    group_lags: bool = False

    def __init__(self, tmp: Path) -> None:
        tmp.mkdir(parents=True, exist_ok=True)
        self.db = str(tmp / "dc.sqlite3")
        self.stack = AsyncExitStack()
        self.clock = FakeClock()
        self.rig: Rig | None = None
        self.said: dict[int, list[str]] = {ANN.id: [], BOB.id: []}  # what each was answered
        self.lang = "en"
        self.ann, self.bob = ANN, BOB

    def user(self, seat: int) -> FakeUser:
        return self.ann if seat == ANN_SEAT else self.bob

    @property
    def fake(self) -> FakeDiscord:
        assert self.rig is not None
        return self.rig.fake

    async def open(self, deal: Deal) -> None:
        self.lang = deal.lang
        fake = await self.stack.enter_async_context(running_fake(scale=FAST))
        locale = "zh-TW" if deal.lang == "zh-Hant" else "en-US"
        self.ann, self.bob = (FakeUser(u.id, u.name, locale=locale) for u in (ANN, BOB))
        store = await SqliteStore.open(self.db, synchronous="OFF")
        await write_match(store, "discord", str(fake.channel_id), {ANN_SEAT: str(ANN.id), BOB_SEAT: str(BOB.id)}, deal)
        self.rig = Rig(fake, store, self.clock)
        await self.rig.boot()
        await self.rig.settled()

    async def restart(self) -> None:
        assert self.rig is not None
        await self.rig.shutdown()
        await self.rig.store.close()
        self.rig.store = await SqliteStore.open(self.db, synchronous="OFF")
        await self.rig.boot()
        await self.rig.settled()

    async def settled(self) -> None:
        assert self.rig is not None
        await self.rig.settled()

    async def hand(self, seat: int = ANN_SEAT) -> FakeMessage:
        """Their hand message: the newest they have, else the one My hand brings up."""
        assert self.rig is not None
        user = self.user(seat)
        hand = self.rig.hand_message(user)
        if hand is None:
            table = self.rig.table_message()
            mine = next(b for b in table.buttons()
                        if (tok := token_of(str(b.get("custom_id", "")))) is not None and isinstance(tok[1], ShowHand))
            await self.fake.press(user, table, mine["custom_id"])
            await self.settled()
            hand = self.rig.hand_message(user)
        assert hand is not None, f"{user.name} got no hand"
        return hand

    async def play(self, cards: Sequence[str], seat: int = ANN_SEAT) -> None:
        await self.pick(cards, seat)
        await self.confirm(seat)

    async def pick(self, cards: Sequence[str], seat: int = ANN_SEAT) -> None:
        """Ticks `cards` in their hand's card menus."""
        user = self.user(seat)
        hand = await self.hand(seat)
        want = [card_text(c) for c in cards]
        for select in hand.selects():
            if not str(select["custom_id"]).startswith(SELECT_PREFIX):
                continue
            values = []
            for option in select["options"]:
                tok = token_of("b:" + option["value"])  # an option's value is a toggle's token
                label = option["label"].removesuffix(" ²")  # the second of two like cards
                if label in want and tok is not None and isinstance(tok[1], Toggle):
                    want.remove(label)
                    values.append(option["value"])
            if values:
                await self.fake.choose(user, hand, select["custom_id"], values)
                await self.settled()
                hand = await self.hand(seat)
        assert not want, f"cards not in the menus of {user.name}: {want}"

    async def confirm(self, seat: int = ANN_SEAT) -> None:
        """Presses Play on their hand."""
        hand = await self.hand(seat)
        play = next(b for b in hand.buttons()
                    if (tok := token_of(str(b.get("custom_id", "")))) is not None and isinstance(tok[1], PlaySelection))
        await self.move(self.fake.press(self.user(seat), hand, play["custom_id"]), seat)

    async def move(self, pressed: Awaitable[FakeInteraction], seat: int = ANN_SEAT) -> None:
        """A press that makes a move, and what they are told of it: a reply of its own, or a note under
        the hand the press was made on ("› ...")."""
        i = await pressed
        await self.settled()
        said = self.said[self.user(seat).id]
        content = str(i.callback_data.get("content") or "")
        if i.callback_type == 4 and content not in ("", "✓"):
            said.append(content)
        for m in list(self.fake.messages.values()):
            if m.id in i.owned and not m.deleted:
                said += [line[2:] for line in m.content.splitlines() if line.startswith("› ")]

    async def draw_choice(self, cards: Sequence[str]) -> Kept:
        """The play as her hand's menu of plays offers it now; her choice reaches the bot later with the
        message as it was when she chose (an interaction carries the message as Discord had it then)."""
        hand = copy.deepcopy(await self.hand())
        for select in hand.selects():
            if str(select["custom_id"]).startswith(PLAYS_PREFIX):
                for option in select["options"]:
                    if sorted(codes(option["label"])) == sorted(cards):
                        return Kept(hand, select["custom_id"], option["value"])
        raise AssertionError(f"no play of {cards} in her menu")

    async def send_later(self, later: object) -> None:
        assert isinstance(later, Kept)
        await self.move(self.fake.choose(self.ann, later.message, later.custom_id, [later.value]))

    async def keep_view(self) -> FakeMessage:
        return copy.deepcopy(await self.hand())

    async def press_on(self, kept: object) -> None:
        """A card ticked on her hand as it showed then: the interaction carries that message (she
        clicked before the bot's edit reached Discord), and reaches the bot now."""
        assert isinstance(kept, FakeMessage)
        select = next(sel for sel in kept.selects() if str(sel["custom_id"]).startswith(SELECT_PREFIX))
        await self.move(self.fake.choose(self.ann, kept, str(select["custom_id"]), [str(select["options"][0]["value"])]))

    async def look(self, seat: int = ANN_SEAT) -> Seen:
        assert self.rig is not None
        table = self.rig.table_message()
        turn, trick = table_facts(self.lang, table.content)
        hand = await self.hand(seat)
        told = [line for m in self.fake.channel_messages() for line in m.content.splitlines()]
        return Seen(turn, trick, hand_cards(self.lang, hand.content) if hand else None,
                    tuple(self.said[self.user(seat).id]), summary_facts(self.lang, told))

    async def group(self) -> Seen:
        assert self.rig is not None
        turn, trick = table_facts(self.lang, self.rig.table_message().content)
        lines = tuple(line for m in self.fake.channel_messages() for line in m.text().splitlines())
        return Seen(turn, trick, None, lines, summary_facts(self.lang, lines))

    def match(self) -> Match:
        assert self.rig is not None
        return self.rig.table().game

    async def close(self) -> None:
        """Stops the bot and the fake; every interaction was answered in time, nothing failed."""
        rig = self.rig
        if rig is not None and rig.running:
            await rig.shutdown()
            await rig.store.close()
        await self.stack.aclose()
        if rig is not None:
            assert rig.runner.inbound.errors == [] and rig.runner.client.errors == []
            assert rig.fake.unanswered() == [] and rig.fake.protocol_errors == []
