"""Match formats at `new`: best of three deals game after game to the same seats."""

from __future__ import annotations

from tests.host.conftest import Rig
from tests.host.helpers import open_table, play_out, send


async def test_best_of_three_plays_until_a_side_has_two_games(rig: Rig) -> None:
    first = await open_table(rig, ["u1"], 3, "classic", "target=3", "format=bo3")
    assert first.meta.format == "best_of_3"
    seats = list(first.seats)
    wins = [0, 0]
    table = first
    games = 0
    while True:
        await play_out(rig, table, {"u1": "buttons"})
        games += 1
        stored = await rig.store.get_match(table.id)
        assert stored is not None and stored.status == "finished"
        wins[stored.result["winner_team"]] += 1
        # the table's own end (what the web page and the terminal draw) counts this game in the series
        sc = table.screen.scenes.public()
        assert sc.result is not None and sc.result.series is not None
        assert list(sc.result.series.wins) == wins and sc.result.series.over == (max(wins) == 2)
        nxt = rig.host.by_chat.get(("fake", "g1"))
        if max(wins) == 2:
            assert nxt is None
            assert any("Best of three won" in t for t in rig.platform.group_texts())
            break
        assert nxt is not None and nxt.id != table.id
        assert nxt.status == "active" and nxt.seats == seats
        assert list(nxt.meta.series.wins) == wins and nxt.meta.series.game == games + 1
        table = nxt
    assert games in (2, 3)


async def test_unknown_format_is_refused(rig: Rig) -> None:
    texts = await send(rig, rig.d.command("u1", "new", "classic", "format=bo7"))
    assert rig.host.by_chat.get(("fake", "g1")) is None
    assert texts or rig.platform.group_texts()


async def test_a_time_limit_makes_a_timed_match(rig: Rig) -> None:
    table = await open_table(rig, ["u1"], 3, "classic", "time_limit_minutes=30")
    assert table.meta.format == "timed"
    assert "time_limit" in table.deadlines
