"""Complete matches through the host: AI seats plus scripted people, with the leak scanner on."""

from __future__ import annotations

import pytest

import engine
from tests.host.conftest import Rig
from tests.host.helpers import open_table, play_out, send
from tests.host.leaks import scan, snapshot


async def test_one_person_and_three_ais_finish_a_stored_match(rig: Rig) -> None:
    await open_table(rig, ["u1"], 3, "classic", "target=3")
    table = (await rig.store.get_match(1))
    await play_out(rig, rig.host.tables[1], {"u1": "buttons"})
    stored = (await rig.store.get_match(1))
    assert stored.status == "finished" and stored.result is not None
    assert stored.result["winner_team"] in (0, 1)
    m = engine.Match.replay(engine.Rules.from_dict(table.rules), table.seed, stored.actions)
    assert m.phase == "match_over" and m.result == stored.result
    assert any("🏆" in text for text in rig.platform.group_texts())
    assert 1 not in rig.host.tables
    # the finished match reached the league: standings answer in the group, with a picture
    await send(rig, rig.d.command("u1", "standings"))
    assert "Pu1" in rig.platform.group_texts()[-2]
    assert rig.platform.files and rig.platform.files[-1][1] == "standings.png"
    assert rig.platform.files[-1][2].startswith(b"\x89PNG")


async def test_people_and_ais_play_a_whole_match_without_leaks(paced: Rig) -> None:
    rig = paced
    table = await open_table(rig, ["u1", "u2", "u3"], 1, "classic", "target=3")
    rig.platform.observer = lambda: snapshot(table.match)
    seat_of = {u: table.seat_of(u) for u in ("u1", "u2", "u3")}
    await play_out(rig, table, {"u1": "buttons", "u2": "text", "u3": "inline"})
    stored = (await rig.store.get_match(table.id))
    assert stored.status == "finished"
    problems = scan(rig.platform.log, {u: s for u, s in seat_of.items() if s is not None})
    assert problems == []
    group = rig.platform.group_texts()
    assert sum("is over" in g for g in group) >= 2  # hand results were announced
    # every private message went to a seated person, each only their own hand
    for sent in rig.platform.log:
        if sent.where.private:
            assert sent.where.chat_id in seat_of


async def test_leak_scanner_catches_a_hand_in_the_group(rig: Rig) -> None:
    table = await open_table(rig, ["u1"], 3, "classic", "target=3")
    t = table
    assert t.match is not None and t.match.phase != "match_over"
    rig.platform.observer = lambda: snapshot(t.match)
    other = t.match.view(((t.seat_of("u1") or 0) + 1) % 4)["hand"]
    from bot.cardtext import cards_text
    from bot.platform import View, Where

    await rig.platform.send(Where("fake", "g1"), View("oops " + cards_text(other)))
    assert scan(rig.platform.log, {"u1": t.seat_of("u1") or 0})


@pytest.mark.parametrize("preset", ["competition", "chaodipi", "super"])
async def test_other_presets_play_hands_without_leaks(paced: Rig, preset: str) -> None:
    rig = paced
    table = await open_table(rig, ["u1", "u2"], 2, preset)
    rig.platform.observer = lambda: snapshot(table.match)
    await play_out(rig, table, {"u1": "buttons", "u2": "text"}, hands=2)
    assert table.match.public_view()["hand_no"] >= 3 or table.status == "finished"
    assert scan(rig.platform.log, {"u1": table.seat_of("u1") or 0, "u2": table.seat_of("u2") or 0}) == []
    assert sum("is over" in g for g in rig.platform.group_texts()) >= 2
