"""A match's end carries the league's line when it counted there: the season and where the winners
(here the one person at the table) stand once it is counted, drawn in the group's result."""

from __future__ import annotations

from bot.league.commands import league_command
from bot.platform import User, Where
from bot.scene.text import result_lines
from persistence.memory import MemoryStore
from tests.host.conftest import make_rig
from tests.host.helpers import open_table, play_out


async def test_a_counted_match_ends_with_the_league_line(rig) -> None:  # type: ignore[no-untyped-def]
    for played in (1, 2):
        table = await open_table(rig, ["u1"], 3, "classic", "target=3")
        await play_out(rig, table, {"u1": "buttons"})
        stored = await rig.store.get_match(table.id)
        assert stored is not None and stored.status == "finished"
        sc = table.screen.scenes.public()
        assert sc.result is not None and sc.result.league is not None
        line = sc.result.league
        assert line.season == 1 and len(line.places) == 1  # the winners' people, else everyone at the table
        place = line.places[0]
        # the standing after this match: it is already counted, as `standings` counts it
        assert place.place == 1 and place.wins + place.losses == played
        standings = (await league_command(rig.store, Where("fake", "g1"), User("fake", "u1", "u1", "en"),
                                          "standings", (), "en", False)).text
        assert f"{place.wins}" in standings
        text = "\n".join(result_lines(sc.result, sc.seats, "en"))
        want = f"League, season 1: {place.name} #1 ({place.wins}–{place.losses})"
        assert text.splitlines()[-1] == want
        assert any(want in t for t in rig.platform.group_texts())  # the group's table says it
        # recorded once: the league's history has each match once
        history = (await league_command(rig.store, Where("fake", "g1"), User("fake", "u1", "u1", "en"),
                                        "history", (), "en", False)).text
        assert history.count(f"#{table.id}") == 1


async def test_no_league_no_line() -> None:
    rig = await make_rig(store=MemoryStore())  # a store without SQL keeps no league
    try:
        table = await open_table(rig, ["u1"], 3, "classic", "target=3")
        await play_out(rig, table, {"u1": "buttons"})
        sc = table.screen.scenes.public()
        assert sc.result is not None and sc.result.winner is not None and sc.result.league is None
        assert not any("League, season" in t for t in rig.platform.group_texts())
    finally:
        await rig.host.stop()
