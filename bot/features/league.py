"""The league as a feature: its commands (standings, stats, history, replay, season, ranking,
export; answered by bot.league.commands) and the recording of every finished match."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence

from bot.commands import Arg, Call, Choice, Command, Number, Person, Place, Who
from bot.feature import Context, Feature, TableView
from bot.i18n import N_, tr
from bot.league.bridge import count, record
from bot.league.commands import ALL_WORDS, MAX_HISTORY, NEW_WORDS, league_command
from bot.league.standings import METHOD_ALIASES, METHODS
from bot.scene.types import LeagueLine

log = logging.getLogger(__name__)

NAMES = ("standings", "stats", "history", "season", "export", "ranking", "replay")


class League(Feature):
    """Every chat's league: seasons, standings, ratings, replays; a finished match is recorded."""

    name = "league"

    def __init__(self, ctx: Context, store: object | None) -> None:
        """`store`: the host's store, which the league's tables live beside (None: a store without
        SQL, the in-memory one, which keeps no league)."""
        self.ctx = ctx
        self.store = store

    def commands(self) -> Sequence[Command]:
        group = N_("league.group_only")
        method = Choice(METHODS, aliases=dict(METHOD_ALIASES), open=True)
        # Words a person may give in any order (typed: `standings 10 all pairs`): the first is checked
        # as one of these or let through (a count), the feature reads them all; a menu offers them.
        standing = Choice(("all", "pairs", *METHODS), open=True)
        every = Choice(("all",), aliases={w: "all" for w in ALL_WORDS if w != "all"})
        new = Choice(("new",), aliases={w: "new" for w in NEW_WORDS if w != "new"})

        def command(name: str, summary: str, *args: Arg, place: Place = "group", who: Who = "anyone") -> Command:
            return Command(name, summary, args, place=place, who=who, section="league", wrong_place=group,
                           handler=self.command)

        return (
            command("standings", N_("help.cmd.standings"), Arg("what", N_("help.arg.standings.what"), standing)),
            command("stats", N_("help.cmd.stats"), Arg("player", N_("help.arg.stats.player"), Person()),
                    place="anywhere"),
            command("history", N_("help.cmd.history"),
                    Arg("count", N_("help.arg.history.count"), Number(1, MAX_HISTORY, integer=True))),
            command("replay", N_("help.cmd.replay"),
                    Arg("match", N_("help.arg.replay.match"), Number(1, 10**12, integer=True), required=True),
                    Arg("hand", N_("help.arg.replay.hand"), Number(1, 10_000, integer=True))),
            command("season", N_("help.cmd.season"), Arg("what", N_("help.arg.season.what"), new),
                    Arg("method", N_("help.arg.ranking.method"), method)),
            command("ranking", N_("help.cmd.ranking"), Arg("method", N_("help.arg.ranking.method"), method)),
            # every match of the chat, names included, in one file: a server admin's tool
            command("export", N_("help.cmd.export"), Arg("what", N_("help.arg.export.what"), every), who="admin"),
        )

    async def command(self, call: Call) -> None:
        event, lang = call.event, call.lang
        if self.store is None:
            await self.ctx.answer(event, tr(lang, "league.no_store"))
            return
        reply = await league_command(self.store, event.where, event.user, call.command.name, call.words, lang,
                                     event.extra.get("admin") == "1")
        # Pictures and CSV go out after it where the platform can send files.
        name = call.command.name
        files = [(f"{name}.png", reply.image_png), (f"{name}.csv", reply.csv_bytes)]
        await self.ctx.post(event, reply.text, [(f, data) for f, data in files if data])

    async def match_counted(self, table: TableView, result: Mapping[str, object]) -> LeagueLine | None:
        """A match played to its end is recorded before its end is shown, which then carries the
        league's line (a board table is not the league's: its event counts it)."""
        if self.store is None or table.meta.board is not None:
            return None
        try:
            line = await count(self.store, table, result)
        except Exception:  # `match_ended` tries it again
            log.exception("league recording failed for match %s", table.id)
            return None
        return line

    async def match_ended(self, table: TableView, result: Mapping[str, object]) -> bool:
        """Hands a finished match to the league (a table of a tournament too: it counts in both).
        Recording is idempotent: a match counted as it ended (`match_counted`) is not stored twice."""
        if self.store is not None:
            try:
                await record(self.store, table, result)
            except Exception:
                log.exception("league recording failed for match %s", table.id)
        return False
