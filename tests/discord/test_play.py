"""Four people play 80分 on Discord through the real discord.py client and the fake server."""

from __future__ import annotations

from collections import Counter
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
    """Cards shown to someone who could not know them, at the moment the message showed them."""
    problems = []
    for message in fake.messages.values():
        for text, snap in zip(message.history, message.snapshots, strict=True):
            if snap is None:
                continue
            seen: Counter[str] = Counter()
            for line in text.splitlines():  # a card may repeat on a button label: count each line apart
                seen |= cards_named(line)
            allowed = snap["public"]
            seat = None if message.public else snap["users"].get(str(message.visible_to))
            if seat is not None:
                allowed = allowed | snap["seats"][seat]
            extra = sorted((seen - allowed).elements())
            if extra:
                problems.append(f"message {message.id} ({'public' if message.public else 'private'}): {extra}")
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
    problems = leaks(fake)
    for p in problems[:3]:
        mid = int(p.split()[1]); msg = fake.messages[mid]; print(p, msg.visible_to, msg.via, [h[:300] for h in msg.history if p.split("[")[-1][1:3] in str(h) or True][:2])
    assert problems == []
    # hands were private: every message showing a selectable hand is seen by one person only
    for message in fake.messages.values():
        if message.selects():
            assert message.visible_to is not None and message.ephemeral
    # the table message stayed one message, edited in place
    tables = [msg for msg in fake.public_messages() if "My hand" in msg.text()]
    assert len(tables) <= 2  # hand 1 (and hand 2 once dealt)
    assert len(tables[0].history) > 10
