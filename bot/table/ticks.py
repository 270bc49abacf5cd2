"""What happens when a table's deadline fires (`on_tick`): the lobby expires, the match clock runs
out, a system step is taken, or the basic AI moves for a person who ran out of time.

Kept apart from `bot.table.timers` (the deadlines themselves), so that timers import no move and
moves import no tick."""

from __future__ import annotations

from dataclasses import replace

from bot.ai import move_seed
from bot.i18n import tr
from bot.table.forfeit import no_show
from bot.table.moves import apply
from bot.table.ops import TableOps
from bot.table.timers import SYSTEM_TIMER
from engine import IllegalAction
from engine.actions import TimeUp


async def on_tick(table: TableOps, kind: str) -> None:
    """A deadline came due: the lobby expires, the match clock runs out, a system step is taken,
    or the basic AI moves for a person who ran out of time."""
    at = table.timers.deadlines.get(kind)
    if at is None or at > table.host.clock.now():
        return
    if kind == "lobby":
        await table.timers.set(kind, None)
        if table.status == "lobby" and table.meta.tournament is not None:
            await no_show(table)  # 000, 001f: a team still missing forfeits
        elif table.status == "lobby":
            await table.close("abandoned", {"reason": "lobby_expired"})
            await table.say(tr(table.lang, "lobby.expired"))
        return
    if not table.running():
        await table.timers.set(kind, None)
        return
    m = table.game
    if kind == "time_limit":
        try:
            await apply(table, TimeUp(), None, ended=kind)
        except IllegalAction:
            await table.timers.set(kind, None)
            return
        if table.meta.board is not None:  # a board's clock (002: 12 minutes): played out at once
            for s in table.seats.humans():
                table.seats[s] = replace(table.seats[s], away=True)
            await table.save_seats()
            await table.say(tr(table.lang, "board.time_up"))
        return
    if kind in ("deal", "declare", "next"):
        sys_action = m.system_action()
        if sys_action is None or SYSTEM_TIMER.get(sys_action.t) != kind:
            await table.timers.set(kind, None)
            return
        await apply(table, sys_action, None, ended=kind)
        return
    # a person ran out of time: the basic AI moves for them
    movers = [s for s in m.to_act() if not table.seats.ai_driven(s)]
    if not movers:
        await table.timers.set(kind, None)
    for s in movers:
        action = m.auto_action(s, rng_seed=move_seed(table.seed, m.version, s))
        if action is None:
            continue
        await apply(table, action, None, ended=kind)
        seat = table.seats[s] = replace(table.seats[s], timeouts=table.seats[s].timeouts + 1)
        name = seat.name or "?"
        if seat.timeouts >= table.settings.away_after > 0:
            table.seats[s] = replace(seat, away=True)
            await table.say(tr(table.lang, "timeout.away", name=name, n=seat.timeouts))
        else:
            await table.say(tr(table.lang, "timeout.moved", name=name))
        await table.save_seats()
        table.screen.forget(f"note{s}")
        table.meta.notes[s] = "timeout.you"
