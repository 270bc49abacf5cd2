"""One channel at a time: while a person's page of the web table is shown, their private chat gets no
turn notice and no edit of their hand; once every page of their seat has been hidden or closed for
`WEB_GRACE` seconds, the chat takes over, and gives way again when a page is shown.

A whole hand on four sockets of a Telegram-like platform (turn notices on), one page asleep for
five minutes mid-hand, on the host's fake clock."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from bot.live import WEB_GRACE
from bot.platform import Where
from tests.host.fakes import Sent
from tests.web.client import Client
from tests.web.conftest import WebRig, make_web_rig, open_table, seat_pages

PEOPLE = ["1", "2", "3", "4"]


@pytest.fixture
async def rig() -> AsyncIterator[WebRig]:
    r = await make_web_rig(turn_notices=True)
    yield r
    await r.session.close()
    await r.server.close()
    await r.host.stop()
    await r.store.close()


class Chats:
    """Every private send, edit and delete, with the host's time it happened at."""

    def __init__(self, rig: WebRig) -> None:
        self.rig = rig
        self.deleted: list[tuple[float, Where]] = []
        self.at: dict[int, float] = {}  # index in the platform's log -> host time
        delete = rig.platform.delete

        async def deleting(where: Where, message_id: str) -> None:
            self.deleted.append((rig.clock.now(), where))
            await delete(where, message_id)
        rig.platform.delete = deleting  # type: ignore[method-assign]
        self.log_seen = 0
        self.del_seen = 0

    def since(self) -> list[tuple[str, str, float]]:
        """The private sends, edits and deletes since the last call: (op, user, host time)."""
        log = self.rig.platform.log
        out = [(e.op, e.where.chat_id, self._time(i, e)) for i, e in enumerate(log[self.log_seen:], self.log_seen)
               if e.where.private and e.op in ("send", "edit")]
        out += [("delete", w.chat_id, t) for t, w in self.deleted[self.del_seen:] if w.private]
        self.log_seen, self.del_seen = len(log), len(self.deleted)
        return out

    def _time(self, i: int, e: Sent) -> float:
        return self.at.setdefault(i, self.rig.clock.now())


async def pages_settled(rig: WebRig, match_id: int) -> dict[int | None, Client]:
    pages = await seat_pages(rig, match_id, PEOPLE)
    await rig.host.settle()
    return pages


async def play_one(rig: WebRig, match_id: int, pages: dict[int | None, Client]) -> str:
    """The seat to act plays the engine's quick move from its page; what it was."""
    table = rig.host.tables[match_id]
    m = table.match
    s = m.to_act()[0]
    act = m.auto_action(s, rng_seed=m.version)
    assert act is not None
    version = m.version
    await pages[s].until(lambda st: st["version"] >= version)
    key = await pages[s].act(act.t, list(getattr(act, "cards", ())))
    assert (await pages[s].answer(key))["ok"]
    await rig.host.settle()
    return str(act.t)


async def test_a_page_shown_keeps_the_chat_quiet_and_a_page_asleep_hands_it_back(rig: WebRig) -> None:
    table = await open_table(rig, PEOPLE)
    match_id = table.id
    chats = Chats(rig)
    pages = await pages_settled(rig, match_id)
    await play_one(rig, match_id, pages)
    chats.since()  # the switch to the web: each private hand folded once
    plays = 0
    m = table.match
    # until the third trick waits for seat 2: nothing private while every page is shown
    while not (m.phase == "playing" and m.public_view()["tricks_played"] >= 2 and m.to_act() == [2]):
        await play_one(rig, match_id, pages)
        plays += 1
        m = table.match
    assert chats.since() == [], "a page was shown"
    sleeper = str(table.seats[2].user_id)
    # seat 2's phone goes to sleep for five minutes while the table waits for it
    assert pages[2].ws is not None
    await pages[2].ws.send_json({"t": "seen", "hidden": True})
    await rig.host.settle()
    slept = rig.clock.now()
    events: list[tuple[str, str, float]] = []
    while rig.clock.now() < slept + 300:
        rig.clock.advance(1.0)
        await rig.host.settle()
        events += chats.since()
    assert events, "the chat never took over"
    first = min(t for _, _, t in events) - slept
    assert WEB_GRACE <= first <= WEB_GRACE + 1.0, first
    assert {who for _, who, _ in events} == {sleeper}
    # the hand is drawn in the chat with its cards, and the turn notice goes there
    ops = sorted(op for op, _, _ in events)
    assert ops == ["edit", "send"], events
    # the page wakes: the chat gives way at once (the hand folded, the notice deleted)
    await pages[2].ws.send_json({"t": "seen", "hidden": False})
    await rig.host.settle()
    back = chats.since()
    assert sorted(op for op, _, _ in back) == ["delete", "edit"] and {w for _, w, _ in back} == {sleeper}, back
    # and the rest of the hand on the web: nothing private per play
    while int(table.match.public_view()["hand_no"]) == 1:
        await play_one(rig, match_id, pages)
        plays += 1
    assert chats.since() == [], "pages were shown"
    assert plays > 40
    for c in pages.values():
        await c.close()


async def test_a_page_gone_hands_the_chat_back_after_the_grace(rig: WebRig) -> None:
    table = await open_table(rig, PEOPLE)
    chats = Chats(rig)
    pages = await pages_settled(rig, table.id)
    while table.match.phase != "playing":
        await play_one(rig, table.id, pages)
    s = table.match.to_act()[0]
    chats.since()
    await pages[s].close()
    while any(c.seat == s for c in rig.web.connections):  # the server saw it close
        await asyncio.sleep(0.01)
    await rig.host.settle()
    assert len(rig.host.live.watchers[table.id]) == 3  # the closed page's watcher is gone from the hub
    gone = rig.clock.now()
    rig.clock.advance(WEB_GRACE - 1)
    await rig.host.settle()
    assert chats.since() == []
    rig.clock.advance(2)
    await rig.host.settle()
    assert sorted(op for op, _, _ in chats.since()) == ["edit", "send"]
    assert rig.clock.now() - gone <= WEB_GRACE + 1
    for c in pages.values():
        await c.close()
