"""A Swiss of six teams and a round robin of five played to their ends through the host (issue 33,
item 6), with what the chat is shown checked against the results worked out by hand.

The round robin is steered so that its ranking must use every rule of 001c 六 at once: five teams
mean a bye each round; Alpha's and Beta's people never come, so each of their matches is a forfeit
15 minutes after it opens (not a minute before), except that an admin's ruling gives Alpha its match
against Beta and Beta its match against the first AI team. Both end on 3 大分 13 小分, and the
head-to-head puts Alpha above Beta.
"""

from __future__ import annotations

import re

from bot.league.tournament import Tournament
from tests.host.conftest import Rig
from tests.host.helpers import play_out, send
from tests.host.test_tournament_host import ADMIN, tour_now

WIN, LOSE_BIG = (3, 13), 1


def by_hand(tour: Tournament) -> dict[int, tuple[int, int, int]]:
    """(played, 大分, 小分) per entrant from the pairings alone: a win 3 + 13, a loss 1 + the levels the
    loser gained, a forfeit 0 + 0; a round-robin bye counts nothing."""
    out = {e.no: (0, 0, 0) for e in tour.entrants}
    for p in tour.pairings:
        if p.bye or p.winner is None:
            continue
        assert p.a is not None and p.b is not None
        for me in (p.a, p.b):
            n, big, small = out[me]
            if p.winner == me:
                big, small = big + WIN[0], small + WIN[1]
            elif p.forfeit is None:
                side = 0 if p.a == me else 1
                big, small = big + LOSE_BIG, small + max(0, p.games[-1].gained[side])
            out[me] = (n + 1, big, small)
    return out


def _shown(rig: Rig) -> list[tuple[str, int, int, int, int]]:
    """The standings the last `tournament` text shows: (team, played, won, 大分, 小分) in its order."""
    text = rig.platform.group_texts()[-2]  # the text, then its picture
    rows = re.findall(r"^\d+\. (.+?) — (\d+) · (\d+) · (\d+) · (\d+)$", text, re.M)
    return [(name, int(m), int(w), int(b), int(sm)) for name, m, w, b, sm in rows]


def _expected(tour: Tournament) -> list[tuple[str, int, int, int, int]]:
    hand = by_hand(tour)
    won = {e.no: sum(1 for p in tour.pairings if p.winner == e.no and not p.bye) for e in tour.entrants}
    return [(r.entrant.name, hand[r.entrant.no][0], won[r.entrant.no], *hand[r.entrant.no][1:])
            for r in tour.table()]


async def test_a_swiss_of_six_teams_to_its_end(rig: Rig) -> None:
    d = rig.d
    await send(rig, d.command("u1", "tournament", "new", "swiss", "classic", "target=3", **ADMIN))
    await send(rig, d.command("u1", "tournament", "ai", "6", **ADMIN))
    await send(rig, d.command("u1", "tournament", "start", **ADMIN))
    for _ in range(30):
        tour = await tour_now(rig)
        if tour.status != "running":
            break
        table = rig.host.by_chat.get(("fake", "g1"))
        assert table is not None, "a running tournament always has its next table open"
        await play_out(rig, table, {})
        await rig.host.settle()
    tour = await tour_now(rig)
    assert tour.status == "finished" and tour.rounds == 3  # ceil(log2 6)
    assert len(tour.pairings) == 9 and not any(p.bye for p in tour.pairings)
    met = [frozenset((p.a, p.b)) for p in tour.pairings]
    assert len(set(met)) == 9  # no rematch
    hand = by_hand(tour)
    assert all(n == 3 for n, _, _ in hand.values())
    rows = tour.table()
    assert {r.entrant.no: (r.played, r.big, r.small) for r in rows} == hand
    # each round after the first paired by score: nobody met a team further down than it had to
    keys = [(r.big, r.small) for r in rows]
    assert keys == sorted(keys, reverse=True)
    await send(rig, d.command("u1", "tournament"))
    assert _shown(rig) == _expected(tour)  # the order and every figure shown, as worked out by hand


async def test_a_round_robin_of_five_with_byes_late_forfeits_and_a_head_to_head_tie_break(rig: Rig) -> None:
    d = rig.d
    await send(rig, d.command("u1", "tournament", "new", "roundrobin", "classic", "target=3", **ADMIN))
    await send(rig, d.command("u1", "tournament", "team", "Alpha"))
    await send(rig, d.command("u2", "tournament", "team", "Beta"))
    await send(rig, d.command("u1", "tournament", "ai", "3", **ADMIN))
    await send(rig, d.command("u1", "tournament", "start", **ADMIN))
    tour = await tour_now(rig)
    alpha, beta = tour.find("Alpha"), tour.find("Beta")
    assert alpha is not None and beta is not None
    first_ai = next(e for e in tour.entrants if e.is_ai)
    assert tour.rounds == 5 and sum(p.bye for p in tour.pairings) == 5
    late = 0
    for _ in range(40):
        tour = await tour_now(rig)
        if tour.status != "running":
            break
        table = rig.host.by_chat.get(("fake", "g1"))
        assert table is not None
        p = next(p for p in tour.pairings if p.match_id == table.id)
        teams = {p.a, p.b}
        if teams == {alpha.no, beta.no}:
            await send(rig, d.command("u1", "tournament", "forfeit", "Beta", **ADMIN))
        elif teams == {beta.no, first_ai.no}:
            await send(rig, d.command("u1", "tournament", "forfeit", first_ai.name, **ADMIN))
        elif teams & {alpha.no, beta.no}:
            assert table.status == "lobby"
            rig.clock.advance(15 * 60 - 1)
            await rig.host.settle()
            assert table.status == "lobby", "not a second before the 15 minutes"
            rig.clock.advance(2)
            late += 1
        else:
            await play_out(rig, table, {})
        await rig.host.settle()
    tour = await tour_now(rig)
    assert tour.status == "finished" and late == 5  # Alpha's 3 and Beta's 2 other matches
    hand = by_hand(tour)
    assert all(n == 4 for n, _, _ in hand.values())  # five rounds, one bye each, counting nothing
    assert hand[alpha.no] == (4, 3, 13) == hand[beta.no]
    rows = tour.table()
    assert {r.entrant.no: (r.played, r.big, r.small) for r in rows} == hand
    order = [r.entrant.no for r in rows]
    assert order[-2:] == [alpha.no, beta.no]  # tied on 大分 and 小分: Alpha beat Beta
    assert any("forfeits" in t for t in rig.platform.group_texts())
    await send(rig, d.command("u1", "tournament"))
    assert _shown(rig) == _expected(tour)  # the order and every figure shown, as worked out by hand
