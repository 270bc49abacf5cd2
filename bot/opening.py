"""Opening a table: the `new` command (its options, the chat's remembered timers, the match
format) and a series' next game, dealt to the same seats."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from bot.commands import Refusal
from bot.i18n import normalize_lang, tr
from bot.platform import Incoming, User
from bot.settings import (
    OptionError,
    check_options,
    parse_new_args,
    rule_overrides,
    settings_with,
    stored_timers,
)
from bot.table import Table
from bot.table.messages import Event
from bot.table.seats import SeatKind
from engine.formats import best_of_three_winner
from persistence.errors import ChatHasTable

if TYPE_CHECKING:
    from bot.host import Host

FORMATS = {"single": "single", "bo3": "best_of_3", "timed": "timed"}


def may_keep_timers(host: Host, event: Incoming) -> bool:
    """Whether timers given to `new` become the chat's own for its later tables: only a group admin's
    (or the one person at a terminal). Anyone else's hold for the table they open, and no longer,
    so that one member cannot leave a group's later tables waiting on a long timer."""
    return event.extra.get("admin") == "1" or host.one_screen(event.where)


async def new(host: Host, event: Incoming, args: tuple[str, ...], lang: str) -> None:
    """`new [preset] [options]`: a lobby for this chat, its creator seated."""
    if event.where.private and not host.one_screen(event.where):
        await host.answer(event, tr(lang, "new.in_group"))  # a table is a group's
        return
    key = (event.where.platform, event.where.chat_id)
    lock = host.chat_locks.setdefault(key, asyncio.Lock())
    async with lock:
        if key in host.by_chat:
            await host.answer(event, tr(lang, "new.exists", id=host.by_chat[key].id))
            return
        chat = await host.load_chat(*key)
        saved = chat.get("timers")
        remembered, notes = stored_timers(saved, lang)
        try:
            preset, rule_opts, table_opts = parse_new_args(args, host.presets())
            checked = check_options({**rule_opts, **table_opts}, lang)
            fmt = FORMATS[str(checked.pop("format", "single"))]
            settings = settings_with(host.defaults, {**remembered, **checked})
            rules = host.engine.preset(preset, **rule_overrides(checked))
        except Refusal as exc:
            await host.answer(event, exc.text(lang))
            return
        except OptionError as exc:
            await host.answer(event, tr(lang, "new.bad_option", option=exc.option[:40]))
            return
        except (ValueError, TypeError, KeyError) as exc:
            await host.answer(event, tr(lang, "new.bad_option", option=str(exc)[:80]))
            return
        kept = {k: str(v) for k, v in saved.items() if k in remembered} if isinstance(saved, dict) else {}
        if table_opts and may_keep_timers(host, event):
            kept = {**kept, **table_opts}
        if (kept or notes) and kept != saved:
            chat["timers"] = kept
            await host.store.set_chat(*key, chat)
        if "lang" not in chat:
            ulang = normalize_lang(event.user.language)
            if ulang:
                chat["lang"] = ulang
                await host.store.set_chat(*key, chat)
                lang = ulang
        seed = host.rng.randrange(1, 2**31)
        if fmt == "single" and rules.time_limit_minutes:
            fmt = "timed"
        meta = {"preset": preset, "creator": event.user.user_id, "creator_name": event.user.name[:32],
                "options": " ".join(args[1:] if args and "=" not in args[0] else args)[:200],
                "settings": settings.to_dict(), "format": fmt}
        if fmt == "best_of_3":
            meta["series"] = {"wins": [0, 0], "game": 1}
        seats: list[dict[str, Any]] = [{"kind": SeatKind.EMPTY} for _ in range(4)]
        try:
            # exclusive: another worker may have taken `new` for this chat at the same instant
            mid = await host.store.create_match(event.where.platform, event.where.chat_id, rules.to_dict(),
                                                seats, seed, meta, status="lobby", exclusive=True)
        except ChatHasTable as exc:
            await host.answer(event, tr(lang, "new.exists", id=exc.match_id))
            return
        deadlines: dict[str, float] = {}
        if settings.lobby > 0:
            deadlines["lobby"] = host.clock.now() + settings.lobby
            await host.store.set_deadline(mid, "lobby", deadlines["lobby"])
        table = Table(host, match_id=mid, platform=event.where.platform, chat_id=event.where.chat_id,
                      rules=rules.to_dict(), seats=seats, seed=seed, meta=meta, status="lobby",
                      deadlines=deadlines)
        host.add_table(table)
        await host.answer(event, "\n".join([tr(lang, "new.created", id=mid)]
                                           + [tr(lang, "new.saved_timer_ignored", reason=n) for n in notes]))
        table.submit(Event(Incoming("command", event.user, event.where, key="", name="join")))


async def next_in_series(host: Host, old: Table, result: dict[str, Any]) -> None:
    """Best of three: after a game, deal the next one to the same seats until a side has won two."""
    series = old.meta.get("series")
    winner = result.get("winner_team")
    if not isinstance(series, dict) or winner not in (0, 1):
        return
    wins = [int(w) for w in series.get("wins", [0, 0])]
    wins[int(winner)] += 1
    lang = old.lang
    names = {f"team{t}": tr(lang, f"team.{t}") for t in (0, 1)}
    if best_of_three_winner([0] * wins[0] + [1] * wins[1]) is not None:
        await old.say(tr(lang, "series.over", team=names[f"team{int(winner)}"], w0=wins[0], w1=wins[1]))
        return
    key = (old.platform_name, old.chat_id)
    if key in host.by_chat:
        return
    game = int(series.get("game", 1)) + 1
    meta = {**old.meta, "series": {"wins": wins, "game": game, "previous": old.id}}
    meta.pop("announced_hand", None)
    seats = [dict(seat) for seat in old.seats]
    seed = host.rng.randrange(1, 2**31)
    try:
        mid = await host.store.create_match(old.platform_name, old.chat_id, old.rules, seats, seed, meta,
                                            status="lobby", exclusive=True)
    except ChatHasTable:
        return  # someone opened a table here meanwhile (through another worker)
    table = Table(host, match_id=mid, platform=old.platform_name, chat_id=old.chat_id, rules=old.rules,
                  seats=seats, seed=seed, meta=meta, status="lobby")
    host.add_table(table)
    await table.say(tr(lang, "series.next", game=game, w0=wins[0], w1=wins[1], **names))
    starter = User(old.platform_name, str(meta.get("creator", "")), str(meta.get("creator_name", "")))
    table.submit(Event(Incoming("command", starter, table.where, key="", name="start")))
