"""Board tables: making boards, opening a table on one, and the two moments the host tells us of.

A board table is an ordinary table whose rules carry the board (engine/boards.py)
and whose seed is the board's, so it resumes like any match. Its meta names the
board (``meta["board"]``). Before its cards go out (`board_start`, from the
lobby's start) everyone seated is checked against who has already been dealt
the board, and recorded; when it ends, `bot.features.boards` stores its result
and hands it to the event or the daily boards it belongs to.
"""

from __future__ import annotations

import dataclasses
import logging
from dataclasses import dataclass

from bot.duplicate.scoring import pair_score
from bot.feature import Context, NewTable, TableView
from bot.i18n import tr
from bot.platform import Incoming, User, Where
from bot.settings import settings_with, stored_timers
from bot.table.messages import Event
from bot.table.state import BoardRef
from engine import preset
from engine.boards import BoardSpec, board_rules, dealer_of, draw_trump, preset_level
from engine.cards import cards_str
from persistence.board_store import BoardRow, BoardStore, PlayRow

log = logging.getLogger(__name__)

SOURCES = ("marked", "bid", "drawn")  # 002 2.6 A, B, C


@dataclass(frozen=True)
class NewBoard:
    number: int
    seed: int
    spec: str
    source: str
    drawn: str
    rules: dict[str, object]

    def row(self) -> tuple[int, int, str, str, str, dict[str, object]]:
        return (self.number, self.seed, self.spec, self.source, self.drawn, self.rules)


#: The preset every board is played under unless its organiser chooses another: document 002's.
BOARD_PRESET = "duplicate"


def make_board(seed: int, number: int, source: str, base: str = BOARD_PRESET, minutes: int | None = None,
               suit_pick: int = 0) -> NewBoard:
    """One board: board `number` is dealt by N, W, S, E in turn (002 4.1); trump as `source` says.

    ``marked`` boards are played at 2.6 B's level for their number, with the suit the
    organiser marks (``suit_pick`` 0-3, chosen by the caller's random draw).
    """
    dealer = dealer_of(number)
    drawn = ""
    if source == "bid":
        spec = BoardSpec(dealer, preset_level(number), None)
    elif source == "drawn":
        d = draw_trump(seed)
        spec = BoardSpec(dealer, d.level, d.trump)
        drawn = " ".join(cards_str(d.cards))
    else:
        spec = BoardSpec(dealer, preset_level(number), suit_pick % 4)
    rules = board_rules(preset(base), spec)
    if minutes:
        rules = dataclasses.replace(rules, time_limit_minutes=minutes)
    return NewBoard(number, seed, spec.to_str(), source, drawn, rules.to_dict())


@dataclass(frozen=True)
class Desk:
    """What the boards feature works with: the host's narrow context, the boards' store, and the
    store a finished team match is recorded in (the league's)."""

    ctx: Context
    boards: BoardStore
    league: object


def make_set(desk: Desk, count: int, source: str, base: str = BOARD_PRESET, minutes: int | None = None,
             first: int = 1) -> list[NewBoard]:
    rng = desk.ctx.rng
    return [make_board(rng.randrange(1, 2**31), n, source, base, minutes, rng.randrange(4))
            for n in range(first, first + count)]


async def open_table(desk: Desk, where: Where, board: BoardRow, seats: list[dict[str, object]], *,
                     starter: User, event_id: int | None = None, room: str = "", autostart: bool = False,
                     ) -> TableView | None:
    """A table on `board` in this chat, in its lobby; with `autostart` the seats are set and it deals.

    None when the chat has a table open already.
    """
    ctx = desk.ctx
    if ctx.tables.in_chat(where.platform, where.chat_id) is not None:
        return None
    chat = await ctx.chats.load(where.platform, where.chat_id)
    remembered, _ = stored_timers(chat.get("timers"), ctx.chats.lang(where.platform, where.chat_id))
    settings = settings_with(ctx.defaults, remembered)
    meta: dict[str, object] = {
        "preset": board.rules.get("name", "classic"), "creator": starter.user_id,
        "creator_name": starter.name[:32], "options": "", "settings": settings.to_dict(), "format": "single",
        "board": {"id": board.id, "number": board.number, "set": board.set_kind, "key": board.set_key,
                  "event": event_id, "room": room},
    }
    table = await ctx.open_table(NewTable(where, board.rules, list(seats), board.seed, meta))
    if autostart:
        table.submit(Event(Incoming("command", starter, where, key="", name="start")))
    return table


def board_label(board: BoardRow | BoardRef, lang: str) -> str:
    if isinstance(board, BoardRef):
        set_kind, key, number, bid = board.set, board.key, board.number, board.id
    else:
        set_kind, key, number, bid = board.set_kind, board.set_key, board.number, board.id
    if set_kind == "daily":
        return tr(lang, "board.label_daily", day=key, n=number, id=bid)
    return tr(lang, "board.label", n=number, id=bid)


def seen_text(lang: str, board: str, who: list[tuple[str, str]]) -> str:
    """Why these people may not play `board`: (name, "" when dealt it, else a chat where it was played)."""
    dealt = [name for name, chat in who if not chat]
    watched = [name for name, chat in who if chat]
    lines = []
    if dealt:
        lines.append(tr(lang, "board.seen_already", names=", ".join(dealt), board=board))
    if watched:
        lines.append(tr(lang, "board.seen_in_chat", names=", ".join(watched), board=board))
    return "\n".join(lines)


def _humans(table: TableView) -> list[tuple[str, str]]:
    return [(table.platform_name, str(table.seats[s].user_id)) for s in table.seats.humans()]


async def board_start(desk: Desk, table: TableView) -> str | None:
    """Before a board's cards go out: refuse anyone already dealt it; record everyone seated as dealt it."""
    info = table.meta.board
    if info is None:
        return None
    store = desk.boards
    board_id = info.id
    if await store.play_of_match(table.id) is not None:
        return None  # this table's own earlier try (someone could not be reached): they saw nothing else
    people = _humans(table)
    seen = await store.seen_where([board_id], table.platform_name, [u for _, u in people])
    if seen:
        return seen_text(table.lang, board_label(info, table.lang), [
            (table.seats[s].name, seen[str(table.seats[s].user_id)]) for s in table.seats.humans()
            if str(table.seats[s].user_id) in seen])
    seats = [{"kind": str(seat.kind), "user_id": seat.user_id or "", "name": seat.name} for seat in table.seats]
    await store.start_play(board_id, table.id, table.platform_name, table.chat_id, seats,
                           event_id=info.event, room=info.room,
                           seen_by=people)
    return None


def board_points(table: TableView) -> tuple[int, int] | None:
    """(defenders' points, declaring team) of a board table whose hand was played out."""
    m = table.match
    if m is None or not m.history:
        return None
    h = m.history[0]
    return int(h["defender_points"]), int(h["declarer_team"])


def seat_scores(play: PlayRow) -> tuple[int, int] | None:
    """The N-S and E-W pair scores of one finished table (002 4.5: actual points, 光头 0)."""
    if play.status != "done" or play.defender_points is None or play.declarer_team is None:
        return None
    ns = pair_score(play.defender_points, defending=play.declarer_team == 1)
    return ns, -ns
