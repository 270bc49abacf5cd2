"""A tournament run by the host in one chat: an eight-team knockout played to its best-of-three final.

People enter teams, AI teams fill the field, each match opens as a table for its two teams only,
a team not seated within 15 minutes forfeits, results move the bracket on by themselves.
"""

from __future__ import annotations

import pytest

from bot.league.tournament import BOTH, Tournament
from persistence.league_store import LeagueStore
from persistence.tournament_store import TournamentStore
from tests.host.conftest import Rig
from tests.host.helpers import play_out, send

ADMIN = {"extra": {"admin": "1"}}


async def tour_now(rig: Rig) -> Tournament:
    row = await TournamentStore.of(rig.store).latest("fake", "g1")
    assert row is not None
    return Tournament.from_dict(row.state)


@pytest.mark.slow(4)
async def test_eight_team_knockout_to_its_final(rig: Rig) -> None:
    d = rig.d
    await send(rig, d.command("u1", "tournament", "new", "knockout", "seeded", "classic", "target=3", **ADMIN))
    assert "Tournament #1 is open" in rig.platform.group_texts()[-1]
    await send(rig, d.command("u1", "tournament", "team", "Alpha"))
    await send(rig, d.command("u2", "tournament", "join", "alpha"))
    await send(rig, d.command("u3", "tournament", "team", "Beta"))  # no partner: an AI joins at the start
    notes = await send(rig, d.command("u9", "tournament", "start"))
    assert notes == ["Admins only."] or any("admin" in n.lower() for n in notes)
    await send(rig, d.command("u1", "tournament", "ai", "6", **ADMIN))
    await send(rig, d.command("u1", "tournament", "start", **ADMIN))
    tour = await tour_now(rig)
    assert tour.status == "running" and len(tour.entrants) == 8
    first = [(tour.entrant(p.a).name, tour.entrant(p.b).name) for p in tour.pairings if p.round == 1]
    assert first[0][0] == "Alpha" and first[2][0] == "Beta"  # seeds 1 and 2 (entry order: nobody rated yet)
    assert any(f.endswith("tournament.png") for _, f, *_ in rig.platform.files)

    late_seen = False
    for _ in range(60):
        tour = await tour_now(rig)
        if tour.status != "running":
            break
        table = rig.host.by_chat.get(("fake", "g1"))
        assert table is not None, "a running tournament always has its next table open"
        if table.status == "lobby":
            reserved = dict(table.meta.reserved)
            assert reserved, "only tables with people wait in the lobby"
            # a stranger cannot take a tournament seat, nor can an AI be added
            before = list(table.seats)
            await send(rig, d.command("u9", "join"))
            await send(rig, d.command("u1", "addbot"))
            assert list(table.seats) == before
            for uid in reserved.values():
                if uid == "u3" and not late_seen:
                    continue  # Beta's player is late for its first match
                await send(rig, d.command(uid, "join"))
            if table.status == "lobby":
                late_seen = True
                rig.clock.advance(15 * 60 + 1)
                await rig.host.settle()
                continue
        people = {str(s.user_id): "text" for s in table.seats if s.human}
        await play_out(rig, table, people)
        await rig.host.settle()
    tour = await tour_now(rig)
    assert tour.status == "finished", [p.key for p in tour.pairings if not p.done]
    beta = tour.find("Beta")
    assert beta is not None
    beta_first = next(p for p in tour.pairings if p.round == 1 and beta.no in (p.a, p.b))
    assert beta_first.forfeit == beta.no and beta_first.forfeit != BOTH  # 15 minutes late: forfeit
    final = tour.pairings[-1]
    assert final.best_of == 3 and 2 <= len(final.games) <= 3 and max(final.game_wins()) == 2
    champion = tour.champion()
    assert champion is not None and champion.no == final.winner
    assert any("Champion" in text for text in rig.platform.group_texts()), rig.platform.group_texts()[-6:]
    # every game (and the forfeit) is in the chat's league, the forfeit scored as one
    records = await LeagueStore.of(rig.store).matches("fake", "g1", None)
    games = sum(len(p.games) for p in tour.pairings)
    assert len(records) == games + 1
    assert sum(1 for r in records if r["ending"] == "forfeit") == 1
    await send(rig, d.command("u1", "tournament"))
    assert "🥇 Champion" in rig.platform.group_texts()[-2]  # the text, then its picture


async def test_round_robin_with_a_time_limit_ranks_by_big_and_small_points(rig: Rig) -> None:
    d = rig.d
    await send(rig, d.command("u1", "tournament", "new", "roundrobin", "classic", "target=3", **ADMIN))
    await send(rig, d.command("u1", "tournament", "ai", "3", **ADMIN))
    await send(rig, d.command("u1", "tournament", "start", **ADMIN))
    for _ in range(20):
        await rig.host.settle()
        tour = await tour_now(rig)
        if tour.status != "running":
            break
        table = rig.host.by_chat.get(("fake", "g1"))
        assert table is not None
        await play_out(rig, table, {})
    tour = await tour_now(rig)
    assert tour.status == "finished"
    rows = tour.table()
    assert sum(r.played for r in rows) == 6 and sum(r.won for r in rows) == 3
    assert sum(r.big for r in rows) == 3 * 3 + 3 * 1  # three matches: 3 to each winner, 1 to each loser
    assert [(r.big, r.small) for r in rows] == sorted(((r.big, r.small) for r in rows), reverse=True)
    await send(rig, d.command("u1", "tournament"))
    assert "大分" in rig.platform.group_texts()[-2]


async def test_tournament_commands_refuse_with_reasons(rig: Rig) -> None:
    d = rig.d
    await send(rig, d.command("u1", "tournament"))
    assert "No tournament in this chat yet" in rig.platform.group_texts()[-1]
    notes = await send(rig, d.command("u1", "tournament", "new", "ladder", **ADMIN))
    assert any("knockout, roundrobin or swiss" in n for n in notes)
    await send(rig, d.command("u1", "tournament", "new", "swiss", **ADMIN))
    notes = await send(rig, d.command("u1", "tournament", "new", "swiss", **ADMIN))
    assert any("already runs tournament #1" in n for n in notes)
    await send(rig, d.command("u1", "tournament", "team", "Alpha"))
    notes = await send(rig, d.command("u2", "tournament", "team", "alpha"))
    assert any("already a team called" in n for n in notes)
    notes = await send(rig, d.command("u1", "tournament", "start", **ADMIN))
    assert any("at least 3 teams" in n for n in notes)
    await send(rig, d.command("u1", "tournament", "lang"))
    assert "Tournament commands" in rig.platform.group_texts()[-1]
