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
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from bot.commands import Refusal
from bot.league import ratings as rating_mod
from bot.league.bridge import record_from_table
from bot.league.records import MatchRecord
from bot.league.texts import t
from bot.league.tournament import FORMATS, Format, Game, Member, Pairing, Tournament, TournamentError
from bot.league.tournament_view import pairing_line, round_name, tournament_png, tournament_text
from bot.platform import Incoming, PlatformError, Unreachable, User, View, Where
from bot.settings import (
    DEFAULT_AI_LEVEL,
    OptionError,
    check_options,
    parse_new_args,
    rule_overrides,
    settings_with,
    stored_timers,
)
from bot.table import Table
from bot.table.messages import Event, Ruling
from bot.table.seats import SeatKind
from persistence.league_store import LeagueStore
from persistence.tournament_store import TournamentStore

if TYPE_CHECKING:
    from bot.host import Host

log = logging.getLogger(__name__)

FORMAT_WORDS: dict[str, Format] = {
    "knockout": "knockout", "ko": "knockout", "淘汰": "knockout", "淘汰赛": "knockout", "淘汰賽": "knockout",
    "roundrobin": "roundrobin", "rr": "roundrobin", "循环": "roundrobin", "循环赛": "roundrobin",
    "循環賽": "roundrobin", "swiss": "swiss", "瑞士": "swiss", "瑞士制": "swiss",
}  # fmt: skip
AI_TEAMS_MAX = 16


async def _say(host: Host, where: Where, text: str, png: bytes | None = None) -> None:
    platform = host.platforms.get(where.platform)
    if platform is None:
        return
    try:
        await platform.send(where, View(text))
        if png is not None and platform.sends_files:
            await platform.send_file(where, "tournament.png", png)
    except (PlatformError, Unreachable):
        log.info("tournament message to %s not delivered", where.chat_id)


async def _load(store: TournamentStore, where: Where, *, live: bool = True) -> Tournament | None:
    row = await (store.live(where.platform, where.chat_id) if live else store.latest(where.platform, where.chat_id))
    return Tournament.from_dict(row.state) if row is not None else None


async def _save(store: TournamentStore, tour: Tournament) -> None:
    await store.save(tour.id, tour.status, tour.to_dict())


async def command(host: Host, event: Incoming, args: tuple[str, ...], lang: str) -> None:
    """`tournament [sub …]` in a group chat."""
    if event.where.private:
        await host.answer(event, t("group_only", lang))
        return
    store = TournamentStore.maybe(host.store)
    if store is None:
        await host.answer(event, t("tour_no_store", lang))
        return
    sub = args[0].lower() if args else "show"
    rest = args[1:]
    admin = event.extra.get("admin") == "1"
    try:
        if sub in ("show", "bracket", "table", "对阵", "對陣"):
            tour = await _load(store, event.where, live=False)
            if tour is None:
                await host.post(event, t("tour_none", lang))
            else:
                await _say(host, event.where, tournament_text(tour, lang), tournament_png(tour, lang))
            return
        if sub == "help":
            await host.post(event, t("tour_help", lang, minutes=15))
            return
        if sub in ("new", "start", "ai", "forfeit", "cancel") and not admin:
            await host.answer(event, t("admins_only", lang))
            return
        if sub == "new":
            await _new(host, store, event, rest, lang)
            return
        tour = await _load(store, event.where)
        if tour is None:
            await host.post(event, t("tour_none", lang))
            return
        me = Member(event.user.user_id, event.user.name[:32])
        if sub == "team":
            if not rest:
                await host.answer(event, t("tour_usage_team", lang))
                return
            e = tour.add_team(" ".join(rest), me)
            await _save(store, tour)
            await host.post(event, t("tour_team_created", lang, name=me.name, team=e.name))
        elif sub == "join":
            e = tour.join_team(" ".join(rest), me)
            await _save(store, tour)
            await host.post(event, t("tour_joined", lang, name=me.name, team=e.name))
        elif sub == "leave":
            e = tour.leave(event.user.user_id)
            await _save(store, tour)
            await host.post(event, t("tour_left", lang, name=me.name, team=e.name))
        elif sub == "ai":
            n = int(rest[0]) if rest and rest[0].isdigit() else 1
            added = tour.add_ai_teams(max(1, min(AI_TEAMS_MAX, n)), [t("tour_ai_team", lang)])
            await _save(store, tour)
            await host.post(event, t("tour_ai_added", lang, n=len(added)))
        elif sub == "start":
            tour.start(await _strength(host, tour))
            await _save(store, tour)
            await _say(host, event.where, t("tour_started", lang) + "\n" + tournament_text(tour, lang),
                       tournament_png(tour, lang))
            await open_next(host, tour)
        elif sub == "forfeit":
            await _admin_forfeit(host, store, tour, event, rest, lang)
        elif sub == "cancel":
            tour.status = "cancelled"
            await _save(store, tour)
            await host.post(event, t("tour_cancelled_now", lang, id=tour.id))
        else:
            await host.post(event, t("tour_help", lang, minutes=tour.late_minutes))
    except TournamentError as exc:
        await host.answer(event, t(f"tour_err_{exc.code}", lang, **exc.params))


async def _new(host: Host, store: TournamentStore, event: Incoming, args: tuple[str, ...], lang: str) -> None:
    if await store.live(event.where.platform, event.where.chat_id) is not None:
        live = await _load(store, event.where)
        await host.answer(event, t("tour_exists", lang, id=live.id if live else "?"))
        return
    words = list(args)
    fmt = FORMAT_WORDS.get(words.pop(0).lower()) if words else "knockout"
    if fmt is None or fmt not in FORMATS:
        await host.answer(event, t("tour_bad_format", lang))
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
        preset, rule_opts, table_opts = parse_new_args(tuple(words), host.presets())
        rule_opts.pop("format", None)
        checked = check_options({**rule_opts, **table_opts}, lang)
        settings_with(host.defaults, checked)
        host.engine.preset(preset, **rule_overrides(checked))
    except Refusal as exc:
        await host.answer(event, exc.text(lang))
        return
    except OptionError as exc:
        await host.answer(event, t("tour_bad_option", lang, option=exc.option[:40]))
        return
    except (ValueError, TypeError, KeyError) as exc:
        await host.answer(event, t("tour_bad_option", lang, option=str(exc)[:80]))
        return
    chat = await host.load_chat(event.where.platform, event.where.chat_id)
    if "lang" not in chat:  # as `new` does: the tournament's tables and announcements speak this language
        chat["lang"] = lang
        await host.store.set_chat(event.where.platform, event.where.chat_id, chat)
    tour = Tournament(0, event.where.platform, event.where.chat_id, fmt, seeded=seeded, preset=preset,
                      options=[w for w in words if "=" in w], final_best_of=final_best_of,
                      seed=host.rng.randrange(1, 2**31), creator=event.user.user_id)
    tour.id = await store.create(tour.platform, tour.chat_id, tour.status, tour.to_dict())
    await _save(store, tour)
    await host.post(event, t("tour_created", lang, id=tour.id) + "\n" + t("tour_help", lang, minutes=tour.late_minutes))


async def _strength(host: Host, tour: Tournament) -> dict[int, float]:
    """Seeding strength: the mean league rating (ordinal) of a team's people in this chat; AI seats at the default."""
    league = LeagueStore.of(host.store)
    records = [MatchRecord.from_dict(d) for d in await league.matches(tour.platform, tour.chat_id, None)]
    rates = rating_mod.rate_all(records)
    return {e.no: sum(rates.get(m.user_id, rating_mod.Rating()).ordinal for m in e.members) / max(1, len(e.members))
            for e in tour.entrants}


async def _admin_forfeit(host: Host, store: TournamentStore, tour: Tournament, event: Incoming,
                         args: tuple[str, ...], lang: str) -> None:
    if tour.status != "running":
        await host.answer(event, t("tour_not_running", lang))
        return
    e = tour.find(" ".join(args)) if args else None
    if e is None:
        raise TournamentError("no_team", team=" ".join(args)[:24])
    p = next((p for p in tour.pairings if not p.done and e.no in (p.a, p.b) and p.a is not None and p.b is not None),
             None)
    if p is None:
        raise TournamentError("not_in_pairing", team=e.name)
    table = host.tables.get(p.match_id) if p.match_id is not None else None
    if table is not None:  # the table ends as a forfeit; its end reaches `match_ended` like any other
        side = p.side_of(e.no)
        assert side is not None
        table.submit(Ruling(side, "ruled"))
        await host.post(event, t("tour_forfeited", lang, team=e.name))
        return
    tour.forfeit(p.key, e.no)
    await _save(store, tour)
    await host.post(event, t("tour_forfeited", lang, team=e.name))
    await _after(host, tour, p, lang)


async def open_next(host: Host, tour: Tournament) -> bool:
    """Opens the table of the next pairing, when the chat has none open; False when nothing opened."""
    if tour.status != "running" or (tour.platform, tour.chat_id) in host.by_chat:
        return False
    if any(p.match_id is not None and p.match_id in host.tables for p in tour.pairings):
        return False
    p = tour.next_pairing()
    if p is None:
        return False
    await _open(host, tour, p)
    return True


async def _open(host: Host, tour: Tournament, p: Pairing) -> None:
    assert p.a is not None and p.b is not None
    chat = await host.load_chat(tour.platform, tour.chat_id)
    lang = host.chat_lang(tour.platform, tour.chat_id)
    remembered, _ = stored_timers(chat.get("timers"), lang)
    _, rule_opts, table_opts = parse_new_args(tuple(tour.options), host.presets())
    rule_opts.pop("format", None)
    checked = check_options({**rule_opts, **table_opts}, lang)  # checked when the tournament was made
    rules = host.engine.preset(tour.preset, **rule_overrides(checked))
    settings = settings_with(host.defaults, {**remembered, **checked, "lobby": tour.late_minutes * 60})
    seats: list[dict[str, Any]] = []
    reserved: dict[str, str] = {}
    for seat in range(4):
        team = tour.entrant(p.a if seat % 2 == 0 else p.b)
        member = team.members[seat // 2]
        if member.is_ai:
            seats.append({"kind": SeatKind.AI, "name": f"{team.name}·{seat // 2 + 1}"[:32], "level": DEFAULT_AI_LEVEL})
        else:
            seats.append({"kind": SeatKind.EMPTY})
            reserved[str(seat)] = member.user_id
    game = len(p.games) + 1
    meta: dict[str, Any] = {
        "preset": tour.preset, "creator": tour.creator, "creator_name": "", "options": " ".join(tour.options)[:200],
        "settings": settings.to_dict(), "format": "timed" if rules.time_limit_minutes else "single",
        "tournament": {"id": tour.id, "pairing": p.key, "game": game}, "reserved": reserved,
    }  # fmt: skip
    seed = host.rng.randrange(1, 2**31)
    mid = await host.store.create_match(tour.platform, tour.chat_id, rules.to_dict(), seats, seed, meta,
                                        status="lobby")
    deadlines: dict[str, float] = {}
    if reserved and settings.lobby > 0:
        deadlines["lobby"] = host.clock.now() + settings.lobby
        await host.store.set_deadline(mid, "lobby", deadlines["lobby"])
    table = Table(host, match_id=mid, platform=tour.platform, chat_id=tour.chat_id, rules=rules.to_dict(),
                  seats=seats, seed=seed, meta=meta, status="lobby", deadlines=deadlines)
    p.match_id = mid
    await TournamentStore.of(host.store).save(tour.id, tour.status, tour.to_dict())
    host.add_table(table)
    where = Where(tour.platform, tour.chat_id)
    await _say(host, where, t("tour_match_open", lang, round=round_name(tour, p.round, lang),
                              a=tour.entrant(p.a).name, b=tour.entrant(p.b).name, game=game,
                              minutes=tour.late_minutes))
    if not reserved:  # two AI teams: deal at once
        starter = User(tour.platform, tour.creator, "")
        table.submit(Event(Incoming("command", starter, where, key="", name="start")))


async def match_ended(host: Host, table: Table, result: dict[str, Any]) -> None:
    """A tournament table ended: record the game, move the tournament on, open the next match."""
    info = table.meta.get("tournament")
    store = TournamentStore.maybe(host.store)
    if not isinstance(info, dict) or store is None:
        return
    row = await store.get(int(info["id"]))
    if row is None or row.status != "running":
        return
    tour = Tournament.from_dict(row.state)
    try:
        p = tour.pairing(str(info["pairing"]))
    except TournamentError:
        return
    if p.done or p.match_id != table.id:
        return  # already decided (an admin's ruling), or a table of an earlier attempt
    reason = str(result.get("reason", "target"))
    if result.get("double_forfeit"):
        tour.forfeit(p.key, None)
    elif reason == "abandoned":
        p.match_id = None  # nobody won: the pairing is played again
    elif reason == "forfeit" and result.get("forfeit_team") in (0, 1):
        loser = p.a if int(result["forfeit_team"]) == 0 else p.b
        tour.forfeit(p.key, loser)
    elif result.get("winner_team") in (0, 1):
        now = datetime.now(UTC)
        rec = record_from_table(table, result, started_at=now, ended_at=now)
        tour.record_game(p.key, Game(table.id, int(result["winner_team"]), rec.levels_gained, reason))
    else:
        p.match_id = None
    await _save(store, tour)
    await _after(host, tour, p, host.chat_lang(tour.platform, tour.chat_id))


async def _after(host: Host, tour: Tournament, p: Pairing, lang: str) -> None:
    where = Where(tour.platform, tour.chat_id)
    await _say(host, where, t("tour_result", lang, line=pairing_line(tour, p, lang)))
    if tour.status == "finished":
        await _say(host, where, tournament_text(tour, lang), tournament_png(tour, lang))
        return
    if (p.done and p.round != tour.current_round()) or (p.done and tour.fmt == "knockout" and p.round == 1
                                                      and tour.current_round() > 1):
        await _say(host, where, tournament_text(tour, lang), tournament_png(tour, lang))  # a round is over
    await open_next(host, tour)


async def resume(host: Host, loaded: list[Table]) -> None:
    """At start-up, before the resumed tables run: a running tournament whose chat has no table
    (`loaded` are the tables being resumed) opens its next match."""
    store = TournamentStore.maybe(host.store)
    if store is None:
        return
    busy = {(t.platform_name, t.chat_id) for t in loaded}
    alive = {t.id for t in loaded}
    for row in await store.all_running():
        if row.platform not in host.platforms or (row.platform, row.chat_id) in busy:
            continue
        await _reopen(host, store, Tournament.from_dict(row.state), alive)


async def move_on(host: Host, chats: set[tuple[str, str]]) -> list[int]:
    """With several workers (bot.move_on): the running tournaments of these chats, where no match is
    open and nobody is moving one on (its worker died in between), open their next match. Their ids."""
    store = TournamentStore.maybe(host.store)
    if store is None:
        return []
    moved: list[int] = []
    for row in await store.all_running():
        if row.platform in host.platforms and (row.platform, row.chat_id) in chats:
            tour = Tournament.from_dict(row.state)
            if await _reopen(host, store, tour, set()):
                moved.append(tour.id)
    return moved


async def _reopen(host: Host, store: TournamentStore, tour: Tournament, alive: set[int]) -> bool:
    for p in tour.pairings:  # a table that ended while the host was down is played again
        if p.match_id is not None and p.match_id not in alive:
            p.match_id = None
    await _save(store, tour)
    return await open_next(host, tour)


__all__ = ["command", "match_ended", "move_on", "open_next", "resume"]
