"""A team's review of a duplicate board (issue 34, item 5): each partner's review of the board sets the
other room's play of the same cards beside it, and only once that room has finished the board."""

from __future__ import annotations

import pytest

import bot.review
from bot.i18n import tr
from persistence.board_store import BoardStore
from tests.duplicate.conftest import chat
from tests.host.conftest import FAST, make_rig
from tests.host.helpers import play_out, send


@pytest.mark.slow(7)
async def test_the_other_rooms_play_of_the_board_comes_beside_the_review(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bot.review, "BUDGET_S", 0.01)  # a few playouts a decision: the judging is tested in tests/ai
    rig = await make_rig(FAST)
    try:
        g2 = chat(rig, "g2")
        await send(rig, rig.d.command("u1", "duplicate", "new", "boards=2", "trump=bid"))
        eid = (await BoardStore.of(rig.store).all_open_events())[-1].id
        await send(rig, g2.command("u5", "duplicate", "room", str(eid)))
        await send(rig, rig.d.command("u1", "duplicate", "join", "home"))
        await send(rig, g2.command("u5", "duplicate", "join", "visitors"))
        await send(rig, rig.d.command("u1", "duplicate", "ai"))
        await send(rig, rig.d.command("u1", "duplicate", "start"))
        open_table, closed = rig.host.by_chat[("fake", "g1")], rig.host.by_chat[("fake", "g2")]
        here, there = open_table.id, closed.id
        await play_out(rig, open_table, {"u1": "buttons"})
        # the closed room has not played the board: nothing of its play, only that it is to come
        start = len(rig.platform.log)
        assert await send(rig, rig.d.command("u1", "review", str(here), "1")) == [tr("en", "review.sent")]
        text = [s.view.text for s in rig.platform.log[start:] if s.where.chat_id == "u1" and s.op == "send"][-1]
        assert text.startswith("Review of hand 1") and tr("en", "review.other_waiting", match=there) in text
        await play_out(rig, closed, {"u5": "buttons"})
        for _ in range(5):
            await rig.host.settle()
        seat = open_table.seat_of("u1")
        start = len(rig.platform.log)
        assert await send(rig, rig.d.command("u1", "review", str(here), "1")) == [tr("en", "review.sent")]
        text = [s.view.text for s in rig.platform.log[start:] if s.where.chat_id == "u1" and s.op == "send"][-1]
        plays = {p.match_id: p for p in await BoardStore.of(rig.store).plays([
            (await BoardStore.of(rig.store).play_of_match(here)).board_id])}  # type: ignore[union-attr]
        assert tr("en", "review.other_room", match=there, there=plays[there].defender_points,
                  here=plays[here].defender_points) in text
        assert "Your seat there, with the same cards," in text and "review." not in text
        # the partner in the other room gets the mirror of it
        g2_start = len(rig.platform.log)
        assert await send(rig, g2.command("u5", "review", str(there), "1")) == [tr("en", "review.sent")]
        mirror = [s.view.text for s in rig.platform.log[g2_start:] if s.where.chat_id == "u5" and s.op == "send"][-1]
        assert tr("en", "review.other_room", match=here, there=plays[here].defender_points,
                  here=plays[there].defender_points) in mirror
        assert seat is not None
    finally:
        await rig.host.stop()
        await rig.store.close()
