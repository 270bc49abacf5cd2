"""`review` (复盘) as a feature: a person's review of their own decisions in a hand, sent privately.

`review` takes the last finished hand of the table in this chat (or of the newest table the person
sits at, in a private chat); `review ID HAND` any finished hand of a match they played. The review is
sent to the person's private chat (on a terminal, the one screen), since it names their own cards;
the group only hears that it went out. The judging and the words are `bot.review`'s; a board of a
duplicate event comes with the other room's play of it.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.commands import Arg, Call, Command, Number
from bot.feature import Context, Feature
from bot.i18n import N_, tr
from bot.platform import Where
from bot.review import MatchSource, seat_review
from persistence.board_store import BoardStore


class Review(Feature):
    """The `review` command."""

    name = "review"

    def __init__(self, ctx: Context, store: MatchSource, boards: BoardStore | None = None) -> None:
        """`boards`: where a duplicate event's boards are kept (None: a store without SQL)."""
        self.ctx = ctx
        self.store = store
        self.boards = boards

    def commands(self) -> Sequence[Command]:
        return (
            Command("review", N_("help.cmd.review"), (
                Arg("match", N_("help.arg.review.match"), Number(1, 10**12, integer=True)),
                Arg("hand", N_("help.arg.review.hand"), Number(1, 10_000, integer=True))), handler=self.command),
        )

    async def command(self, call: Call) -> None:
        event = call.event
        user, where = event.user, event.where
        lang = self.ctx.chats.user_lang(user) or call.lang
        match_id = call.args.int("match")
        if match_id is None:
            table = self.ctx.tables.in_chat(where.platform, where.chat_id)
            if table is None or table.seat_of(user.user_id) is None:
                seated = self.ctx.tables.seated(where.platform, user.user_id)
                table = max(seated, key=lambda t: t.id) if seated else table
            if table is None:
                await self.ctx.answer(event, tr(lang, "review.no_match"))
                return
            match_id = table.id
        stored = await self.store.get_match(match_id)
        if stored is None or stored.platform != where.platform:
            await self.ctx.answer(event, tr(lang, "review.no_hand", match=match_id))
            return
        got = await seat_review(stored, user.user_id, call.args.int("hand") or 0, lang, boards=self.boards,
                                store=self.store)
        if isinstance(got, str):
            await self.ctx.answer(event, tr(lang, got, match=match_id))
            return
        if where.private or self.ctx.one_screen(where):
            await self.ctx.post(event, got["text"])
            return
        # not `about` the table: on Discord a private view about a table would take the place of the hand
        if await self.ctx.say(Where(where.platform, user.user_id, private=True), got["text"]):
            await self.ctx.answer(event, tr(lang, "review.sent"))
        else:
            await self.ctx.answer(event, tr(lang, "review.unreachable"))
