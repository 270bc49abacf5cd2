"""Tournaments run by the host: the `tournament …` command, a table per match, results as they come.

A chat runs one tournament at a time, and its matches are played one after
another as ordinary tables in that chat: the pairing's players are seated by
reservation (only they can `join`, each at their team's seats; AI members
are seated at once), the table deals as soon as all four are there, and a
team not seated when the lobby's clock (15 minutes, 000/001f) runs out
forfeits (`bot.table.forfeit.no_show`). When a table ends, `match_ended`
records the game (levels gained as the league counts them), moves the
bracket or table on and opens the next match; a restart opens it too.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime

from bot.commands import Arg, Call, Choice, Command, Refusal, Text
from bot.feature import Context, Feature, NewTable, TableView
from bot.i18n import N_
from bot.league import tournament_suggest
from bot.league.bridge import record_from_table
from bot.league.ratings import Rating, rate_all
from bot.league.records import MatchRecord
from bot.league.texts import t
from bot.league.tournament import FORMATS, Format, Game, Member, Pairing, Tournament, TournamentError
from bot.league.tournament_view import pairing_line, round_name, tournament_png, tournament_text
from bot.platform import Incoming, User, Where
from bot.settings import (
    DEFAULT_AI_LEVEL,
    OptionError,
    check_options,
    parse_new_args,
    rule_overrides,
    settings_with,
    stored_timers,
)
from bot.suggestions import Ask, Suggestion
from bot.table.messages import Event, Ruling
from bot.table.seats import SeatKind
from persistence.league_store import LeagueStore
from persistence.tournament_store import TournamentStore

log = logging.getLogger(__name__)

FORMAT_WORDS: dict[str, Format] = {
    "knockout": "knockout", "ko": "knockout", "淘汰": "knockout", "淘汰赛": "knockout", "淘汰賽": "knockout",
    "roundrobin": "roundrobin", "rr": "roundrobin", "循环": "roundrobin", "循环赛": "roundrobin",
    "循環賽": "roundrobin", "swiss": "swiss", "瑞士": "swiss", "瑞士制": "swiss",
}  # fmt: skip
AI_TEAMS_MAX = 16
SUBS = ("show", "help", "new", "team", "join", "leave", "ai", "start", "forfeit", "cancel")
ADMIN_SUBS = frozenset({"new", "start", "ai", "forfeit", "cancel"})


async def _load(store: TournamentStore, where: Where, *, live: bool = True) -> Tournament | None:
    row = await (store.live(where.platform, where.chat_id) if live else store.latest(where.platform, where.chat_id))
    return Tournament.from_dict(row.state) if row is not None else None


async def _save(store: TournamentStore, tour: Tournament) -> None:
    await store.save(tour.id, tour.status, tour.to_dict())


class Tournaments(Feature):
    """`tournament …` in a group chat, and each of its matches as a table in that chat."""

    name = "tournaments"

    def __init__(self, ctx: Context, store: TournamentStore | None, league: LeagueStore | None) -> None:
        """`store` None: a store without SQL (the in-memory one), which keeps no tournament."""
        self.ctx = ctx
        self.store = store
        self.league = league

    def commands(self) -> Sequence[Command]:
        return (Command("tournament", N_("help.cmd.tournament"), (
            Arg("action", N_("help.arg.tournament.action"), Choice(SUBS, open=True)),
            Arg("more", N_("help.arg.tournament.more"), Text(200, rest=True), suggest=self.suggest),
        ), place="group", section="league", wrong_place=N_("league.group_only"), handler=self.command),)

    async def suggest(self, ask: Ask) -> list[Suggestion]:
        """The words after an action, from the chat's tournament (`bot.league.tournament_suggest`)."""
        if self.store is None:
            return []
        return tournament_suggest.more(await _load(self.store, ask.where), ask, self.ctx.presets())

    async def _say(self, where: Where, text: str, png: bytes | None = None) -> None:
        await self.ctx.say(where, text, [("tournament.png", png)] if png is not None else ())

    async def _post(self, event: Incoming, text: str, png: bytes | None) -> None:
        """The answer to a command: its text where it was asked (bot.feature.Context.post), the picture after it."""
        await self.ctx.post(event, text, [("tournament.png", png)] if png is not None else ())

    async def command(self, call: Call) -> None:
        """`tournament [sub …]` in a group chat."""
        ctx, event, lang, args = self.ctx, call.event, call.lang, call.words
        store = self.store
        if store is None:
            await ctx.answer(event, t("tour_no_store", lang))
            return
        sub = args[0].lower() if args else "show"
        rest = args[1:]
        admin = event.extra.get("admin") == "1"
        try:
            if sub in ("show", "bracket", "table", "对阵", "對陣"):
                tour = await _load(store, event.where, live=False)
                if tour is None:
                    await ctx.post(event, t("tour_none", lang))
                else:
                    await self._post(event, tournament_text(tour, lang), tournament_png(tour, lang))
                return
            if sub == "help":
                await ctx.post(event, t("tour_help", lang, minutes=15))
                return
            if sub in ADMIN_SUBS and not admin:
                await ctx.answer(event, t("admins_only", lang))
                return
            if sub == "new":
                await self._new(store, event, rest, lang)
                return
            tour = await _load(store, event.where)
            if tour is None:
                await ctx.post(event, t("tour_none", lang))
                return
            me = Member(event.user.user_id, event.user.name[:32])
            if sub == "team":
                if not rest:
                    await ctx.answer(event, t("tour_usage_team", lang))
                    return
                e = tour.add_team(" ".join(rest), me)
                await _save(store, tour)
                await ctx.post(event, t("tour_team_created", lang, name=me.name, team=e.name))
            elif sub == "join":
                e = tour.join_team(" ".join(rest), me)
                await _save(store, tour)
                await ctx.post(event, t("tour_joined", lang, name=me.name, team=e.name))
            elif sub == "leave":
                e = tour.leave(event.user.user_id)
                await _save(store, tour)
                await ctx.post(event, t("tour_left", lang, name=me.name, team=e.name))
            elif sub == "ai":
                n = int(rest[0]) if rest and rest[0].isdigit() else 1
                added = tour.add_ai_teams(max(1, min(AI_TEAMS_MAX, n)), [t("tour_ai_team", lang)])
                await _save(store, tour)
                await ctx.post(event, t("tour_ai_added", lang, n=len(added)))
            elif sub == "start":
                tour.start(await self._strength(tour))
                await _save(store, tour)
                await self._post(event, t("tour_started", lang) + "\n" + tournament_text(tour, lang),
                                tournament_png(tour, lang))
                await self.open_next(tour)
            elif sub == "forfeit":
                await self._admin_forfeit(store, tour, event, rest, lang)
            elif sub == "cancel":
                tour.status = "cancelled"
                await _save(store, tour)
                await ctx.post(event, t("tour_cancelled_now", lang, id=tour.id))
            else:
                await ctx.post(event, t("tour_help", lang, minutes=tour.late_minutes))
        except TournamentError as exc:
            await ctx.answer(event, t(f"tour_err_{exc.code}", lang, **exc.params))

    async def _new(self, store: TournamentStore, event: Incoming, args: tuple[str, ...], lang: str) -> None:
        ctx = self.ctx
        if await store.live(event.where.platform, event.where.chat_id) is not None:
            live = await _load(store, event.where)
            await ctx.answer(event, t("tour_exists", lang, id=live.id if live else "?"))
            return
        words = list(args)
        fmt = FORMAT_WORDS.get(words.pop(0).lower()) if words else "knockout"
        if fmt is None or fmt not in FORMATS:
            await ctx.answer(event, t("tour_bad_format", lang))
            return
        seeded, final_best_of = True, 3
        while words and words[0].lower() in ("seeded", "drawn", "draw", "抽签", "抽籤", "种子", "種子", "bo1", "bo3"):
            w = words.pop(0).lower()
            if w in ("drawn", "draw", "抽签", "抽籤"):
                seeded = False
            elif w in ("seeded", "种子", "種子"):
                seeded = True
            else:
                final_best_of = 1 if w == "bo1" else 3
        try:
            preset, rule_opts, table_opts = parse_new_args(tuple(words), ctx.presets())
            rule_opts.pop("format", None)
            checked = check_options({**rule_opts, **table_opts}, lang)
            settings_with(ctx.defaults, checked)
            ctx.preset(preset, **rule_overrides(checked))
        except Refusal as exc:
            await ctx.answer(event, exc.text(lang))
            return
        except OptionError as exc:
            await ctx.answer(event, t("tour_bad_option", lang, option=exc.option[:40]))
            return
        except (ValueError, TypeError, KeyError) as exc:
            await ctx.answer(event, t("tour_bad_option", lang, option=str(exc)[:80]))
            return
        chat = await ctx.chats.load(event.where.platform, event.where.chat_id)
        if "lang" not in chat:  # as `new` does: the tournament's tables and announcements speak this language
            chat["lang"] = lang
            await ctx.chats.save(event.where.platform, event.where.chat_id, chat)
            await ctx.language_chosen(event.where, lang)
        tour = Tournament(0, event.where.platform, event.where.chat_id, fmt, seeded=seeded, preset=preset,
                          options=[w for w in words if "=" in w], final_best_of=final_best_of,
                          seed=ctx.rng.randrange(1, 2**31), creator=event.user.user_id)
        tour.id = await store.create(tour.platform, tour.chat_id, tour.status, tour.to_dict())
        await _save(store, tour)
        await ctx.post(event, t("tour_created", lang, id=tour.id) + "\n"
                       + t("tour_help", lang, minutes=tour.late_minutes))

    async def _strength(self, tour: Tournament) -> dict[int, float]:
        """Seeding strength: the mean league rating (ordinal) of a team's people in this chat; AI seats
        at the default."""
        rows = await self.league.matches(tour.platform, tour.chat_id, None) if self.league is not None else []
        rates = rate_all([MatchRecord.from_dict(d) for d in rows])
        return {e.no: sum(rates.get(m.user_id, Rating()).ordinal for m in e.members) / max(1, len(e.members))
                for e in tour.entrants}

    async def _admin_forfeit(self, store: TournamentStore, tour: Tournament, event: Incoming,
                             args: tuple[str, ...], lang: str) -> None:
        ctx = self.ctx
        if tour.status != "running":
            await ctx.answer(event, t("tour_not_running", lang))
            return
        e = tour.find(" ".join(args)) if args else None
        if e is None:
            raise TournamentError("no_team", team=" ".join(args)[:24])
        p = next((p for p in tour.pairings
                  if not p.done and e.no in (p.a, p.b) and p.a is not None and p.b is not None), None)
        if p is None:
            raise TournamentError("not_in_pairing", team=e.name)
        table = ctx.tables.get(p.match_id) if p.match_id is not None else None
        if table is not None:  # the table ends as a forfeit; its end reaches `match_ended` like any other
            side = p.side_of(e.no)
            assert side is not None
            table.submit(Ruling(side, "ruled"))
            await ctx.post(event, t("tour_forfeited", lang, team=e.name))
            return
        tour.forfeit(p.key, e.no)
        await _save(store, tour)
        await ctx.post(event, t("tour_forfeited", lang, team=e.name))
        await self._after(store, tour, p, lang)

    async def open_next(self, tour: Tournament) -> bool:
        """Opens the table of the next pairing, when the chat has none open; False when nothing opened."""
        tables = self.ctx.tables
        if tour.status != "running" or tables.in_chat(tour.platform, tour.chat_id) is not None:
            return False
        if any(p.match_id is not None and tables.get(p.match_id) is not None for p in tour.pairings):
            return False
        p = tour.next_pairing()
        if p is None:
            return False
        await self._open(tour, p)
        return True

    async def _open(self, tour: Tournament, p: Pairing) -> None:
        assert p.a is not None and p.b is not None and self.store is not None
        ctx = self.ctx
        chat = await ctx.chats.load(tour.platform, tour.chat_id)
        lang = ctx.chats.lang(tour.platform, tour.chat_id)
        remembered, _ = stored_timers(chat.get("timers"), lang)
        _, rule_opts, table_opts = parse_new_args(tuple(tour.options), ctx.presets())
        rule_opts.pop("format", None)
        checked = check_options({**rule_opts, **table_opts}, lang)  # checked when the tournament was made
        rules = ctx.preset(tour.preset, **rule_overrides(checked))
        settings = settings_with(ctx.defaults, {**remembered, **checked, "lobby": tour.late_minutes * 60})
        seats: list[dict[str, object]] = []
        reserved: dict[str, str] = {}
        for seat in range(4):
            team = tour.entrant(p.a if seat % 2 == 0 else p.b)
            member = team.members[seat // 2]
            if member.is_ai:
                seats.append({"kind": SeatKind.AI, "name": f"{team.name}·{seat // 2 + 1}"[:32],
                              "level": DEFAULT_AI_LEVEL})
            else:
                seats.append({"kind": SeatKind.EMPTY})
                reserved[str(seat)] = member.user_id
        game = len(p.games) + 1
        meta: dict[str, object] = {
            "preset": tour.preset, "creator": tour.creator, "creator_name": "", "options": " ".join(tour.options)[:200],
            "settings": settings.to_dict(), "format": "timed" if rules.time_limit_minutes else "single",
            "tournament": {"id": tour.id, "pairing": p.key, "game": game}, "reserved": reserved,
        }  # fmt: skip
        where = Where(tour.platform, tour.chat_id)
        table = await ctx.open_table(NewTable(where, rules.to_dict(), seats, ctx.rng.randrange(1, 2**31), meta,
                                              lobby=settings.lobby if reserved else 0.0))
        p.match_id = table.id
        await _save(self.store, tour)
        await self._say(where, t("tour_match_open", lang, round=round_name(tour, p.round, lang),
                                 a=tour.entrant(p.a).name, b=tour.entrant(p.b).name, game=game,
                                 minutes=tour.late_minutes))
        if not reserved:  # two AI teams: deal at once
            starter = User(tour.platform, tour.creator, "")
            table.submit(Event(Incoming("command", starter, where, key="", name="start")))

    async def match_ended(self, table: TableView, result: Mapping[str, object]) -> bool:
        """A tournament table ended: record the game, move the tournament on, open the next match."""
        try:
            await self._match_ended(table, result)
        except Exception:
            log.exception("tournament step failed after match %s", table.id)
        return False

    async def _match_ended(self, table: TableView, result: Mapping[str, object]) -> None:
        info = table.meta.tournament
        store = self.store
        if info is None or store is None:
            return
        row = await store.get(info.id)
        if row is None or row.status != "running":
            return
        tour = Tournament.from_dict(row.state)
        try:
            p = tour.pairing(info.pairing)
        except TournamentError:
            return
        if p.done or p.match_id != table.id:
            return  # already decided (an admin's ruling), or a table of an earlier attempt
        reason = str(result.get("reason", "target"))
        forfeit_team, winner_team = result.get("forfeit_team"), result.get("winner_team")
        if result.get("double_forfeit"):
            tour.forfeit(p.key, None)
        elif reason == "abandoned":
            p.match_id = None  # nobody won: the pairing is played again
        elif reason == "forfeit" and isinstance(forfeit_team, int) and forfeit_team in (0, 1):
            tour.forfeit(p.key, p.a if forfeit_team == 0 else p.b)
        elif isinstance(winner_team, int) and winner_team in (0, 1):
            now = datetime.now(UTC)
            rec = record_from_table(table, result, started_at=now, ended_at=now)
            tour.record_game(p.key, Game(table.id, winner_team, rec.levels_gained, reason))
        else:
            p.match_id = None
        await _save(store, tour)
        await self._after(store, tour, p, self.ctx.chats.lang(tour.platform, tour.chat_id))

    async def _after(self, store: TournamentStore, tour: Tournament, p: Pairing, lang: str) -> None:
        where = Where(tour.platform, tour.chat_id)
        await self._say(where, t("tour_result", lang, line=pairing_line(tour, p, lang)))
        if tour.status == "finished":
            await self._say(where, tournament_text(tour, lang), tournament_png(tour, lang))
            return
        if (p.done and p.round != tour.current_round()) or (p.done and tour.fmt == "knockout" and p.round == 1
                                                          and tour.current_round() > 1):
            await self._say(where, tournament_text(tour, lang), tournament_png(tour, lang))  # a round is over
        await self.open_next(tour)

    async def resuming(self, tables: Sequence[TableView]) -> None:
        """Before the resumed tables run: a running tournament whose chat has no table opens its next match."""
        store = self.store
        if store is None:
            return
        busy = {(t.platform_name, t.chat_id) for t in tables}
        alive = {t.id for t in tables}
        for row in await store.all_running():
            if row.platform not in self.ctx.platforms() or (row.platform, row.chat_id) in busy:
                continue
            await self._reopen(store, Tournament.from_dict(row.state), alive)

    async def waiting_chats(self) -> set[tuple[str, str]]:
        if self.store is None:
            return set()
        return {(r.platform, r.chat_id) for r in await self.store.all_running() if r.platform in self.ctx.platforms()}

    async def move_on(self, idle: set[tuple[str, str]]) -> list[str]:
        """With several workers (bot.move_on): the running tournaments of these chats, where no match is
        open and nobody is moving one on (its worker died in between), open their next match."""
        store = self.store
        if store is None:
            return []
        moved: list[str] = []
        for row in await store.all_running():
            if row.platform in self.ctx.platforms() and (row.platform, row.chat_id) in idle:
                tour = Tournament.from_dict(row.state)
                if await self._reopen(store, tour, set()):
                    moved.append(f"tournament {tour.id}")
        return moved

    async def _reopen(self, store: TournamentStore, tour: Tournament, alive: set[int]) -> bool:
        for p in tour.pairings:  # a table that ended while the host was down is played again
            if p.match_id is not None and p.match_id not in alive:
                p.match_id = None
        await _save(store, tour)
        return await self.open_next(tour)
