"""Daily boards come to the chat (issue 33, item 7): a group that opts in gets the day's boards at the
minute it chose (UTC) and the day before's standings, once a day, on the host's virtual clock."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

from bot.duplicate.daily import today
from bot.features.boards import Boards
from persistence.board_store import BoardStore
from tests.duplicate.conftest import chat, texts_to
from tests.host.conftest import Rig
from tests.host.helpers import play_out, send
from tests.host.leaks import CARD_RE


async def _until(rig: Rig, hh: int, mm: int) -> None:
    """The virtual clock to the next hh:mm UTC, and the poster's look at that moment done."""
    boards = next(f for f in rig.host.features if isinstance(f, Boards))
    now = datetime.fromtimestamp(rig.clock.now(), UTC)
    step = ((hh * 60 + mm) - (now.hour * 60 + now.minute)) % (24 * 60) or 24 * 60
    before = boards.rounds
    rig.clock.advance(step * 60 - now.second)
    boards.look_now()  # it may have woken by itself too: then this look finds nothing more to do
    await asyncio.wait_for(boards.round_after(before), 10)  # a guard only: it comes at once
    await rig.host.settle()


async def test_an_opted_in_chat_gets_the_days_boards_at_its_time_and_the_standings_next_morning(rig: Rig) -> None:
    start = datetime.fromtimestamp(rig.clock.now(), UTC)  # 13:46 UTC on the fake clock's first day
    assert (start.hour, start.minute) == (13, 46)
    assert await send(rig, rig.d.command("u1", "daily", "post", "08:00", private=True)) == [
        "daily post is for a group: it posts the day's boards there."]
    assert await send(rig, rig.d.command("u1", "daily", "post", "8am")) == [
        "daily post HH:MM (UTC, e.g. daily post 08:00), or daily post off."]
    assert await send(rig, rig.d.command("u2", "daily", "post", "08:00", extra={"admin": "0"})) == [
        "Only the group's admins can change when the daily boards are posted."]
    await send(rig, rig.d.command("u1", "daily", "post", "08:00"))
    assert texts_to(rig, "g1")[-1].startswith("Every day at 08:00 UTC this chat gets the day's boards")
    await send(rig, rig.d.command("u1", "daily", "post"))
    assert texts_to(rig, "g1")[-1].startswith("Every day at 08:00 UTC")
    # today's 08:00 has passed: nothing now; meanwhile g2 plays today's board 1
    mark = len(rig.platform.log)
    await _until(rig, 20, 0)
    assert not texts_to(rig, "g1", mark)
    day1 = today(rig.host.clock).isoformat()
    g2 = chat(rig, "g2")
    await send(rig, g2.command("u7", "daily", "play", "1", "ai"))
    await play_out(rig, rig.host.by_chat[("fake", "g2")], {"u7": "buttons"})
    # the next morning at 08:00: the new day's boards (no card), then yesterday's standings with u7
    mark = len(rig.platform.log)
    await _until(rig, 7, 59)
    assert not texts_to(rig, "g1", mark)
    await _until(rig, 8, 0)
    said = texts_to(rig, "g1", mark)
    day2 = today(rig.host.clock).isoformat()
    assert said[0].startswith(f"📅 Daily boards for {day2}: 4 boards, the same in every chat."), said
    assert said[1].startswith(f"Daily boards · {day1}") and "Pu7" in said[1], said
    assert said[2] == "[file daily.png]"
    assert not any(CARD_RE.search(t) for t in said)
    assert len(await BoardStore.of(rig.store).set_boards("daily", day2)) == 4  # the day's set, made for it
    # once a day: the rest of the day brings nothing more; g2, which did not opt in, got nothing
    mark = len(rig.platform.log)
    await _until(rig, 23, 0)
    assert not texts_to(rig, "g1", mark) and not texts_to(rig, "g2", mark)
    # off: the next morning is quiet
    await send(rig, rig.d.command("u1", "daily", "post", "off"))
    mark = len(rig.platform.log)
    await _until(rig, 8, 30)
    assert not texts_to(rig, "g1", mark)
