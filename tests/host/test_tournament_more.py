"""Tournaments across a restart, and a time-limited tournament game adjudicated by its preset's rule."""

from __future__ import annotations

import random

from app.features import build_host
from bot.league.tournament import Tournament
from persistence.store import SqliteStore
from persistence.tournament_store import TournamentStore
from tests.host.conftest import FAST, Rig, make_rig
from tests.host.helpers import play_out, send

ADMIN = {"extra": {"admin": "1"}}


async def _tour(store: object) -> Tournament:
    row = await TournamentStore.of(store).latest("fake", "g1")
    assert row is not None
    return Tournament.from_dict(row.state)


async def _two_teams(rig: Rig, *options: str) -> None:
    d = rig.d
    await send(rig, d.command("u1", "tournament", "new", "knockout", *options, **ADMIN))
    await send(rig, d.command("u1", "tournament", "team", "Alpha"))
    await send(rig, d.command("u2", "tournament", "join", "Alpha"))
    await send(rig, d.command("u3", "tournament", "team", "Beta"))
    await send(rig, d.command("u4", "tournament", "join", "Beta"))
    await send(rig, d.command("u1", "tournament", "start", **ADMIN))


async def test_a_restart_keeps_the_match_its_reservations_and_the_late_clock() -> None:
    rig = await make_rig()
    await _two_teams(rig, "classic", "target=3")
    table = rig.host.by_chat[("fake", "g1")]
    assert table.status == "lobby" and set(table.meta["reserved"].values()) == {"u1", "u2", "u3", "u4"}
    late_at = table.deadlines["lobby"]
    await send(rig, rig.d.command("u1", "join"))
    path = rig.store.path
    await rig.host.stop()
    await rig.store.close()

    store = await SqliteStore.open(path, synchronous="OFF")
    host = build_host(store, clock=rig.clock, defaults=FAST, use_ai_threads=False, rng=random.Random(2))
    host.register(rig.platform)
    await host.start()
    await host.settle()
    rig2 = Rig(host, store, rig.platform, rig.clock, rig.d)
    again = host.by_chat[("fake", "g1")]
    assert again.id == table.id and again.deadlines["lobby"] == late_at  # the same table, the same clock
    await send(rig2, rig.d.command("u2", "join"))
    await send(rig2, rig.d.command("u3", "join"))  # Beta's u4 never comes
    rig.clock.advance(late_at - rig.clock.now() + 1)
    await host.settle()
    tour = await _tour(store)
    assert tour.status == "finished" and tour.champion() is not None
    assert tour.champion().name == "Alpha"  # type: ignore[union-attr]
    assert any("forfeits" in text for text in rig.platform.group_texts())
    await host.stop()
    await store.close()


async def test_a_time_limited_game_is_adjudicated_as_its_preset_says(rig: Rig) -> None:
    """classic: time_limit_mode higher_level (001a/004g): at the time limit the side ahead wins."""
    await _two_teams(rig, "bo1", "classic", "target=A", "time_limit_minutes=30")
    table = rig.host.by_chat[("fake", "g1")]
    for uid in ("u1", "u2", "u3", "u4"):
        await send(rig, rig.d.command(uid, "join"))
    assert table.status == "active" and "time_limit" in table.deadlines
    people = {u: "text" for u in ("u1", "u2", "u3", "u4")}
    await play_out(rig, table, people, hands=2)
    rig.clock.advance(table.deadlines["time_limit"] - rig.clock.now() + 1)
    await rig.host.settle()
    await play_out(rig, table, people)
    stored = await rig.store.get_match(table.id)
    assert stored.result["reason"] == "time_limit"
    tour = await _tour(rig.store)
    final = tour.pairings[-1]
    assert tour.status == "finished" and [g.ending for g in final.games] == ["time_limit"]
    levels = stored.result["levels"]
    w = stored.result["winner_team"]
    from engine.cards import parse_rank

    assert parse_rank(levels[w]) >= parse_rank(levels[1 - w])  # the higher side (or 台上 on a tie) won
