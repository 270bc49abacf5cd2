"""Seats and lobby: a table's lobby commands (join, leave, addbot, kick, start) and its votes (pause, resume, abandon).

Functions of the table they act on; they run inside that table's actor.
"""

from __future__ import annotations

import random
from dataclasses import replace

from bot.i18n import N_, tr
from bot.platform import Incoming, PlatformError, Unreachable, View
from bot.settings import AI_LEVELS, DEFAULT_AI_LEVEL
from bot.table.commit import Ended
from bot.table.ops import TableOps
from bot.table.seats import EMPTY, Seat
from engine import Match, Rules


async def join(table: TableOps, ev: Incoming, args: tuple[str, ...]) -> None:
    """Seats a person: the seat asked for, else a random free one."""
    lang = table.lang_for(ev)
    if table.status != "lobby":
        await table.answer(ev, tr(lang, "join.not_lobby"))
        return
    s = table.seat_of(ev.user.user_id)
    if s is not None:
        if ev.where.private and table.meta.start_wanted:
            await start(table, ev)  # they opened the bot as the refused start asked: start now
            return
        await table.answer(ev, tr(lang, "join.already", seat=s + 1))
        return
    free = table.seats.free()
    if not free:
        await table.answer(ev, tr(lang, "join.full"))
        return
    reserved = table.meta.reserved
    if reserved:  # a tournament match: each player has the seat of their team
        mine = [k for k, uid in reserved.items() if uid == ev.user.user_id and k in free]
        if not mine:
            await table.answer(ev, tr(lang, "league.tour_not_your_seat"))
            return
        seat_no = mine[0]
    elif args and args[0].isdigit():
        want = int(args[0]) - 1
        if want not in free:
            await table.answer(ev, tr(lang, "join.seat_taken", seat=args[0][:3]))
            return
        seat_no = want
    else:
        seat_no = random.Random(f"{table.seed}:{ev.user.user_id}").choice(free)
    table.seats[seat_no] = Seat.person(ev.user.user_id, ev.user.name[:32], table.host.user_lang(ev.user))
    await table.host.store.upsert_player(table.platform_name, ev.user.user_id, ev.user.name, ev.user.language)
    await table.save_seats()
    if not ev.where.private and table.platform.join_link(f"join-{table.id}") is not None:
        # joined in the group: can the bot write to them privately, where their cards will go?
        try:
            await table.platform.send(table.private_where(seat_no),
                                      View(tr(table.seat_lang(seat_no), "join.seated_private",
                                              seat=seat_no + 1)))
        except Unreachable as exc:
            await table.answer(ev, tr(lang, "join.ok_open_bot", name=ev.user.name[:32], seat=seat_no + 1,
                                      how=exc.how_to_fix))
            return
        except PlatformError:
            pass
    await table.answer(ev, tr(lang, "join.ok", name=ev.user.name[:32], seat=seat_no + 1))
    if reserved and not table.seats.free():
        await start(table, ev)  # a tournament match deals as soon as both teams are seated

async def leave(table: TableOps, ev: Incoming) -> None:
    """Frees a seat before the start (afterwards only `abandon` ends a match)."""
    lang = table.lang_for(ev)
    s = table.seat_of(ev.user.user_id)
    if s is None:
        await table.answer(ev, tr(lang, "err.not_seated"))
    elif table.status != "lobby":
        await table.answer(ev, tr(lang, "leave.started"))
    else:
        table.seats[s] = EMPTY
        await table.save_seats()
        await table.answer(ev, tr(lang, "leave.ok", name=ev.user.name[:32]))

async def addbot(table: TableOps, ev: Incoming, args: tuple[str, ...]) -> None:
    """An AI of the given level takes the first free seat."""
    lang = table.lang_for(ev)
    if table.status != "lobby":
        await table.answer(ev, tr(lang, "join.not_lobby"))
        return
    if table.meta.reserved:  # a tournament seat is its player's, or a forfeit if nobody comes
        await table.answer(ev, tr(lang, "league.tour_no_addbot"))
        return
    level = args[0].lower() if args else DEFAULT_AI_LEVEL
    if level not in AI_LEVELS:
        await table.answer(ev, tr(lang, "addbot.bad_level", level=level[:20], levels=", ".join(AI_LEVELS)))
        return
    free = table.seats.free()
    if not free:
        await table.answer(ev, tr(lang, "join.full"))
        return
    s = free[0]
    name = f"AI-{s + 1}"
    table.seats[s] = Seat.ai(name, level)
    await table.save_seats()
    await table.answer(ev, tr(lang, "addbot.ok", name=name, level=level, seat=s + 1))

async def kick(table: TableOps, ev: Incoming, args: tuple[str, ...]) -> None:
    """The creator or a chat admin frees a seat; in a running match an AI keeps it."""
    lang, answer_lang = table.lang, table.lang_for(ev)
    allowed = ev.user.user_id == table.meta.creator or ev.extra.get("admin") == "1"
    if not allowed:
        await table.answer(ev, tr(answer_lang, "kick.not_allowed"))
        return
    if not args or not args[0].isdigit() or not 1 <= int(args[0]) <= 4:
        await table.answer(ev, tr(answer_lang, "kick.usage"))
        return
    s = int(args[0]) - 1
    seat = table.seats[s]
    if seat.empty:
        await table.answer(ev, tr(answer_lang, "kick.usage"))
        return
    if table.status == "lobby":
        table.seats[s] = EMPTY
    else:  # in a running match an AI keeps the seat
        table.seats[s] = replace(seat, away=True, kicked=True)
    await table.save_seats()
    await table.say(tr(lang, "kick.ok", name=seat.name or "?", seat=s + 1), ev)

async def start(table: TableOps, ev: Incoming) -> None:
    """Deals the first hand once four are seated and every person can be reached privately."""
    lang = table.lang
    if table.status != "lobby":
        await table.answer(ev, tr(table.lang_for(ev), "join.not_lobby"))
        return
    n = sum(1 for seat in table.seats if not seat.empty)
    if n < 4:
        await table.answer(ev, tr(table.lang_for(ev), "start.need_four", n=n))
        return
    refusal = await table.host.board_start(table)  # a board: nobody may be dealt it twice
    if refusal is not None:
        await table.say(refusal, ev)
        return
    # where the table and the hand are one screen (a terminal), the hand is not "sent privately"
    begins = tr(lang, N_("start.ok_here") if table.platform.one_screen else N_("start.ok"))
    closing = None if table.platform.one_screen else table.screen.lobby_started(begins)
    table.match = Match.new(Rules.from_dict(table.rules), seed=table.seed)
    unreachable: list[tuple[str, str]] = []
    for s in table.seats.humans():
        try:
            await table.screen.send_hand(s, force_new=True)
        except Unreachable as exc:
            unreachable.append((table.seats[s].name, exc.how_to_fix))
    if unreachable:
        table.match = None
        await table.screen.take_back_hands()  # no "0 cards" hands left behind in the others' chats
        table.meta.start_wanted = True  # it starts by itself once they opened the bot
        await table.save_meta()
        text = tr(lang, "start.unreachable", names=", ".join(n for n, _ in unreachable), how=unreachable[0][1])
        if ev.kind == "press":
            await table.answer(ev, text)  # the button's answer says it too, not "✓"
        await table.say(text)
        return
    table.meta.start_wanted = False
    table.status = "active"
    await table.host.store.update_match(table.id, status="active", seats=table.seats.to_json())
    await table.timers.set("lobby", None)
    minutes = table.rules.get("time_limit_minutes")
    if isinstance(minutes, int) and minutes > 0:
        await table.timers.set("time_limit", table.host.clock.now() + minutes * 60.0)
    if closing is not None:
        await table.screen.close_lobby(closing)  # the lobby says the match began: one message, not two
    else:
        await table.say(begins)


async def vote(table: TableOps, ev: Incoming, what: str) -> None:
    """pause / resume / abandon: done once a majority of the seated people asked for it."""
    lang, answer_lang = table.lang, table.lang_for(ev)
    s = table.seat_of(ev.user.user_id)
    if s is None:
        await table.answer(ev, tr(answer_lang, "err.not_seated"))
        return
    if what == "abandon" and table.status == "lobby":
        await table.close("abandoned", {"reason": "abandoned"})
        await table.say(tr(lang, "abandon.done"), ev)
        return
    if table.match is None:
        await table.answer(ev, tr(answer_lang, "err.not_playing"))
        return
    if what == "resume" and table.status != "paused":
        await table.answer(ev, tr(answer_lang, "resume.not_paused"))
        return
    if what == "pause" and table.status == "paused":
        await table.answer(ev, tr(answer_lang, "err.paused"))
        return
    votes = table.meta.votes.setdefault(what, [])
    if s not in votes:
        votes.append(s)
    humans = [h for h in table.seats.humans() if not table.seats[h].kicked]
    need = len(humans) // 2 + 1
    n = len([v for v in votes if v in humans])
    if n < need:
        await table.save_meta()
        await table.say(tr(lang, f"{what}.vote", name=table.seats[s].name, n=n, need=need), ev)
        return
    table.meta.votes = {}
    if what == "pause":
        table.status = "paused"
        if "time_limit" in table.timers:  # the match clock stops while paused
            table.meta.time_limit_left = max(0.0, table.timers.deadlines["time_limit"] - table.host.clock.now())
        for kind in list(table.timers.deadlines):
            await table.timers.set(kind, None)
        await table.host.store.update_match(table.id, status="paused", meta=table.meta.to_json())
        await table.say(tr(lang, "pause.done"), ev)
    elif what == "resume":
        table.status = "active"
        left, table.meta.time_limit_left = table.meta.time_limit_left, None
        if left is not None:
            await table.timers.set("time_limit", table.host.clock.now() + float(left))
        await table.host.store.update_match(table.id, status="active", meta=table.meta.to_json())
        await table.say(tr(lang, "resume.done"), ev)
    else:
        table.meta.abandoned_by_vote = True  # the table's last scene says so (a web page open on it)
        await table.save_meta()
        await table.close("abandoned", {"reason": "abandoned", "version": table.game.version})
        await table.say(tr(lang, "abandon.done"), ev)
        await table.events.publish(Ended(table.id, table.status, {"reason": "abandoned"}))
