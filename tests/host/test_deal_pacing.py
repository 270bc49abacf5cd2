"""People get their chance to declare: while a person is seated, AIs wait `ai_declare` seconds."""

from __future__ import annotations

import random

import pytest

from app.features import build_host
from bot.settings import TableSettings
from fakes.clock import FakeClock
from persistence.memory import MemoryStore
from tests.host.fakes import Driver, RecordingPlatform


async def _first_ai_declaration(ai_declare: float, seed: int) -> tuple[float, float] | None:
    """Deals one hand to a person and three AIs at 0.5 s a step; (seconds into the deal of the first AI
    declaration, seconds the whole deal took), or None when no AI declared while dealing."""
    clock = FakeClock()
    platform = RecordingPlatform()
    settings = TableSettings(deal=0.5, declare=10**6, next=0, turn=0, bury=0, lobby=0, ai_declare=ai_declare)
    host = build_host(MemoryStore(), clock=clock, defaults=settings, use_ai_threads=True, rng=random.Random(seed))
    host.register(platform)
    await host.start()
    d = Driver(platform)
    try:
        for ev in [d.command("u1", "new"), *[d.command("u1", "addbot") for _ in range(3)], d.command("u1", "start")]:
            await host.handle(ev)
            await host.settle()
        table = host.by_chat[("fake", "g1")]
        began = clock.now()
        first = None
        for _ in range(200):
            if table.match.phase != "dealing":
                break
            decl = table.match.public_view().get("declaration")
            if first is None and decl is not None and table.seats.ai_driven(int(decl["seat"])):
                first = clock.now() - began
            clock.advance(0.5)
            await host.settle()
        return None if first is None else (first, clock.now() - began)
    finally:
        await host.stop()


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5, 7])  # deals in which an AI wants to declare (not 6)
async def test_ais_do_not_declare_faster_than_a_person_could(seed: int) -> None:
    quick = await _first_ai_declaration(0, seed)
    paced = await _first_ai_declaration(2.0, seed)
    assert quick is not None, "no AI wanted to declare in this deal: the test would prove nothing"
    assert paced is None or paced[0] >= 2.0
    if paced is not None:
        assert paced[0] >= quick[0] + 2.0 - 0.5  # held for the wait, give or take one deal step


async def test_the_seeds_above_do_see_ais_declare_while_dealing() -> None:
    """Without the wait the AI declares as soon as it wants, so the test above fails without the fix."""
    found = [await _first_ai_declaration(0, seed) for seed in range(1, 7)]
    assert sum(1 for f in found if f is not None) >= 3


def test_the_pace_is_a_table_option() -> None:
    from bot.settings import parse_new_args, settings_with

    _, _, table = parse_new_args(("classic", "deal=0.4", "ai_declare=3"), ("classic",))
    s = settings_with(TableSettings(), table)
    assert (s.deal, s.ai_declare) == (0.4, 3.0)


async def test_the_group_table_carries_every_trick_a_person_did_not_win() -> None:
    """Chats get no message per trick (Telegram allows a group 20 a minute): the table's last-trick line."""
    from tests.host.conftest import make_rig
    from tests.host.helpers import act_as_human, open_table

    rig = await make_rig()
    try:
        table = await open_table(rig, ["u1"], 3, "classic")
        seen: set[int] = set()
        for _ in range(400):
            pub = table.match.public_view()
            if pub["phase"] != "playing" and pub.get("tricks_played"):
                break
            if pub.get("last_trick_winner") is not None:
                text = rig.platform.messages[table.messages["table"]][1].text
                assert "Last trick:" in text and " wins" in text
                seen.add(int(pub["last_trick_winner"]))
            if not await act_as_human(rig, table, "u1", "text"):
                break
        assert seen - {table.seat_of("u1")}, "no trick won by someone else was seen"
        assert not any(t.startswith("Trick ") for t in rig.platform.group_texts())  # no message per trick
    finally:
        await rig.host.stop()
        await rig.store.close()
