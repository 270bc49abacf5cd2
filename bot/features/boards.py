"""Boards, duplicate events and daily boards as a feature: the `board`, `daily` and `duplicate`
commands (bot.duplicate.commands), and where the host hands board tables over: before one deals,
when one ends, and when the host starts again."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import OrderedDict
from collections.abc import Mapping, Sequence

from bot.commands import Arg, Call, Choice, Command, Text
from bot.duplicate import commands, daily, events, suggest
from bot.duplicate.tables import Desk, board_points, board_start
from bot.feature import Context, Feature, TableView
from bot.i18n import N_, tr
from bot.platform import User, Where
from bot.suggestions import Ask, Suggestion
from persistence.board_store import BoardStore, EventRow

log = logging.getLogger(__name__)

BOARD_SUBS = ("new", "play", "show")
DAILY_SUBS = ("play", "standings", "post")
DUPLICATE_SUBS = ("new", "pairs", "room", "table", "join", "ai", "name", "start", "score", "end", "help")
NOTED = 50_000  # (platform, chat, person) already written this process: every update asks, few write


def is_board(table: TableView) -> bool:
    return table.meta.board is not None


class Boards(Feature):
    """Boards (a deal fixed in advance), duplicate team matches and pairs, and the daily boards."""

    name = "boards"

    def __init__(self, ctx: Context, boards: BoardStore | None, league: object) -> None:
        """`boards` None: a store without SQL (the in-memory one), with nowhere to keep boards."""
        self.ctx = ctx
        self.desk = Desk(ctx, boards, league) if boards is not None else None
        self._playing: list[int] = []
        self._noted: OrderedDict[tuple[str, str, str], None] = OrderedDict()
        self._poster: asyncio.Task[None] | None = None
        self._wake = asyncio.Event()  # a chat opted in: look again now
        self.rounds = 0  # the poster's looks so far (`round_after` waits for the next)
        self._round = asyncio.Condition()

    def commands(self) -> Sequence[Command]:
        rest = Text(200, rest=True)
        return (
            Command("board", N_("help.cmd.board"), (
                Arg("action", N_("help.arg.board.action"), Choice(BOARD_SUBS, open=True)),
                Arg("more", N_("help.arg.board.more"), rest, suggest=self.suggest)), handler=self.command),
            Command("daily", N_("help.cmd.daily"), (
                Arg("action", N_("help.arg.daily.action"), Choice(DAILY_SUBS, open=True)),
                Arg("more", N_("help.arg.daily.more"), rest, suggest=self.suggest)), handler=self.command),
            Command("duplicate", N_("help.cmd.duplicate"), (
                Arg("action", N_("help.arg.duplicate.action"), Choice(DUPLICATE_SUBS, open=True)),
                Arg("more", N_("help.arg.duplicate.more"), rest, suggest=self.suggest)), handler=self.command),
        )

    async def suggest(self, ask: Ask) -> list[Suggestion]:
        """The words after an action, as one types them (`bot.duplicate.suggest`)."""
        return [] if self.desk is None else await suggest.more(self.desk, ask)

    async def command(self, call: Call) -> None:
        if self.desk is None:
            await self.ctx.answer(call.event, tr(call.lang, "board.no_store"))
            return
        await commands.command(self.desk, call.event, call.command.name, call.words, call.lang)
        if call.command.name == "daily" and call.words[:1] == ("post",):
            self.look_now()

    async def _post_loop(self) -> None:
        """The daily boards to the chats that opted in, each at its minute (`daily.post_due`)."""
        assert self.desk is not None
        clock = self.ctx.clock
        while True:
            self._wake.clear()
            try:
                due = await daily.post_due(self.desk)
            except Exception:
                log.exception("posting the daily boards")
                due = clock.now() + daily.POLL_S
            async with self._round:
                self.rounds += 1
                self._round.notify_all()
            sleep = asyncio.ensure_future(clock.sleep_until(due))
            wake = asyncio.ensure_future(self._wake.wait())
            try:
                await asyncio.wait({sleep, wake}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                sleep.cancel()
                wake.cancel()

    def look_now(self) -> None:
        """The poster looks at the opted-in chats now (a chat opted in, or a test moved the clock)."""
        self._wake.set()

    async def round_after(self, n: int) -> None:
        """Waits until the poster has looked more than `n` times (tests wait on this, not on time)."""
        async with self._round:
            await self._round.wait_for(lambda: self.rounds > n)

    async def stopping(self) -> None:
        if self._poster is not None:
            self._poster.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._poster
            self._poster = None

    async def heard(self, user: User, where: Where) -> None:
        """Remembers who is in which group, once per process: a board played there is seen by them."""
        key = (where.platform, where.chat_id, user.user_id)
        if self.desk is None or not user.user_id or key in self._noted:
            return
        await self.desk.boards.note_present(*key)
        self._noted[key] = None
        if len(self._noted) > NOTED:
            self._noted.popitem(last=False)

    async def before_deal(self, table: TableView) -> str | None:
        if self.desk is None or not is_board(table):
            return None
        return await board_start(self.desk, table)

    async def match_ended(self, table: TableView, result: Mapping[str, object]) -> bool:
        """A board table finished or was abandoned: store its result, then tell its event or the
        daily boards. Board tables do not go to the league one by one (a team match goes in whole)."""
        if not is_board(table):
            return False
        if self.desk is None:
            return True
        got = board_points(table) if result.get("reason") == "board" else None
        store = self.desk.boards
        if got is None:
            row = await store.finish_play(table.id, "abandoned")
        else:
            row = await store.finish_play(table.id, "done", got[0], got[1])
        if row is None:
            return True
        info = table.meta.board
        try:
            if row.event_id is not None:
                await events.on_board_done(self.desk, row)
            elif info is not None and info.set == "daily" and row.status == "done":
                await daily.on_board_done(self.desk, table, row)
        except Exception:
            log.exception("after board table %s", table.id)
        return True

    async def resuming(self, tables: Sequence[TableView]) -> None:
        """Asked before any table moves: the events still being played."""
        self._playing = [ev.id for ev in await self._open_events() if ev.status == "playing"]

    async def resumed(self) -> None:
        """Once the resumed tables are back: each event deals its next board where a room or table is
        free (a board that ended just before the stop has no successor yet); the daily poster starts."""
        if self.desk is None:
            return
        if self._poster is None:
            self._poster = asyncio.create_task(self._post_loop())
        for event_id in self._playing:
            try:
                await events.advance(self.desk, event_id)
            except Exception:
                log.exception("resuming duplicate event %s", event_id)
        self._playing = []

    async def _open_events(self) -> list[EventRow]:
        return [] if self.desk is None else await self.desk.boards.all_open_events()

    async def waiting_chats(self) -> set[tuple[str, str]]:
        served = self.ctx.platforms()
        return {(w.platform, w.chat_id) for ev in await self._open_events() if ev.status == "playing"
                for w in events.chats_of(ev) if w.platform in served}

    async def move_on(self, idle: set[tuple[str, str]]) -> list[str]:
        moved: list[str] = []
        if self.desk is None:
            return moved
        for ev in await self._open_events():
            where = events.chats_of(ev)
            if ev.status != "playing" or not where or not all((w.platform, w.chat_id) in idle for w in where):
                continue
            try:
                await events.advance(self.desk, ev.id)
            except Exception:
                log.exception("moving duplicate event %s on", ev.id)
                continue
            moved.append(f"event {ev.id}")
        return moved
