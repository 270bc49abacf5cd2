"""`/tractor review` on Discord: the review of a person's own hand is shown to them alone."""

from __future__ import annotations

import pytest

import bot.review
from tests.discord.rig import ALICE, BOB, Rig, hand_over, open_table, play_until


@pytest.mark.slow(4)
async def test_a_review_is_shown_to_its_person_only(rig: Rig, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bot.review, "BUDGET_S", 0.01)  # a few playouts a decision: the judging is tested in tests/ai
    fake = rig.fake
    await open_table(rig)
    await play_until(rig, lambda: hand_over(rig))
    before = set(fake.messages)
    await fake.slash(ALICE, "review")
    await rig.settled()
    new = [fake.messages[k] for k in fake.messages if k not in before]
    reviews = [msg for msg in new if "Review of hand 1" in msg.text() or "第 1 副复盘" in msg.text()]
    assert reviews, [msg.text()[:80] for msg in new]
    assert all(msg.visible_to == ALICE.id for msg in reviews)
    assert not any(msg.visible_to != ALICE.id and ("Review of hand" in msg.text() or "复盘" in msg.text())
                   for msg in new)
    assert not any("Review of hand" in msg.text() or "复盘" in msg.text() for msg in fake.private_messages(BOB))
    assert fake.unanswered() == [] and fake.protocol_errors == []
