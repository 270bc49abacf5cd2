"""The league's entry points for the host: record a match, answer a league command."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass

from bot.league.export import export_csv
from bot.league.pairs import pair_standings, pairs_table
from bot.league.picture import render_table
from bot.league.ratings import Rating, rate_all
from bot.league.records import MatchRecord
from bot.league.replay import replay_text
from bot.league.standings import (
    DEFAULT_METHOD,
    METHODS,
    Method,
    PlayerRecord,
    movement,
    parse_method,
    player_records,
    standings,
)
from bot.league.tables import method_label, standings_table, table_text
from bot.league.texts import t
from bot.platform import User, Where
from persistence.league_store import LeagueStore

DEFAULT_TOP = 10
MAX_TOP = 50
DEFAULT_HISTORY = 10
MAX_HISTORY = 30
ALL_WORDS = frozenset({"all", "alltime", "全部", "总榜", "历史", "總榜", "歷史"})
PAIR_WORDS = frozenset({"pairs", "pair", "partners", "搭档", "搭檔", "对家", "對家"})
NEW_WORDS = frozenset({"new", "新", "新赛季", "新賽季"})


@dataclass(frozen=True)
class LeagueReply:
    """What the host sends back: text, optionally a PNG picture and/or a CSV file."""

    text: str
    image_png: bytes | None = None
    csv: str | None = None

    @property
    def csv_bytes(self) -> bytes | None:
        """The CSV as a file: UTF-8 with a BOM, or Excel on a Chinese Windows reads the names as GBK."""
        return self.csv.encode("utf-8-sig") if self.csv else None


async def record_match(store: object, record: MatchRecord) -> bool:
    """Add a finished match to its chat's league (current season). False if it was already there."""
    league = LeagueStore.of(store)
    return await league.add_match(record.to_dict())


async def league_command(
    store: object,
    where: Where,
    user: User,
    name: str,
    args: tuple[str, ...],
    lang: str,
    is_admin: bool,
) -> LeagueReply:
    """Answer standings / stats / history / season / ranking / export / replay.

    `standings [N] [all] [pairs] [method]` shows the top N of the season (or
    all time), by the league's method unless another is named for this once;
    `pairs` ranks fixed partnerships instead of players.
    """
    league = LeagueStore.of(store)
    command = name.lower().lstrip("/")
    if command == "stats":
        return await _stats(league, where, user, args, lang)
    if where.private:
        return LeagueReply(t("group_only", lang))
    if command == "standings":
        return await _standings(league, where, args, lang)
    if command == "history":
        return await _history(league, where, args, lang)
    if command == "season":
        return await _season(league, where, user, args, lang, is_admin)
    if command in ("ranking", "method"):
        return await _ranking(league, where, args, lang, is_admin)
    if command == "export":
        if not is_admin:
            return LeagueReply(t("admins_only", lang))
        return await _export(league, where, args, lang)
    if command == "replay":
        return LeagueReply(await replay_text(store, where, user, args, lang))
    return LeagueReply(t("help", lang))


def _method(text: str) -> Method:
    return parse_method(text) or DEFAULT_METHOD


async def _records(league: LeagueStore, where: Where, season: int | None) -> list[MatchRecord]:
    return [MatchRecord.from_dict(d) for d in await league.matches(where.platform, where.chat_id, season)]


async def _standings(league: LeagueStore, where: Where, args: tuple[str, ...], lang: str) -> LeagueReply:
    top = DEFAULT_TOP
    all_time = False
    pairs = False
    asked: Method | None = None
    for arg in args:
        if arg.isdigit():
            top = max(1, min(MAX_TOP, int(arg)))
        elif arg.lower() in ALL_WORDS:
            all_time = True
        elif arg.lower() in PAIR_WORDS:
            pairs = True
        elif (method_asked := parse_method(arg)) is not None:
            asked = method_asked
        else:  # a typo must not quietly show another table than the one asked for
            return LeagueReply(t("standings_unknown", lang, name=arg[:30]))
    info = await league.league(where.platform, where.chat_id)
    method = asked or _method(info.method)
    records = await _records(league, where, None if all_time else info.season)
    if pairs:
        return await _pair_standings(league, where, records, method, top, all_time, info.season, lang)
    table_rows = await asyncio.to_thread(standings, records, method)  # a big league takes a while
    if not table_rows:
        return LeagueReply(await _nothing_yet(league, where, all_time, info.season, lang))
    scope = "all" if all_time else f"season:{info.season}"
    before = await league.shown_positions(where.platform, where.chat_id, scope, method)
    moves = movement(table_rows, before)
    await league.save_shown_positions(
        where.platform, where.chat_id, scope, method, {s.user_id: s.position for s in table_rows}
    )
    label = method_label(method, lang)
    title = (
        t("standings_title_all", lang, method=label)
        if all_time
        else t("standings_title", lang, season=info.season, method=label)
    )
    table = standings_table(table_rows[:top], method, moves, lang, title=title)
    return LeagueReply(table_text(table), image_png=await asyncio.to_thread(render_table, table))


async def _nothing_yet(league: LeagueStore, where: Where, all_time: bool, season: int, lang: str) -> str:
    """No counted match in the table asked for: say whether earlier seasons have some."""
    if not all_time and season > 1 and any(
        MatchRecord.from_dict(d).counts for d in await league.matches(where.platform, where.chat_id, None)
    ):
        return t("no_matches_season", lang, season=season)
    return t("no_matches", lang)


async def _pair_standings(
    league: LeagueStore,
    where: Where,
    records: list[MatchRecord],
    method: Method,
    top: int,
    all_time: bool,
    season: int,
    lang: str,
) -> LeagueReply:
    rows = await asyncio.to_thread(pair_standings, records, method)
    if not rows:
        return LeagueReply(await _nothing_yet(league, where, all_time, season, lang))
    label = method_label(method, lang)
    title = (
        t("pairs_title_all", lang, method=label) if all_time else t("pairs_title", lang, season=season, method=label)
    )
    table = pairs_table(rows[:top], method, lang, title=title)
    return LeagueReply(table_text(table), image_png=await asyncio.to_thread(render_table, table))


def _find_player(records: Sequence[MatchRecord], query: str) -> tuple[str, str] | None:
    """(user_id, name) for an id, @name or name (exact, then prefix, then substring; case-insensitive)."""
    names: dict[str, str] = {}
    for r in records:
        for p in r.humans():
            names[p.user_id] = p.name
    q = query.strip().lstrip("@")
    if q in names:
        return q, names[q]
    low = q.casefold()
    for test in (
        lambda n: n.casefold() == low,
        lambda n: n.casefold().startswith(low),
        lambda n: low in n.casefold(),
    ):
        hits = [(uid, n) for uid, n in names.items() if test(n)]
        if len(hits) == 1:
            return hits[0]
        if hits:
            return sorted(hits, key=lambda h: h[1])[0]
    return None


def _stats_lines(scope: str, rec: PlayerRecord, rating: Rating, lang: str) -> list[str]:
    avg = rec.average_defender_points
    lines = [
        t(
            "stats_line",
            lang,
            scope=scope,
            matches=rec.matches,
            wins=rec.wins,
            rate=round(100 * rec.win_rate),
            decl=rec.declarer_hands_won,
            defn=rec.defender_hands_won,
            avg="-" if avg is None else f"{avg:.1f}",
        ),
        t(
            "stats_scores",
            lang,
            rating=f"{rating.ordinal:.1f}",
            prov="?" if rating.provisional else "",
            big=rec.big,
            small=rec.small,
            points=f"{rec.points:.1f}",
            standard=rec.standard,
        ),
    ]
    if rec.dup_matches:
        lines.append(t("stats_dup", lang, n=rec.dup_matches, wins=rec.dup_wins, ties=rec.dup_ties,
                       losses=rec.dup_losses, mp_for=rec.dup_for, mp_against=rec.dup_against))
    best = rec.best_partner()
    if best is not None:
        partner_id, pr = best
        lines.append(
            t(
                "stats_partner",
                lang,
                partner=rec.partner_names.get(partner_id, partner_id),
                wins=pr.wins,
                matches=pr.matches,
            )
        )
    return lines


async def _stats(
    league: LeagueStore, where: Where, user: User, args: tuple[str, ...], lang: str
) -> LeagueReply:
    chat_records: list[MatchRecord] = []
    season_records: list[MatchRecord] = []
    if not where.private:
        info = await league.league(where.platform, where.chat_id)
        chat_records = await _records(league, where, None)
        season_records = await _records(league, where, info.season)
    if args:
        found = _find_player(chat_records, " ".join(args))
        if found is None:
            return LeagueReply(t("player_not_found", lang, name=" ".join(args)))
        user_id, name = found
    else:
        user_id, name = user.user_id, user.name
    career = [MatchRecord.from_dict(d) for d in await league.player_matches(where.platform, user_id)]
    lines = [t("stats_title", lang, name=name)]
    shown: set[tuple[str, int]] = set()
    for scope_key, records in (
        ("stats_scope_season", season_records),
        ("stats_scope_chat", chat_records),
        ("stats_scope_career", career),
    ):
        rec = player_records(records).get(user_id)
        if rec is None:
            continue
        played = {(r.chat_id, r.match_id) for r in records if any(p.user_id == user_id for p in r.humans())}
        if played == shown:
            continue  # the same matches as the line above: say it once
        shown = played
        rating = rate_all(records).get(user_id, Rating())
        lines += _stats_lines(t(scope_key, lang), rec, rating, lang)
    if len(lines) == 1:
        return LeagueReply(t("player_no_matches", lang, name=name))
    return LeagueReply("\n".join(lines))


def _team_names(record: MatchRecord, team: int, lang: str) -> str:
    return " & ".join(t("ai", lang) if p.is_ai else p.name for p in record.team_players(team))


async def _history(league: LeagueStore, where: Where, args: tuple[str, ...], lang: str) -> LeagueReply:
    limit = DEFAULT_HISTORY
    for arg in args:
        if arg.isdigit():
            limit = max(1, min(MAX_HISTORY, int(arg)))
    recent = [MatchRecord.from_dict(d) for d in await league.recent(where.platform, where.chat_id, limit)]
    if not recent:
        return LeagueReply(t("no_matches", lang))
    lines = [t("history_title", lang)]
    for r in recent:
        shown = r.levels
        if r.dup_points is not None:
            shown = (str(r.dup_points[0]), str(r.dup_points[1]))
            result = t("result_dup_tie", lang) if r.winner_team is None else t(
                "result_dup_won", lang, team=_team_names(r, r.winner_team, lang))
        elif r.winner_team is None:
            result = t("ending_abandoned", lang)
        else:
            team = _team_names(r, r.winner_team, lang)
            result = t("result_won", lang, team=team, how=t(f"ending_{r.ending}", lang))
        lines.append(
            t(
                "history_line",
                lang,
                id=r.match_id,
                date=r.ended_at.strftime("%Y-%m-%d"),
                team0=_team_names(r, 0, lang),
                team1=_team_names(r, 1, lang),
                level0=shown[0],
                level1=shown[1],
                result=result,
                hands=r.hands_played,
                minutes=round(r.duration.total_seconds() / 60),
            )
        )
    return LeagueReply("\n".join(lines))


async def _season(
    league: LeagueStore, where: Where, user: User, args: tuple[str, ...], lang: str, is_admin: bool
) -> LeagueReply:
    if args and args[0].lower() in NEW_WORDS:
        if not is_admin:
            return LeagueReply(t("admins_only", lang))
        method = parse_method(args[1]) if len(args) > 1 else None
        if len(args) > 1 and method is None:
            return LeagueReply(t("ranking_unknown", lang, name=args[1]))
        season = await league.new_season(where.platform, where.chat_id, user.user_id)
        text = t("season_started", lang, season=season)
        if method is not None:
            await league.set_method(where.platform, where.chat_id, method)
            text += "\n" + t("ranking_set", lang, method=method_label(method, lang))
        return LeagueReply(text)
    info = await league.league(where.platform, where.chat_id)
    return LeagueReply(
        t(
            "season_info",
            lang,
            season=info.season,
            date=info.season_started_at.strftime("%Y-%m-%d"),
            method=method_label(_method(info.method), lang),
        )
    )


async def _ranking(
    league: LeagueStore, where: Where, args: tuple[str, ...], lang: str, is_admin: bool
) -> LeagueReply:
    if not args:
        info = await league.league(where.platform, where.chat_id)
        return LeagueReply(t("ranking_info", lang, method=method_label(_method(info.method), lang)))
    if not is_admin:
        return LeagueReply(t("admins_only", lang))
    method = parse_method(args[0])
    if method is None:
        return LeagueReply(t("ranking_unknown", lang, name=args[0]))
    await league.set_method(where.platform, where.chat_id, method)
    return LeagueReply(t("ranking_set", lang, method=method_label(method, lang)))


async def _export(league: LeagueStore, where: Where, args: tuple[str, ...], lang: str) -> LeagueReply:
    info = await league.league(where.platform, where.chat_id)
    all_time = any(a.lower() in ALL_WORDS for a in args)
    seasons = await league.match_seasons(where.platform, where.chat_id)
    records = await _records(league, where, None if all_time else info.season)
    return LeagueReply(t("export_done", lang, n=len(records)), csv=export_csv(records, seasons))


__all__ = ["METHODS", "LeagueReply", "export_csv", "league_command", "record_match"]
