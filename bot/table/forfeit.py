"""Forfeits at a table: a team concedes (`forfeit`), or the host awards the match to the other side.

Documents 000 and 001 forfeit a team that is 15 minutes late; 004 scores a
forfeit 2.5 场分 and 12 standard points to the side that did not forfeit.
Either way the match ends at once as a forfeit: the league and a tournament
record it from the result dict the table closes with.
"""

from __future__ import annotations

from typing import Any

from bot.i18n import tr
from bot.platform import Incoming
from bot.table.commit import Ended
from bot.table.moves import seat_at_match
from bot.table.ops import TableOps


def forfeit_result(table: TableOps, forfeit_team: int, why: str = "conceded") -> dict[str, Any]:
    """The result a forfeited match closes with (levels as they stood, when a match was dealt)."""
    result: dict[str, Any] = {"winner_team": 1 - forfeit_team, "reason": "forfeit", "forfeit_team": forfeit_team,
                              "why": why}
    if table.match is not None:
        result["levels"] = list(table.match.public_view().get("levels") or [])
        result["version"] = table.match.version
    return result


async def award(table: TableOps, forfeit_team: int, why: str, answering: Incoming | None = None) -> None:
    """Ends the match now as a forfeit by `forfeit_team` (a lobby's no-show or a concession;
    `answering`: the command that conceded, which the announcement answers)."""
    lang = table.lang
    result = forfeit_result(table, forfeit_team, why)
    table.meta.forfeited = forfeit_team  # the table's last scene says so (a web page open on it)
    await table.save_meta()
    await table.close("finished", result)
    await table.say(tr(lang, "forfeit.done", team=tr(lang, f"team.{forfeit_team}"),
                       winner=tr(lang, f"team.{1 - forfeit_team}")), answering)
    await table.events.publish(Ended(table.id, table.status, result))


async def concede(table: TableOps, ev: Incoming) -> None:
    """`forfeit`: a seated person concedes for their team; with two people on the team both must say so."""
    lang = table.lang
    s = await seat_at_match(table, ev)
    if s is None:
        return
    team = s % 2
    humans = [h for h in table.seats.humans() if h % 2 == team and not table.seats[h].kicked]
    votes = table.meta.votes.setdefault(f"forfeit{team}", [])
    if s not in votes:
        votes.append(s)
    if any(h not in votes for h in humans):
        await table.save_meta()
        await table.say(tr(lang, "forfeit.vote", name=table.seats[s].name, team=tr(lang, f"team.{team}")), ev)
        return
    table.meta.votes = {}
    await award(table, team, "conceded", ev)


async def no_show(table: TableOps) -> None:
    """The lobby's clock ran out on a tournament match: a team with an empty seat forfeits (000, 001f);
    with both teams incomplete, both forfeit (the tournament advances nobody)."""
    lang = table.lang
    minutes = round(table.settings.lobby / 60)
    missing = sorted({s % 2 for s in range(4) if table.seats[s].empty})
    if not missing:
        return
    if len(missing) == 2:
        await table.close("abandoned", {"reason": "abandoned", "double_forfeit": True})
        await table.say(tr(lang, "forfeit.both_late", minutes=minutes))
        await table.events.publish(Ended(table.id, table.status, {"reason": "abandoned", "double_forfeit": True}))
        return
    await table.say(tr(lang, "forfeit.late", team=tr(lang, f"team.{missing[0]}"), minutes=minutes))
    await award(table, missing[0], "late")
