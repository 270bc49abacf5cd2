"""Duplicate events (002): a team match of two teams of four, and a pairs event over many tables.

An event's setup lives in ``dup_event.state``; its results are the rows of
``board_play`` (one per table that played one of its boards), so the running
score is always recomputed from what was stored, after a restart too.

Team match: the home team sits N-S at the open table and E-W at the closed
one. Each room plays the boards in order, a table per board with the same
seats; the rooms may be two chats, or one chat whose two tables play one after
the other (only when at most one room has people in it, who then play each
board first: nobody watches a board they have still to play).
Pairs: every table of the event plays every board with its own two pairs; a
pair's result on a board is compared with every other pair's in its direction.

It runs past 400 lines because both kinds of event share one setup, one store of results and one
way of seating a board's table; splitting them would pass those between two modules.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from bot.duplicate.daily import field_text
from bot.duplicate.scoring import BoardSwing, board_swing, percentages
from bot.duplicate.tables import Desk, open_table, seat_scores
from bot.i18n import N_, tr
from bot.league.commands import record_match
from bot.league.records import HandSummary, MatchRecord, SeatPlayer
from bot.platform import User, Where
from persistence.board_store import BoardRow, EventRow, PlayRow

ROOMS = ("open", "closed")
TEAMS = ("home", "visitors")
# seats of each team per room: seats 0 and 2 are N-S (team 0), 1 and 3 are E-W
TEAM_SEATS = {("open", "home"): (0, 2), ("open", "visitors"): (1, 3),
              ("closed", "visitors"): (0, 2), ("closed", "home"): (1, 3)}


def lock(desk: Desk, event_id: int) -> asyncio.Lock:
    return desk.ctx.chats.lock("dup-event", str(event_id))


def room_where(ev: EventRow, room: str) -> Where:
    """Where a room of a team event plays (the open room's chat while the closed one has none)."""
    r = ev.state["rooms"].get(room) or ev.state["rooms"]["open"]
    return Where(str(r["platform"]), str(r["chat_id"]))


def room_seats(ev: EventRow, room: str) -> list[dict[str, object]]:
    seats: list[dict[str, object]] = [{"kind": "empty"} for _ in range(4)]
    for team in TEAMS:
        for i, s in enumerate(TEAM_SEATS[(room, team)]):
            players = ev.state["teams"][team][room]
            if i < len(players):
                seats[s] = dict(players[i])
    return seats


def has_people(ev: EventRow, room: str) -> bool:
    return any(p.get("kind") == "human" for team in TEAMS for p in ev.state["teams"][team][room])


def one_chat(ev: EventRow) -> bool:
    return room_where(ev, "open") == room_where(ev, "closed")


@dataclass(frozen=True)
class TeamScore:
    swings: list[tuple[int, BoardSwing | None]]  # (board number, swing when both rooms are done)
    home: int
    visitors: int
    done: bool


def team_score(board_rows: list[BoardRow], plays: list[PlayRow]) -> TeamScore:
    by_board: dict[int, dict[str, PlayRow]] = {}
    for p in plays:
        if p.status == "done":
            by_board.setdefault(p.board_id, {})[p.room] = p
    swings: list[tuple[int, BoardSwing | None]] = []
    home = visitors = 0
    complete = 0
    for b in board_rows:
        rooms = by_board.get(b.id, {})
        o, c = rooms.get("open"), rooms.get("closed")
        if o is None or c is None or o.defender_points is None or c.defender_points is None:
            swings.append((b.number, None))
            continue
        s = board_swing(int(b.spec.split("/")[0]) % 2, o.defender_points, c.defender_points)
        swings.append((b.number, s))
        home += s.home
        visitors += s.visitors
        complete += 1
    return TeamScore(swings, home, visitors, complete == len(board_rows))


async def say(desk: Desk, where: Where, text: str) -> None:
    await desk.ctx.say(where, text)


def _lang(desk: Desk, where: Where) -> str:
    return desk.ctx.chats.lang(where.platform, where.chat_id)


async def event_boards(desk: Desk, ev: EventRow) -> list[BoardRow]:
    return await desk.boards.set_boards("event", str(ev.id))


async def start(desk: Desk, ev: EventRow) -> None:
    """The event begins: each room (team) or table (pairs) is dealt its first board."""
    await desk.boards.save_event(ev.id, "playing", ev.state)
    await advance(desk, ev.id)


async def advance(desk: Desk, event_id: int) -> None:
    """Open the next board wherever a room or table of the event is free; end the event when all are done."""
    async with lock(desk, event_id):
        ev = await desk.boards.event(event_id)
        if ev is None or ev.status != "playing":
            return
        rows = await event_boards(desk, ev)
        plays = await desk.boards.plays([b.id for b in rows])
        if ev.kind == "team":
            await _advance_team(desk, ev, rows, plays)
        else:
            await _advance_pairs(desk, ev, rows, plays)


def _played(plays: list[PlayRow], room: str) -> int:
    return sum(1 for p in plays if p.room == room and p.status == "done")


async def _advance_team(desk: Desk, ev: EventRow, rows: list[BoardRow], plays: list[PlayRow]) -> None:
    if any(p.status == "playing" for p in plays) and one_chat(ev):
        return
    order = list(ROOMS)
    if one_chat(ev) and has_people(ev, "closed"):
        order.reverse()  # the room with people plays each board first
    if one_chat(ev):
        counts = {r: _played(plays, r) for r in ROOMS}
        room = min(order, key=lambda r: (counts[r], order.index(r)))
        targets = [room]
    else:
        targets = order
    for room in targets:
        busy = any(p.status == "playing" and p.room == room for p in plays)
        nxt = _played(plays, room)
        if busy or nxt >= len(rows):
            continue
        await open_table(desk, room_where(ev, room), rows[nxt], room_seats(ev, room),
                         starter=_starter(ev, room_where(ev, room)), event_id=ev.id, room=room, autostart=True)
    if all(_played(plays, r) >= len(rows) for r in ROOMS):
        await _finish_team(desk, ev, rows, plays)


def _starter(ev: EventRow, where: Where) -> User:
    return User(where.platform, str(ev.state.get("creator", "")), str(ev.state.get("creator_name", "")))


async def on_board_done(desk: Desk, play: PlayRow) -> None:
    """A table of an event ended: the score so far to its chats (each board once), then the next board."""
    async with lock(desk, int(play.event_id or 0)):
        ev = await desk.boards.event(int(play.event_id or 0))
        if ev is None or ev.status != "playing":
            return
        if play.status != "done":
            await desk.boards.save_event(ev.id, "abandoned", ev.state)
            for where in _chats(ev):
                await say(desk, where, tr(_lang(desk, where), "dup.abandoned", id=ev.id))
            return
        rows = await event_boards(desk, ev)
        plays = await desk.boards.plays([b.id for b in rows])
        if ev.kind == "team":
            await _announce_swings(desk, ev, rows, plays)
            await _tell_waiting(desk, ev, rows, plays, play)
        else:
            where = Where(play.platform, play.chat_id)
            lang = _lang(desk, where)
            await say(desk, where, pairs_board_text(lang, rows, plays, play))
    await advance(desk, ev.id)


async def _announce_swings(desk: Desk, ev: EventRow, rows: list[BoardRow], plays: list[PlayRow]) -> None:
    """Every board newly played in both rooms: its swing and the running score, in both rooms' chats."""
    score = team_score(rows, plays)
    told = set(ev.state.get("announced", []))
    for number, swing in score.swings:
        if swing is None or number in told:
            continue
        told.add(number)
        for where in _chats(ev):
            await say(desk, where, swing_text(_lang(desk, where), ev, number, swing,
                                              score))
    if told != set(ev.state.get("announced", [])):
        ev.state["announced"] = sorted(told)
        await desk.boards.save_event(ev.id, ev.status, ev.state)


async def _tell_waiting(desk: Desk, ev: EventRow, rows: list[BoardRow], plays: list[PlayRow], play: PlayRow) -> None:
    """A room played a board the other room has not: its chat alone hears that the swing waits, and
    the running score of the boards both rooms have played (nothing of the other room's board)."""
    other = "closed" if play.room == "open" else "open"
    if any(p.board_id == play.board_id and p.room == other and p.status == "done" for p in plays):
        return  # both rooms have played it: its swing was just told
    board = next((b for b in rows if b.id == play.board_id), None)
    score = team_score(rows, plays)
    where = Where(play.platform, play.chat_id)
    lang = _lang(desk, where)
    names = team_names(lang, ev)
    await say(desk, where, tr(lang, "dup.board_waiting", id=ev.id, n=board.number if board else "?",
                              home=names["home"], visitors=names["visitors"], h=score.home, v=score.visitors))


def chats_of(ev: EventRow) -> list[Where]:
    """The chats an event's tables are dealt in."""
    return _chats(ev)


def _chats(ev: EventRow) -> list[Where]:
    if ev.kind == "team":
        out: list[Where] = []
        for room in ROOMS:
            w = room_where(ev, room)
            if w not in out:
                out.append(w)
        return out
    return [Where(str(t["platform"]), str(t["chat_id"])) for t in ev.state.get("tables", [])]


def team_names(lang: str, ev: EventRow) -> dict[str, str]:
    return {t: str(ev.state["teams"][t].get("name") or tr(lang, f"dup.team_{t}")) for t in TEAMS}


def swing_text(lang: str, ev: EventRow, number: int, swing: BoardSwing, score: TeamScore) -> str:
    names = team_names(lang, ev)
    if swing.home:
        gain = tr(lang, "dup.swing_to", team=names["home"], mp=swing.home, net=abs(swing.net))
    elif swing.visitors:
        gain = tr(lang, "dup.swing_to", team=names["visitors"], mp=swing.visitors, net=abs(swing.net))
    else:
        gain = tr(lang, "dup.swing_none", net=abs(swing.net))
    return tr(lang, "dup.board_scored", id=ev.id, n=number, swing=gain, home=names["home"],
              visitors=names["visitors"], h=score.home, v=score.visitors)


def score_text(lang: str, ev: EventRow, rows: list[BoardRow], plays: list[PlayRow]) -> str:
    names = team_names(lang, ev)
    score = team_score(rows, plays)
    lines = [tr(lang, "dup.score_title", id=ev.id, home=names["home"], visitors=names["visitors"],
                h=score.home, v=score.visitors)]
    for n, s in score.swings:
        if s is None:
            lines.append(tr(lang, "dup.score_pending", n=n))
        else:
            lines.append(tr(lang, "dup.score_line", n=n, net=s.net, h=s.home, v=s.visitors))
    return "\n".join(lines)


async def _finish_team(desk: Desk, ev: EventRow, rows: list[BoardRow], plays: list[PlayRow]) -> None:
    score = team_score(rows, plays)
    await desk.boards.save_event(ev.id, "done", {**ev.state, "final": [score.home, score.visitors]})
    for where in _chats(ev):
        lang = _lang(desk, where)
        names = team_names(lang, ev)
        if score.home == score.visitors:
            text = tr(lang, "dup.final_tie", id=ev.id, h=score.home, v=score.visitors)
        else:
            winner = names["home"] if score.home > score.visitors else names["visitors"]
            text = tr(lang, "dup.final", id=ev.id, team=winner, h=score.home, v=score.visitors,
                      home=names["home"], visitors=names["visitors"])
        await say(desk, where, text + "\n" + score_text(lang, ev, rows, plays))
    await record_team_match(desk, ev, rows, plays, score)


async def record_team_match(desk: Desk, ev: EventRow, rows: list[BoardRow], plays: list[PlayRow],
                            score: TeamScore) -> None:
    """The match into each room's league: one record per room (its four seats), scored in match points.

    A duplicate match has no levels, so it is recorded as what it is (ending ``duplicate``, the
    match points in `dup_points`), a tie on match points as a tie (docs/leagues.md says how each
    ranking method counts it). The net points over all boards ride along in ``extra``.
    """
    net = sum(s.net for _, s in score.swings if s is not None)
    now = datetime.now(UTC)
    for room in ROOMS:
        mine = [p for p in plays if p.room == room and p.status == "done"]
        if not mine:
            continue
        last = max(mine, key=lambda p: p.match_id)
        home_team = TEAM_SEATS[(room, "home")][0] % 2
        mp = (score.home, score.visitors) if home_team == 0 else (score.visitors, score.home)
        winner = None if mp[0] == mp[1] else 0 if mp[0] > mp[1] else 1
        seats = tuple(SeatPlayer(i, str(s.get("user_id", "")), str(s.get("name", "")), s.get("kind") != "human")
                      for i, s in enumerate(last.seats))
        hands = tuple(HandSummary(int(p.declarer_team or 0), int(p.defender_points or 0),
                                  _declarers_held(p)) for p in mine)
        rec = MatchRecord(platform=last.platform, chat_id=last.chat_id, match_id=last.match_id, seats=seats,
                          preset=str(rows[0].rules.get("name", "classic")) if rows else "classic",
                          levels=("2", "2"), levels_gained=(0, 0), hands=hands,
                          started_at=now, ended_at=now, ending="duplicate", winner_team=winner,
                          match_format="single", forfeit_team=None, on_top_team=None,
                          extra={"event": ev.id, "room": room, "net": net if home_team == 0 else -net},
                          dup_points=mp)
        await record_match(desk.league, rec)


def _declarers_held(p: PlayRow) -> bool:
    return p.defender_points is not None and p.defender_points < 80


# ----- pairs -----

def pair_name(seats: Sequence[Mapping[str, object]], a: int, b: int) -> str:
    return " & ".join(str(seats[s].get("name", "?")) for s in (a, b))


def pair_key(play: PlayRow, a: int, b: int) -> str:
    """A pair by its players: a person by their id, an AI seat by its table's chat and seat (two
    tables' "AI-2 & AI-4" are two pairs; names are only what is shown)."""
    ids = sorted(f"u:{play.seats[s]['user_id']}" if play.seats[s].get("kind") == "human" and
                 play.seats[s].get("user_id") else f"ai:{play.platform}:{play.chat_id}:{s}" for s in (a, b))
    return "|".join(ids)


@dataclass(frozen=True)
class PairLine:
    name: str
    direction: str  # "NS" or "EW"
    boards: int
    percent: float


def pairs_ranking(rows: list[BoardRow], plays: list[PlayRow]) -> list[PairLine]:
    """Every pair's average matchpoint percentage over the boards it played, best first, per direction."""
    totals: dict[tuple[str, str], list[float]] = {}
    names: dict[tuple[str, str], str] = {}
    for b in rows:
        done = [(p, seat_scores(p)) for p in plays if p.board_id == b.id]
        scored = [(p, s) for p, s in done if s is not None]
        for d, (x, y) in (("NS", (0, 2)), ("EW", (1, 3))):
            values = [float(s[0] if d == "NS" else s[1]) for _, s in scored]
            for (p, _), pct in zip(scored, percentages(values), strict=True):
                key = (d, pair_key(p, x, y))
                totals.setdefault(key, []).append(pct)
                names[key] = pair_name(p.seats, x, y)
    lines = [PairLine(names[k], k[0], len(v), sum(v) / len(v)) for k, v in totals.items()]
    return sorted(lines, key=lambda ln: (ln.direction, -ln.percent, ln.name))


def pairs_text(lang: str, ev: EventRow, rows: list[BoardRow], plays: list[PlayRow]) -> str:
    lines = [tr(lang, "dup.pairs_title", id=ev.id, boards=len(rows))]
    for d in ("NS", "EW"):
        mine = [ln for ln in pairs_ranking(rows, plays) if ln.direction == d]
        if mine:
            lines.append(tr(lang, f"dup.dir_{d}"))
        lines += [tr(lang, "dup.pairs_line", pos=i, name=ln.name, pct=f"{ln.percent:.1f}", boards=ln.boards)
                  for i, ln in enumerate(mine, 1)]
    return "\n".join(lines)


def pairs_board_text(lang: str, rows: list[BoardRow], plays: list[PlayRow], play: PlayRow) -> str:
    board = next(b for b in rows if b.id == play.board_id)
    scored = [(p, seat_scores(p)) for p in plays if p.board_id == board.id]
    done = [(p, s) for p, s in scored if s is not None]
    mine = seat_scores(play)
    if mine is None:
        return ""
    ns, ew = percentages([float(s[0]) for _, s in done]), percentages([float(s[1]) for _, s in done])
    idx = [p.match_id for p, _ in done].index(play.match_id)
    return field_text(lang, N_("dup.pairs_board"), N_("dup.pairs_first"), board.number, (ns[idx], ew[idx]),
                      len(done) - 1)


async def _advance_pairs(desk: Desk, ev: EventRow, rows: list[BoardRow], plays: list[PlayRow]) -> None:
    tables = ev.state.get("tables", [])
    finished = True
    for t in tables:
        where = Where(str(t["platform"]), str(t["chat_id"]))
        mine = [p for p in plays if p.platform == where.platform and p.chat_id == where.chat_id]
        if any(p.status == "playing" for p in mine):
            finished = False
            continue
        nxt = sum(1 for p in mine if p.status == "done")
        if nxt >= len(rows):
            continue
        finished = False
        if not mine:
            continue  # its first board is dealt from its own lobby (people join, then start)
        last = max(mine, key=lambda p: p.match_id)
        seats = [dict(s) for s in last.seats]
        for s in seats:
            if s.get("kind") == "ai":
                s.setdefault("level", "basic")
        await open_table(desk, where, rows[nxt], _restore(seats), starter=_starter(ev, where), event_id=ev.id,
                         autostart=True)
    if finished and tables:
        await desk.boards.save_event(ev.id, "done", ev.state)
        for where in _chats(ev):
            await say(desk, where, pairs_text(_lang(desk, where), ev, rows, plays))


def _restore(seats: Sequence[Mapping[str, object]]) -> list[dict[str, object]]:
    """Seats as a table keeps them, from the plain copy a board's play row stored."""
    out: list[dict[str, object]] = []
    for s in seats:
        if s.get("kind") == "human":
            out.append({"kind": "human", "user_id": s["user_id"], "name": s.get("name", ""), "away": False,
                        "timeouts": 0})
        elif s.get("kind") == "ai":
            out.append({"kind": "ai", "name": s.get("name", "AI"), "level": s.get("level", "basic")})
        else:
            out.append({"kind": "empty"})
    return out
