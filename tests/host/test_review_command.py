"""`review` (复盘): a person's review of their own hand goes to them privately, never to the group."""

from __future__ import annotations

import io
import re

import pytest

import bot.review
from app.console import play_console
from bot.i18n import tr
from persistence.memory import MemoryStore
from tests.host.conftest import Rig
from tests.host.helpers import open_table, play_out, send


@pytest.fixture(autouse=True)
def _quick(monkeypatch: pytest.MonkeyPatch) -> None:
    """A few playouts per decision: the words and the routing are tested here, the judging in tests/ai."""
    monkeypatch.setattr(bot.review, "BUDGET_S", 0.01)


@pytest.mark.slow(4)
async def test_a_review_goes_to_the_person_privately(rig: Rig) -> None:
    table = await open_table(rig, ["u1"], 3)
    assert await send(rig, rig.d.command("u1", "review")) == [tr("en", "review.no_hand", match=table.id)]
    await play_out(rig, table, {"u1": "text"}, hands=1)
    before = len(rig.platform.log)
    assert await send(rig, rig.d.command("u1", "review")) == [tr("en", "review.sent")]
    sent = [e for e in rig.platform.log[before:] if e.op == "send"]
    mine = [e for e in sent if e.where.private and e.where.chat_id == "u1" and "Review of hand 1" in e.view.text]
    assert len(mine) == 1, [e.view.text[:60] for e in sent]
    text = mine[0].view.text
    assert "{" not in text and "review." not in text and "hint." not in text
    assert tr("en", "review.clean") in text or "cost about" in text
    assert not any("Review of hand" in e.view.text for e in sent if not e.where.private)
    # the same hand asked by number
    assert await send(rig, rig.d.command("u1", "review", str(table.id), "1")) == [tr("en", "review.sent")]
    # someone who did not play gets no review of anyone's hand
    assert await send(rig, rig.d.command("u9", "review", str(table.id), "1")) == [
        tr("en", "review.not_seated", match=table.id)]
    assert await send(rig, rig.d.command("u1", "review", str(table.id), "7")) == [
        tr("en", "review.no_hand", match=table.id)]
    bot.review._ONE_AT_A_TIME.acquire()  # another review is being worked out
    try:
        assert await send(rig, rig.d.command("u1", "review")) == [tr("en", "review.busy")]
    finally:
        bot.review._ONE_AT_A_TIME.release()
    rig.platform.unreachable.add("u1")
    assert await send(rig, rig.d.command("u1", "review")) == [tr("en", "review.unreachable")]


async def test_bad_words_get_a_clear_answer(rig: Rig) -> None:
    notes = await send(rig, rig.d.command("u1", "review", "first"))
    assert len(notes) == 1 and "first" in notes[0]
    assert await send(rig, rig.d.command("u1", "review")) == [tr("en", "review.no_match")]


async def test_the_terminal_shows_the_review_in_its_language() -> None:
    out = io.StringIO()
    inp = io.StringIO("pass\n" + "auto\n" * 45 + "review\nquit\n")
    await play_console(MemoryStore(), inp=inp, out=out, lang="zh-Hant", seed=5)
    text = out.getvalue()
    assert re.search(r"第 \d+ 副復盤，①root", text), text[-1500:]
    assert "review." not in text
