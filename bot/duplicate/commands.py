"""The `board`, `daily` and `duplicate` commands, in every chat and at the terminal.

`board new|play|<id>`: a single board, another table on a stored one, or a
look at one you have played. `daily [play [ai]] | standings [week]`: the day's
boards. `duplicate new|room|join|ai|start|score|end` for a team match,
`duplicate pairs|table` for a pairs event. Nothing of a board's cards or
results is shown to anyone who has not been dealt it.

It runs past 400 lines because the three commands share the board lookups, the seats, rooms and
the event checks; what an event does as its boards are played is in `bot.duplicate.events`.
"""

from __future__ import annotations

from datetime import timedelta

from bot.cardtext import cards_text
from bot.commands import Number, Refusal
from bot.duplicate import daily, events
from bot.duplicate.events import ROOMS, TEAMS
from bot.duplicate.tables import (
    BOARD_PRESET,
    SOURCES,
    Desk,
    board_label,
    make_board,
    make_set,
    open_table,
    seen_text,
)
from bot.i18n import N_, normalize_lang, tr
from bot.platform import Incoming, User, Where
from bot.settings import AI_LEVELS, DEFAULT_AI_LEVEL
from bot.table.messages import Event
from engine.boards import board_cards, parse_board
from engine.cards import cards_str
from engine.text import rank_display
from persistence.board_store import BoardRow, EventRow

COMMANDS = ("board", "daily", "duplicate")
MAX_BOARDS = 16  # 002: boards come in sets of 16
BOARDS = Number(1, MAX_BOARDS, integer=True)
MINUTES = Number(0, 120, integer=True, unit="min")  # a board's time (0: no limit)
SEAT_NAMES = ("N", "W", "S", "E")
# keys built at run time (f"dup.room_{room}" ...), marked for `make messages`
RUNTIME_KEYS = (N_("dup.dir_NS"), N_("dup.dir_EW"), N_("dup.room_open"), N_("dup.room_closed"),
                N_("dup.team_home"), N_("dup.team_visitors"), N_("board.source_marked"), N_("board.source_bid"),
                N_("board.source_drawn"), N_("reason.board"))
LINE, LINE_PLAYED = N_("daily.line"), N_("daily.line_played")


def _options(args: tuple[str, ...], presets: tuple[str, ...]) -> tuple[dict[str, str], list[str]]:
    opts: dict[str, str] = {}
    rest: list[str] = []
    for a in args:
        if "=" in a:
            k, _, v = a.partition("=")
            opts[k.lower()] = v.lower()
        elif a.lower() in presets:
            opts["preset"] = a.lower()
        else:
            rest.append(a.lower())
    return opts, rest


async def command(desk: Desk, event: Incoming, name: str, args: tuple[str, ...], lang: str) -> None:
    sub = args[0].lower() if args else ""
    if sub in ("new", "play", "pairs", "room", "table", "post"):
        lang = await _adopt_lang(desk, event, lang)
    rest = args[1:]
    if name == "board":
        await _board(desk, event, sub, rest, lang)
    elif name == "daily":
        await _daily(desk, event, sub, rest, lang)
    else:
        await _duplicate(desk, event, sub, rest, lang)


async def _adopt_lang(desk: Desk, event: Incoming, lang: str) -> str:
    """A chat's first table takes its language from the person who opens it (as `new` does)."""
    ctx = desk.ctx
    if not ctx.in_group(event.where):
        return lang
    chat = await ctx.chats.load(event.where.platform, event.where.chat_id)
    ulang = normalize_lang(event.user.language)
    if "lang" not in chat and ulang:
        chat["lang"] = ulang
        await ctx.chats.save(event.where.platform, event.where.chat_id, chat)
        await ctx.language_chosen(event.where, ulang)
        return ulang
    return lang


def _group_or_terminal(desk: Desk, event: Incoming) -> bool:
    return desk.ctx.in_group(event.where)


def _seat_of(user: User) -> dict[str, object]:
    return {"kind": "human", "user_id": user.user_id, "name": user.name[:32], "away": False, "timeouts": 0}


async def _open_here(desk: Desk, event: Incoming, board: BoardRow, lang: str, *, ai: bool) -> None:
    """A lobby on `board` in this chat with the asker seated; `ai` (or a terminal) fills the rest and deals."""
    if desk.ctx.tables.in_chat(event.where.platform, event.where.chat_id) is not None:
        await desk.ctx.answer(event, tr(lang, "board.table_open"))
        return
    seen = await desk.boards.seen_where([board.id], event.user.platform, [event.user.user_id])
    if seen:
        await desk.ctx.answer(event, seen_text(lang, board_label(board, lang),
                                               [(event.user.name[:32], seen[event.user.user_id])]))
        return
    fill = ai or desk.ctx.one_screen(event.where)
    seats: list[dict[str, object]] = [{"kind": "empty"} for _ in range(4)]
    seats[0] = _seat_of(event.user)
    if fill:
        for s in (1, 2, 3):
            seats[s] = {"kind": "ai", "name": f"AI-{s + 1}", "level": "basic"}
    await desk.ctx.chats.set_user_lang(event.user, None)
    table = await open_table(desk, event.where, board, seats, starter=event.user, autostart=fill)
    if table is None:
        await desk.ctx.answer(event, tr(lang, "board.table_open"))
        return
    await desk.ctx.post(event, tr(lang, N_("board.opened_filled") if fill else N_("board.opened"),
                                  board=board_label(board, lang), id=table.id))


# ----- board -----

async def _board(desk: Desk, event: Incoming, sub: str, rest: tuple[str, ...], lang: str) -> None:
    if sub == "new":
        if not _group_or_terminal(desk, event):
            await desk.ctx.answer(event, tr(lang, "err.no_match"))
            return
        opts, _ = _options(rest, desk.ctx.presets())
        source = opts.get("trump", "drawn")
        base = opts.get("preset", BOARD_PRESET)
        if source not in SOURCES or base not in desk.ctx.presets():
            await desk.ctx.answer(event, tr(lang, "board.usage"))
            return
        key = f"{event.where.platform}:{event.where.chat_id}"
        number = len(await desk.boards.set_boards("single", key)) + 1
        new = make_board(desk.ctx.rng.randrange(1, 2**31), number, source, base, None, desk.ctx.rng.randrange(4))
        stored = await desk.boards.add_boards("single", key, [new.row()])
        await _open_here(desk, event, stored[-1], lang, ai="ai" in rest)
    elif sub == "play":
        board = await _find(desk, event, rest, lang)
        if board is not None and _group_or_terminal(desk, event):
            await _open_here(desk, event, board, lang, ai="ai" in rest[1:])
    elif sub.isdigit() or sub == "show":
        board = await _find(desk, event, (sub,) if sub.isdigit() else rest, lang)
        if board is not None:
            await _show(desk, event, board, lang)
    else:
        await desk.ctx.post(event, tr(lang, "board.usage"))


async def _find(desk: Desk, event: Incoming, rest: tuple[str, ...], lang: str) -> BoardRow | None:
    text = rest[0].lstrip("#") if rest else ""
    board = await desk.boards.board(int(text)) if text.isdigit() and len(text) < 12 else None
    if board is None:
        await desk.ctx.answer(event, tr(lang, "board.unknown", id=text[:12] or "?"))
    return board


def board_text(board: BoardRow, lang: str) -> str:
    """The whole board, for someone who has played it: who dealt, the level, trump, the four hands, the kitty."""
    spec = parse_board(board.spec)
    cards = board_cards(board.seed, spec.dealer)
    trump = tr(lang, "board.trump_bid") if spec.trump is None else (
        "NT" if spec.trump == 4 else "♠♥♦♣"[spec.trump])
    lines = [tr(lang, "board.header", board=board_label(board, lang), dealer=SEAT_NAMES[spec.dealer],
                level=rank_display(spec.level), trump=trump, source=tr(lang, f"board.source_{board.source}"))]
    if board.drawn:
        lines.append(tr(lang, "board.drawn", cards=cards_text(board.drawn.split())))
    for s in range(4):
        lines.append(f"{SEAT_NAMES[s]}: " + cards_text(cards_str(sorted(cards.hands[s], reverse=True))))
    lines.append(tr(lang, "board.kitty", cards=cards_text(cards_str(sorted(cards.kitty, reverse=True)))))
    return "\n".join(lines)


async def _show(desk: Desk, event: Incoming, board: BoardRow, lang: str) -> None:
    """Played it: the board and every table's result, privately. Not yet: only that it exists."""
    store = desk.boards
    if not await store.has_seen(board.id, event.user.platform, event.user.user_id):
        await desk.ctx.answer(event, tr(lang, "board.not_yet", board=board_label(board, lang), id=board.id))
        return
    plays = await store.plays([board.id])
    lines = [board_text(board, lang), tr(lang, "board.results", n=len(plays))]
    for p in plays:
        names = ", ".join(str(s.get("name", "?")) for s in p.seats)
        if p.status == "done":
            lines.append(tr(lang, "board.result_line", id=p.match_id, names=names, points=p.defender_points))
        else:
            lines.append(tr(lang, "board.result_open", id=p.match_id, names=names))
    text = "\n".join(lines)
    where = event.where if event.where.private or desk.ctx.one_screen(event.where) else Where(
        event.user.platform, event.user.user_id, private=True)
    if not await desk.ctx.say(where, text):
        await desk.ctx.answer(event, tr(lang, "board.cannot_send"))
        return
    if where != event.where:
        await desk.ctx.answer(event, tr(lang, "board.sent_privately"))


# ----- daily -----

async def _daily(desk: Desk, event: Incoming, sub: str, rest: tuple[str, ...], lang: str) -> None:
    if sub == "standings":
        await _standings(desk, event, rest, lang)
        return
    if sub == "post":
        await _post(desk, event, rest, lang)
        return
    rows = await daily.day_boards(desk, daily.today(desk.ctx.clock))
    store = desk.boards
    if sub == "play":
        if not _group_or_terminal(desk, event):
            await desk.ctx.answer(event, tr(lang, "err.no_match"))
            return
        wanted = [a for a in rest if a.isdigit()]
        seen = {b.id for b in rows if await store.seen_any([b.id], event.user.platform, [event.user.user_id])}
        if wanted:
            pick = next((b for b in rows if str(b.number) == wanted[0]), None)
        else:
            pick = next((b for b in rows if b.id not in seen), None)
        if pick is None:
            await desk.ctx.answer(event, tr(lang, "daily.all_played") if not wanted else
                              tr(lang, "board.unknown", id=wanted[0][:4]))
            return
        await _open_here(desk, event, pick, lang, ai="ai" in rest)
        return
    plays = await store.plays([b.id for b in rows])
    lines = [tr(lang, "daily.title", day=daily.today(desk.ctx.clock).isoformat(), n=len(rows))]
    for b in rows:
        played = sum(1 for p in plays if p.board_id == b.id and p.status == "done")
        mine = await store.has_seen(b.id, event.user.platform, event.user.user_id)
        key = LINE_PLAYED if mine else LINE
        lines.append(tr(lang, key, n=b.number, tables=played))
    lines.append(tr(lang, "daily.how"))
    await desk.ctx.post(event, "\n".join(lines))


async def _standings(desk: Desk, event: Incoming, rest: tuple[str, ...], lang: str) -> None:
    """Yesterday's standings (or the week's up to yesterday) for anyone; today's only privately, to
    someone who has played all of today's boards: they are results of boards others may still play."""
    day = daily.today(desk.ctx.clock)
    where = event.where
    if "today" in rest:
        rows = await daily.day_boards(desk, day)
        left = [b for b in rows if not await desk.boards.has_seen(b.id, event.user.platform, event.user.user_id)]
        if left:
            await desk.ctx.answer(event, tr(lang, "daily.standings_play_first", n=len(left)))
            return
        if not where.private and not desk.ctx.one_screen(where):
            where = Where(event.user.platform, event.user.user_id, private=True)
    else:
        day -= timedelta(days=1)
    text, png = await daily.standings_reply(desk, lang, week="week" in rest, day=day)
    files = [("daily.png", png)] if png is not None else []
    if where == event.where:  # the answer where it was asked
        await desk.ctx.post(event, text, files)
        return
    if not await desk.ctx.say(where, text, files):
        await desk.ctx.answer(event, tr(lang, "board.cannot_send"))
        return
    if where != event.where:
        await desk.ctx.answer(event, tr(lang, "board.sent_privately"))


async def _post(desk: Desk, event: Incoming, rest: tuple[str, ...], lang: str) -> None:
    """`daily post HH:MM` (UTC): this group gets each day's boards at that time, and the day before's
    standings; `daily post off` stops it; `daily post` says what is set."""
    where = event.where
    if where.private or desk.ctx.one_screen(where):
        await desk.ctx.answer(event, tr(lang, "daily.post_group"))
        return
    mine = next((p for p in await desk.boards.daily_posts() if p[:2] == (where.platform, where.chat_id)), None)
    if not rest:
        await desk.ctx.post(event, tr(lang, "daily.post_off") if mine is None else
                            tr(lang, "daily.post_on", at=f"{mine[2] // 60:02d}:{mine[2] % 60:02d}"))
        return
    if event.extra.get("admin") == "0":  # the platform says this person is no admin of the group
        await desk.ctx.answer(event, tr(lang, "daily.post_admins"))
        return
    word = rest[0].lower()
    if word == "off":
        await desk.boards.set_daily_post(where.platform, where.chat_id, None, "")
        await desk.ctx.post(event, tr(lang, "daily.post_off"))
        return
    hh, _, mm = word.partition(":")
    if not (hh.isdigit() and mm.isdigit() and len(mm) == 2 and int(hh) < 24 and int(mm) < 60):
        await desk.ctx.answer(event, tr(lang, "daily.post_usage"))
        return
    at = int(hh) * 60 + int(mm)
    day = daily.today(desk.ctx.clock)
    done = day if daily.minute_of(desk.ctx.clock) >= at else day - timedelta(days=1)  # the first post is the next
    await desk.boards.set_daily_post(where.platform, where.chat_id, at, done.isoformat())
    await desk.ctx.post(event, tr(lang, "daily.post_on", at=f"{at // 60:02d}:{at % 60:02d}"))


# ----- duplicate -----

async def _admin(desk: Desk, event: Incoming, ev: EventRow) -> bool:
    return bool(event.extra.get("admin") == "1" or ev.state.get("creator") == event.user.user_id)


async def _event_here(desk: Desk, event: Incoming) -> EventRow | None:
    """The chat's open event: the one it created, or the one it is a room or table of."""
    w = event.where
    for ev in await desk.boards.all_open_events():
        if ev.platform == w.platform and ev.chat_id == w.chat_id:
            return ev
        if ev.kind == "team" and any(events.room_where(ev, r) == w for r in ROOMS if r in ev.state["rooms"]):
            return ev
        if ev.kind == "pairs" and any(t["platform"] == w.platform and t["chat_id"] == w.chat_id
                                      for t in ev.state.get("tables", [])):
            return ev
    return None


def _room_here(ev: EventRow, where: Where) -> str | None:
    if "closed" in ev.state["rooms"] and events.room_where(ev, "closed") == where and not events.one_chat(ev):
        return "closed"
    if events.room_where(ev, "open") == where:
        return "open"
    return None


async def _duplicate(desk: Desk, event: Incoming, sub: str, rest: tuple[str, ...], lang: str) -> None:
    if not _group_or_terminal(desk, event):
        await desk.ctx.answer(event, tr(lang, "dup.in_group"))
        return
    store = desk.boards
    if sub in ("new", "pairs"):
        if await _event_here(desk, event) is not None:
            await desk.ctx.answer(event, tr(lang, "dup.exists"))
            return
        opts, _ = _options(rest, desk.ctx.presets())
        try:
            count = int(BOARDS.check(f"boards={opts.get('boards', '4')}", "boards", opts.get("boards", "4"), lang))
            minutes = int(MINUTES.check(f"minutes={opts.get('minutes', '12')}", "minutes",
                                        opts.get("minutes", "12"), lang))
        except Refusal as exc:  # what did not fit and the range it takes, then how to type it
            await desk.ctx.answer(event, exc.text(lang) + "\n" + tr(lang, "dup.usage"))
            return
        source = opts.get("trump", "marked")
        base = opts.get("preset", BOARD_PRESET)
        if source not in SOURCES:
            await desk.ctx.answer(event, tr(lang, "dup.usage"))
            return
        here = {"platform": event.where.platform, "chat_id": event.where.chat_id}
        state: dict[str, object] = {"creator": event.user.user_id, "creator_name": event.user.name[:32],
                                 "minutes": minutes, "source": source, "preset": base, "count": count}
        if sub == "new":
            state["rooms"] = {"open": here}
            state["teams"] = {t: {"name": "", "open": [], "closed": []} for t in TEAMS}
        else:
            state["tables"] = [here]
        eid = await store.create_event("team" if sub == "new" else "pairs", event.where.platform,
                                       event.where.chat_id, state)
        made = make_set(desk, count, source, base, minutes or None)
        rows = await store.add_boards("event", str(eid), [b.row() for b in made])
        if sub == "pairs":
            await store.save_event(eid, "playing", state)
            seats: list[dict[str, object]] = [{"kind": "empty"} for _ in range(4)]
            await open_table(desk, event.where, rows[0], seats, starter=event.user, event_id=eid)
            await desk.ctx.post(event, tr(lang, "dup.pairs_created", id=eid, boards=count))
            table = desk.ctx.tables.in_chat(event.where.platform, event.where.chat_id)
            if table is not None:
                table.submit(Event(Incoming("command", event.user, event.where, key="", name="join")))
            return
        await desk.ctx.post(event, tr(lang, "dup.created", id=eid, boards=count, minutes=minutes))
        return
    ev = await _event_here(desk, event)
    if sub in ("room", "table"):
        text = rest[0].lstrip("#") if rest else ""
        target = await store.event(int(text)) if text.isdigit() and len(text) < 12 else None
        if target is None or target.status not in ("forming", "playing"):
            await desk.ctx.answer(event, tr(lang, "dup.unknown", id=text[:12] or "?"))
            return
        if ev is not None:
            await desk.ctx.answer(event, tr(lang, "dup.exists"))
            return
        here = {"platform": event.where.platform, "chat_id": event.where.chat_id}
        if sub == "room" and target.kind == "team" and target.status == "forming":
            target.state["rooms"]["closed"] = here
            await store.save_event(target.id, target.status, target.state)
            await desk.ctx.post(event, tr(lang, "dup.room_linked", id=target.id))
        elif sub == "table" and target.kind == "pairs":
            target.state.setdefault("tables", []).append(here)
            await store.save_event(target.id, target.status, target.state)
            rows = await events.event_boards(desk, target)
            await open_table(desk, event.where, rows[0], [{"kind": "empty"} for _ in range(4)],
                             starter=event.user, event_id=target.id)
            await desk.ctx.post(event, tr(lang, "dup.table_linked", id=target.id))
            table = desk.ctx.tables.in_chat(event.where.platform, event.where.chat_id)
            if table is not None:
                table.submit(Event(Incoming("command", event.user, event.where, key="", name="join")))
        else:
            await desk.ctx.answer(event, tr(lang, "dup.usage"))
        return
    if ev is None:
        if sub in ("", "help"):
            await desk.ctx.post(event, tr(lang, "dup.usage"))
        else:
            await desk.ctx.answer(event, tr(lang, "dup.none"))
        return
    if sub == "join" and ev.kind == "team":
        await _join(desk, event, ev, rest, lang)
    elif sub == "ai" and ev.kind == "team" and ev.status == "forming":
        teams = [t for t in TEAMS if t in rest] or list(TEAMS)
        level = next((a for a in rest if a in AI_LEVELS), DEFAULT_AI_LEVEL)
        for room in ROOMS:
            for team in teams:
                players = ev.state["teams"][team][room]
                while len(players) < 2:
                    players.append({"kind": "ai", "name": f"AI-{team[0].upper()}{room[0]}{len(players) + 1}",
                                    "level": level})
        await store.save_event(ev.id, ev.status, ev.state)
        await desk.ctx.post(event, _teams_text(lang, ev))
    elif sub == "name" and ev.kind == "team" and ev.status == "forming" and len(rest) >= 2 and rest[0] in TEAMS:
        ev.state["teams"][rest[0]]["name"] = " ".join(rest[1:])[:24]
        await store.save_event(ev.id, ev.status, ev.state)
        await desk.ctx.post(event, _teams_text(lang, ev))
    elif sub == "start" and ev.kind == "team" and ev.status == "forming":
        missing = sum(2 - len(ev.state["teams"][t][r]) for t in TEAMS for r in ROOMS)
        if missing:
            await desk.ctx.answer(event, tr(lang, "dup.need_players", n=missing))
            return
        if events.one_chat(ev) and all(events.has_people(ev, r) for r in ROOMS):
            await desk.ctx.answer(event, tr(lang, "dup.need_two_chats"))
            return
        for w in events._chats(ev):
            if desk.ctx.tables.in_chat(w.platform, w.chat_id) is not None:
                await desk.ctx.answer(event, tr(lang, "board.table_open"))
                return
        await desk.ctx.post(event, tr(lang, "dup.started", id=ev.id) + "\n" + _teams_text(lang, ev))
        await events.start(desk, ev)
    elif sub in ("score", "") and ev.kind == "team":
        rows = await events.event_boards(desk, ev)
        plays = await store.plays([b.id for b in rows])
        await desk.ctx.post(event, _teams_text(lang, ev) + "\n" + events.score_text(lang, ev, rows, plays))
    elif sub in ("score", "") and ev.kind == "pairs":
        rows = await events.event_boards(desk, ev)
        plays = await store.plays([b.id for b in rows])
        if ev.status != "done":  # while it runs: only the boards this chat's table has played (docs/duplicate.md)
            asked = (event.where.platform, event.where.chat_id)
            done = {p.board_id for p in plays if (p.platform, p.chat_id) == asked and p.status == "done"}
            rows = [b for b in rows if b.id in done]
            plays = [p for p in plays if p.board_id in done]
        await desk.ctx.post(event, events.pairs_text(lang, ev, rows, plays))
    elif sub == "end":
        if not await _admin(desk, event, ev):
            await desk.ctx.answer(event, tr(lang, "dup.not_allowed"))
            return
        await store.save_event(ev.id, "abandoned", ev.state)
        await desk.ctx.post(event, tr(lang, "dup.abandoned", id=ev.id))
    else:
        await desk.ctx.post(event, tr(lang, "dup.usage"))


async def _join(desk: Desk, event: Incoming, ev: EventRow, rest: tuple[str, ...], lang: str) -> None:
    team = rest[0].lower() if rest else ""
    room = _room_here(ev, event.where)
    if team not in TEAMS or room is None:
        await desk.ctx.answer(event, tr(lang, "dup.usage"))
        return
    if ev.status != "forming":
        await desk.ctx.answer(event, tr(lang, "join.not_lobby"))
        return
    teams = ev.state["teams"]
    if any(p.get("user_id") == event.user.user_id for t in TEAMS for r in ROOMS for p in teams[t][r]):
        await desk.ctx.answer(event, tr(lang, "dup.already"))
        return
    players = teams[team][room]
    if len(players) >= 2:
        await desk.ctx.answer(event, tr(lang, "join.full"))
        return
    players.append(_seat_of(event.user))
    await desk.ctx.chats.set_user_lang(event.user, None)
    await desk.boards.save_event(ev.id, ev.status, ev.state)
    await desk.ctx.post(event, _teams_text(lang, ev))


def _teams_text(lang: str, ev: EventRow) -> str:
    names = events.team_names(lang, ev)
    lines = [tr(lang, "dup.teams_title", id=ev.id)]
    for team in TEAMS:
        parts = []
        for room in ROOMS:
            people = ", ".join(str(p.get("name", "?")) for p in ev.state["teams"][team][room]) or "—"
            parts.append(tr(lang, f"dup.room_{room}") + ": " + people)
        lines.append(f"{names[team]} — " + " · ".join(parts))
    return "\n".join(lines)
