"""When the bot's 30 messages a second are busy (many tables on one token), edits that tell nobody
anything new wait and merge, so that what tells people something goes first (issue 29, tables per
token). Through the real client against the strict fake."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from adapters.telegram.config import FloodLimits
from bot.cardtext import card_text
from bot.intents import codec
from bot.intents.types import PlaySelection, Toggle
from fakes.telegram_rig import RIG_SCALE, Rig, booted, until
from tests.telegram.test_capacity import PEOPLE, SETTINGS, seated, to_play, typed

pytestmark = pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")

#: People asking for /help in their own chats, whose answers fill the bot's second past the share
#: lazy edits may use of it (but not the share other edits may use).
ASKERS = [4300 + k for k in range(FloodLimits().global_lazy_edits_per_second + 1)]


class HeldClock:
    """The adapter's flood-gate clock, which the test can hold still: while held, the answers just
    sent stay inside the bot's current second however long this (shared, loaded) machine takes to
    handle the next updates. It is held a Telegram minute ahead, past every window the table's
    earlier messages are in (a chat's second, a group's minute), since they would not empty while
    it is held. Held, the adapter only holds back more than Telegram would."""

    def __init__(self) -> None:
        self.held: float | None = None

    def __call__(self) -> float:
        return self.held if self.held is not None else time.monotonic()

    def hold(self) -> None:
        self.held = time.monotonic() + 61 * RIG_SCALE

    def release(self) -> None:
        self.held = None


def _button(rig: Rig, uid: int, mid: int, code: type, text: str | None = None) -> str:
    for b in rig.fake.buttons_on(uid, mid):
        data = str(b.get("callback_data", ""))
        try:
            act = codec.parse(data)[1]
        except codec.BadToken:
            continue
        if isinstance(act, code) and (text is None or b["text"] == text):
            return data
    raise AssertionError(f"no {code.__name__} button {text or ''} on the hand")


async def _handled_without_drain(rig: Rig, update: int) -> None:
    """The update handled and its table idle (a table waits for the new messages it sends); its
    edits may still wait in the outboxes."""
    async with asyncio.timeout(20):
        await rig.runner.order.wait_for([update], 30)  # type: ignore[attr-defined]
        await rig.runner.inbound.settle()
        await rig.host.settle()


async def test_a_taps_picks_wait_in_a_busy_second_and_the_play_replaces_them_unsent(tmp_path: Path) -> None:
    """A person plays with the private hand's buttons: a tap on a card, then *Play*. The tap's answer
    names the card at once; redrawing the hand to show it picked tells them nothing new, so while the
    bot's second is busy that edit waits, and the play's redraw (the hand without the card) replaces
    it: one edit of the hand for the play, not two. Before, the tap's edit went out whatever the
    bot's second held."""
    clock = HeldClock()
    async with booted(str(tmp_path / "t.sqlite3"), settings=SETTINGS, gate_clock=clock) as rig:
        fake = rig.fake
        table = await seated(rig)
        seat = await to_play(rig, table)
        uid, mid = PEOPLE[seat], int(table.messages[f"hand{seat}"])
        card = table.match.auto_action(seat).cards[0]
        for asker in ASKERS:
            fake.add_user(asker, f"A{asker}", opened=True)
        clock.hold()
        await rig.handled(*[fake.command(asker, asker, "/help") for asker in ASKERS])
        first = len(fake.calls)
        update, query = fake.press(uid, uid, mid, _button(rig, uid, mid, Toggle, card_text(card)))
        await _handled_without_drain(rig, update)
        assert fake.callback_answers[query]["text"] == card_text(card)  # the tap is answered at once
        hand_before = table.match.view(seat)["hand"]
        update, query = fake.press(uid, uid, mid, _button(rig, uid, mid, PlaySelection))
        await _handled_without_drain(rig, update)
        assert len(table.match.view(seat)["hand"]) == len(hand_before) - 1  # played
        await until(lambda: f"{len(hand_before) - 1} cards" in fake.messages[(uid, mid)].text, timeout=10)
        clock.release()
        await rig.settle()
        edits = [str(c.params["text"]) for c in fake.calls[first:]
                 if c.method == "editMessageText" and int(c.params["chat_id"]) == uid and c.ok]
        assert len(edits) == 1, edits  # the play's redraw only: the tap's was replaced unsent
        assert f"{len(hand_before) - 1} cards" in edits[0]
        assert fake.rejected_429 == 0 and not rig.errors


async def test_a_turn_notice_goes_past_its_chats_hand_edit_waiting_in_a_busy_second(tmp_path: Path) -> None:
    """Whoever takes a trick has just played, so the redraw of their hand waits in their private chat
    while the bot's second is past the share edits may use. Their turn notice, queued behind it in
    the same chat, is a new message and goes at once. Before, the chat's outbox went on waiting
    for the edits' share with the notice behind the edit (at 100 tables: turns untold for 30 s)."""
    clock = HeldClock()
    askers = [4400 + k for k in range(FloodLimits().global_edits_per_second)]
    async with booted(str(tmp_path / "t.sqlite3"), settings=SETTINGS, gate_clock=clock) as rig:
        fake = rig.fake
        table = await seated(rig)
        await to_play(rig, table)
        for asker in askers:
            fake.add_user(asker, f"A{asker}", opened=True)
        clock.hold()
        await rig.handled(*[fake.command(asker, asker, "/help") for asker in askers])
        m = table.match
        first = len(fake.calls)
        for _ in range(4):  # a whole trick, typed: each player's hand redraw waits
            seat = int(m.public_view()["turn"])
            await _handled_without_drain(rig, fake.send_text(PEOPLE[seat], PEOPLE[seat],
                                                             typed(m.auto_action(seat))))
        winner = int(m.public_view()["turn"])
        assert m.public_view().get("tricks_played") == 1 and f"hand{winner}" in table.messages

        def told() -> bool:
            return any(c.method == "sendMessage" and int(c.params["chat_id"]) == PEOPLE[winner] and c.ok
                       for c in fake.calls[first:])

        await until(told, timeout=10)
        waiting = rig.runner.platform.outboxes._chats[PEOPLE[winner]].edits  # (the hand's redraw)
        assert int(table.messages[f"hand{winner}"]) in waiting
        clock.release()
        await rig.settle()
        assert fake.rejected_429 == 0 and not rig.errors
