"""Four people play 80分 on Discord through the real discord.py client and the fake server."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from bot.clock import FakeClock
from bot.memstore import MemoryStore
from tests.discord.rig import ALICE, BOB, CAROL, DAVE, PEOPLE, Rig, cards_named
from tests.fakes.discord_api import FakeDiscord


@pytest.fixture
async def rig(fake_discord: FakeDiscord) -> AsyncIterator[Rig]:
    store = await MemoryStore.open()
    r = Rig(fake_discord, store, FakeClock())
    fake_discord.observer = r.observe
    await r.boot()
    try:
        yield r
    finally:
        await r.shutdown()


async def open_table(rig: Rig) -> None:
    """alice opens with /tractor new, bob joins by command, carol and dave with the lobby button."""
    fake = rig.fake
    choices = await fake.autocomplete(ALICE, "new", "preset", "cl")
    assert [c["value"] for c in choices] == ["classic"]
    await fake.slash(ALICE, "new", {"preset": "classic"})
    await rig.idle()
    await fake.slash(BOB, "join")
    await rig.idle()
    lobby = rig.table_message()
    for person in (CAROL, DAVE):
        await fake.click(person, lobby, "Join")
        await rig.idle()
    assert "4/4" in lobby.content
    await fake.click(ALICE, lobby, "Start")
    await rig.idle()


async def play_until(rig: Rig, done: object, limit: int = 600) -> None:
    """People act in turn; when nobody must, the clock moves on (deal window, next hand)."""
    for _ in range(limit):
        if callable(done) and done():
            return
        acted = False
        for person in PEOPLE:
            if await rig.act(person):
                acted = True
                break
        if not acted:
            rig.clock.advance(31)
            await rig.idle()
    raise AssertionError("the hand did not finish")


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


async def test_four_people_play_a_whole_hand(rig: Rig) -> None:
    fake = rig.fake
    await open_table(rig)
    table = rig.table()
    assert table.status == "active"
    await play_until(rig, lambda: hand_over(rig))

    m = table.match
    assert m is not None
    played = sum(len(a["cards"]) for a in m.actions if a["t"] == "play")
    assert played == 100  # every card of the hand was played by a person through Discord
    assert {a["seat"] for a in m.actions if a["t"] in ("play", "bury", "declare", "pass")} <= {0, 1, 2, 3}
    assert any(a["t"] == "bury" for a in m.actions)
    assert fake.unanswered() == []
    assert fake.protocol_errors == []
    assert rig.runner.inbound.errors == [] and rig.runner.client.errors == []
    assert leaks(fake) == []
    # the dealer chose 8 of 33 cards: more than one select menu holds (25 options each)
    assert max(msg.peak_selects for msg in fake.messages.values()) == 2
    # hands were private: every message showing a selectable hand is seen by one person only
    for message in fake.messages.values():
        if message.selects():
            assert message.visible_to is not None and message.ephemeral
    # the table message stayed one message, edited in place
    tables = [msg for msg in fake.public_messages() if "My hand" in msg.text()]
    assert len(tables) <= 2  # hand 1 (and hand 2 once dealt)
    assert len(tables[0].history) > 10
