"""Where the host hands board tables over: when one ends, and when the host starts again."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from bot.duplicate import daily, events
from bot.duplicate.tables import board_points, boards
from bot.platform import Where

if TYPE_CHECKING:
    from bot.host import Host
    from bot.table import Table

log = logging.getLogger(__name__)


def is_board(table: Table) -> bool:
    return isinstance(table.meta.get("board"), dict)


async def board_ended(host: Host, table: Table, result: dict[str, Any]) -> None:
    """A board table finished or was abandoned: store its result, then tell its event or the daily boards.

    Board tables do not go to the league one by one: a team match goes in whole when it ends.
    """
    got = board_points(table) if result.get("reason") == "board" else None
    store = boards(host)
    if got is None:
        row = await store.finish_play(table.id, "abandoned")
    else:
        row = await store.finish_play(table.id, "done", got[0], got[1])
    if row is None:
        return
    info = table.meta.get("board") or {}
    try:
        if row.event_id is not None:
            await events.on_board_done(host, row)
        elif info.get("set") == "daily" and row.status == "done":
            await daily.on_board_done(host, table, row)
    except Exception:
        log.exception("after board table %s", table.id)


async def playing_events(host: Host) -> list[int]:
    """The duplicate events still being played (none on a store without SQL, such as the in-memory one)."""
    try:
        return [ev.id for ev in await boards(host).all_open_events() if ev.status == "playing"]
    except TypeError:
        return []


async def resume(host: Host, event_ids: list[int]) -> None:
    """After a restart, once the resumed tables are back: each event deals its next board where a room
    or table is free (a board that ended just before the stop has no successor yet)."""
    for event_id in event_ids:
        try:
            await events.advance(host, event_id)
        except Exception:
            log.exception("resuming duplicate event %s", event_id)


async def playing_event_chats(host: Host) -> dict[int, list[Where]]:
    """The duplicate events still being played, with the chats their tables are dealt in."""
    try:
        return {ev.id: events.chats_of(ev) for ev in await boards(host).all_open_events() if ev.status == "playing"}
    except TypeError:
        return {}
