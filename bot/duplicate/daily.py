"""Daily boards: the same few boards for every chat each day, scored against the whole field.

The day's set is made by whoever asks first and stored under the day's key
(UTC), so every chat and every worker plays the same boards. Each finished
table is compared with every other table that played the board, by direction,
with duplicate bridge's matchpoints; a person's day (or week) is the average
of their percentages, and the standings come as text and as a picture.

A day's standings are results of its boards, so while the day runs they go only to someone who
has played all of them, privately (`daily standings today`); everyone gets them the next day
(`daily standings` is yesterday's, `daily standings week` the week up to yesterday).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

from bot.clock import Clock
from bot.duplicate.scoring import percentages
from bot.duplicate.tables import Desk, make_set, seat_scores
from bot.feature import TableView
from bot.i18n import N_, tr
from bot.league.picture import render_table
from bot.league.tables import Table as Picture
from bot.platform import Where
from persistence.board_store import BoardRow, PlayRow

DAILY_BOARDS = 4
DAY_TITLE, WEEK_TITLE = N_("daily.day_title"), N_("daily.week_title")
DAILY_SOURCE = "drawn"  # 002 2.6 C: a trump everyone shares, so every table plays the same contract


def today(clock: Clock) -> date:
    return datetime.fromtimestamp(clock.now(), UTC).date()


async def day_boards(desk: Desk, day: date) -> list[BoardRow]:
    """The day's boards, made now if nobody has asked for them yet."""
    key = day.isoformat()
    store = desk.boards
    rows = await store.set_boards("daily", key)
    if rows:
        return rows
    return await store.add_boards("daily", key, [b.row() for b in make_set(desk, DAILY_BOARDS, DAILY_SOURCE)])


@dataclass(frozen=True)
class Standing:
    user_id: str
    name: str
    boards: int
    percent: float
    total: float  # sum of percentages (for ties)


def board_percentages(plays: list[PlayRow]) -> dict[int, tuple[float, float]]:
    """Each finished table's (N-S %, E-W %) on one board, against every other table of the field."""
    scored = [(p, seat_scores(p)) for p in plays]
    done = [(p, s) for p, s in scored if s is not None]
    ns = percentages([float(s[0]) for _, s in done])
    ew = percentages([float(s[1]) for _, s in done])
    return {p.match_id: (ns[i], ew[i]) for i, (p, _) in enumerate(done)}


def standings(rows: list[BoardRow], plays: list[PlayRow], platform: str | None = None) -> list[Standing]:
    """People ranked by their average matchpoint percentage over the boards they played (AIs not ranked)."""
    got: dict[str, list[float]] = {}
    names: dict[str, str] = {}
    for b in rows:
        mine = [p for p in plays if p.board_id == b.id]
        pct = board_percentages(mine)
        for p in mine:
            if p.match_id not in pct or (platform is not None and p.platform != platform):
                continue
            for s, seat in enumerate(p.seats):
                if seat.get("kind") != "human":
                    continue
                key = f"{p.platform}:{seat.get('user_id')}"
                got.setdefault(key, []).append(pct[p.match_id][s % 2])
                names[key] = str(seat.get("name", "?"))
    out = [Standing(k, names[k], len(v), sum(v) / len(v), sum(v)) for k, v in got.items()]
    return sorted(out, key=lambda s: (-s.percent, -s.boards, s.name))


def standings_picture(title: str, rows: list[Standing], lang: str) -> Picture:
    headers = (tr(lang, "daily.col_pos"), tr(lang, "daily.col_boards"), tr(lang, "daily.col_player"),
               tr(lang, "daily.col_percent"))
    lines = tuple((str(i), str(s.boards), s.name, f"{s.percent:.1f}%") for i, s in enumerate(rows, 1))
    return Picture(title, headers, lines, (tr(lang, "daily.note"),))


def standings_text(pic: Picture) -> str:
    lines = [pic.title]
    for pos, n, name, pct in pic.rows:
        lines.append(f"{pos}. {name} — {pct} ({n})")
    lines.extend(pic.notes)
    return "\n".join(lines)


async def period(desk: Desk, week: bool, day: date) -> tuple[str, list[BoardRow], list[PlayRow]]:
    """The boards of `day` (or of its ISO week, Monday to `day`) and every table that played them."""
    days = [day - timedelta(days=i) for i in range(day.weekday() + 1)] if week else [day]
    rows: list[BoardRow] = []
    for d in reversed(days):
        rows += await desk.boards.set_boards("daily", d.isoformat())
    plays = await desk.boards.plays([b.id for b in rows])
    label = f"{days[-1].isoformat()} – {day.isoformat()}" if week else day.isoformat()
    return label, rows, plays


async def standings_reply(desk: Desk, lang: str, week: bool, day: date) -> tuple[str, bytes | None]:
    """The field's standings for `day` (or its week up to it), as text and a picture."""
    label, rows, plays = await period(desk, week, day)
    ranked = standings(rows, plays)
    title = tr(lang, WEEK_TITLE if week else DAY_TITLE, period=label)
    if not ranked:
        return tr(lang, "daily.no_results", title=title), None
    pic = standings_picture(title, ranked[:30], lang)
    return standings_text(pic), render_table(pic)


async def on_board_done(desk: Desk, table: TableView, play: PlayRow) -> None:
    """A daily board was played here: how it compares with every table so far."""
    all_plays = await desk.boards.plays([play.board_id])
    pct = board_percentages(all_plays).get(play.match_id)
    mine = seat_scores(play)
    if pct is None or mine is None:
        return
    others = sum(1 for p in all_plays if seat_scores(p) is not None and p.match_id != play.match_id)
    info = table.meta.board
    await table.say(field_text(table.lang, N_("daily.compared"), N_("daily.first"),
                               info.number if info is not None and info.number is not None else "?",
                               (pct[0], pct[1]), others))


def field_text(lang: str, compared: str, first: str, number: object, pct: tuple[float, float], others: int) -> str:
    """A table's board against the field, its sides named as the table names them (Team A: its
    seats ① and ③, the score and the declaring side are in the line before): each side's
    percentage and how many other tables it is compared with, or that none has played it yet."""
    a, b = tr(lang, "team.0"), tr(lang, "team.1")
    if not others:
        return tr(lang, first, n=number, a=a, b=b)
    return tr(lang, compared, n=number, a=a, b=b, a_pct=f"{pct[0]:.0f}", b_pct=f"{pct[1]:.0f}", others=others)


# ----- posted to the chats that opted in -----

POLL_S = 300.0  # the poster looks again at least this often (a chat that opted in meanwhile)


def minute_of(clock: Clock) -> int:
    t = datetime.fromtimestamp(clock.now(), UTC)
    return t.hour * 60 + t.minute


def next_due(now: float, at_minute: int) -> float:
    """The next moment (on or after `now`) that is `at_minute` past midnight UTC."""
    t = datetime.fromtimestamp(now, UTC)
    at = datetime(t.year, t.month, t.day, tzinfo=UTC) + timedelta(minutes=at_minute)
    return at.timestamp() if at.timestamp() >= now else (at + timedelta(days=1)).timestamp()


async def post_due(desk: Desk) -> float:
    """Posts to every opted-in chat whose minute has come today and that has not had today's post (one
    worker wins each, `claim_daily_post`); the moment the next one comes due."""
    now = desk.ctx.clock.now()
    day = today(desk.ctx.clock)
    soonest = now + POLL_S
    for platform, chat_id, at_minute, posted in await desk.boards.daily_posts():
        if platform not in desk.ctx.platforms():
            continue
        if posted < day.isoformat() and minute_of(desk.ctx.clock) >= at_minute:
            if await desk.boards.claim_daily_post(platform, chat_id, day.isoformat()):
                await post_day(desk, Where(platform, chat_id), day)
            continue
        soonest = min(soonest, next_due(now, at_minute))
    return soonest


async def post_day(desk: Desk, where: Where, day: date) -> None:
    """The day's boards (how many, how to play them; never a card) and the day before's standings."""
    await desk.ctx.chats.load(where.platform, where.chat_id)
    lang = desk.ctx.chats.lang(where.platform, where.chat_id)
    rows = await day_boards(desk, day)
    await desk.ctx.say(where, tr(lang, "daily.posted", day=day.isoformat(), n=len(rows)) + "\n" +
                       tr(lang, "daily.how"))
    text, png = await standings_reply(desk, lang, week=False, day=day - timedelta(days=1))
    await desk.ctx.say(where, text, [("daily.png", png)] if png is not None else [])
