"""Opening a table: the `new` command (its options, the chat's remembered timers, the match format)
and a series' next game, dealt to the same seats."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from bot.commands import Arg, Call, Choice, Command, Options
from bot.feature import Context, Feature, NewTable, TableView
from bot.i18n import N_, normalize_lang, tr
from bot.platform import Incoming, User
from bot.settings import NEW_OPTIONS, SETTING_NAMES, rule_overrides, settings_with, stored_timers
from bot.table.messages import Event
from bot.table.seats import SeatKind
from engine.formats import best_of_three_winner
from persistence.errors import ChatHasTable

FORMATS = {"single": "single", "bo3": "best_of_3", "timed": "timed"}


def may_keep_timers(ctx: Context, event: Incoming) -> bool:
    """Whether timers given to `new` become the chat's own for its later tables: only a group admin's
    (or the one person at a terminal). Anyone else's hold for the table they open, and no longer,
    so that one member cannot leave a group's later tables waiting on a long timer."""
    return event.extra.get("admin") == "1" or ctx.one_screen(event.where)


class Opening(Feature):
    """`new`, and a best-of-three's next game."""

    name = "opening"

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    def commands(self) -> Sequence[Command]:
        return (Command("new", N_("help.cmd.new"), (
            Arg("preset", N_("help.arg.new.preset"), Choice(self.ctx.presets(), open=True)),
            Arg("options", N_("help.arg.new.options"), Options(NEW_OPTIONS, others=True)),
        ), place="group", wrong_place=N_("new.in_group"), handler=self.new),)

    async def new(self, call: Call) -> None:
        """`new [preset] [options]`: a lobby for this chat, its creator seated."""
        ctx, event, lang = self.ctx, call.event, call.lang
        where = event.where
        preset = (call.args.text("preset") or "classic").lower()
        if preset not in ctx.presets():
            await ctx.answer(event, tr(lang, "new.bad_option", option=preset[:40]))
            return
        async with ctx.chats.lock(where.platform, where.chat_id):
            table = ctx.tables.in_chat(where.platform, where.chat_id)
            if table is not None:
                await ctx.answer(event, tr(lang, "new.exists", id=table.id))
                return
            chat = await ctx.chats.load(where.platform, where.chat_id)
            saved = chat.get("timers")
            remembered, notes = stored_timers(saved, lang)
            options = dict(call.args.options("options"))
            fmt = FORMATS[str(options.pop("format", "single"))]
            try:
                settings = settings_with(ctx.defaults, {**remembered, **options})
                rules = ctx.preset(preset, **rule_overrides(options))
            except (ValueError, TypeError, KeyError) as exc:
                await ctx.answer(event, tr(lang, "new.bad_option", option=str(exc)[:80]))
                return
            typed = {k: v for k, _, v in (w.partition("=") for w in call.words) if k.lower() in SETTING_NAMES}
            kept = {str(k): str(v) for k, v in saved.items() if k in remembered} if isinstance(saved, dict) else {}
            if typed and may_keep_timers(ctx, event):
                kept = {**kept, **{k.lower(): v for k, v in typed.items()}}
            if (kept or notes) and kept != saved:
                chat["timers"] = dict(kept)
                await ctx.chats.save(where.platform, where.chat_id, chat)
            if "lang" not in chat:  # a chat's first table takes its language from the person who opens it
                ulang = normalize_lang(event.user.language)
                if ulang:
                    chat["lang"] = ulang
                    await ctx.chats.save(where.platform, where.chat_id, chat)
                    await ctx.language_chosen(where, ulang)
                    lang = ulang
            if fmt == "single" and rules.time_limit_minutes:
                fmt = "timed"
            words = call.words
            meta: dict[str, object] = {
                "preset": preset, "creator": event.user.user_id, "creator_name": event.user.name[:32],
                "options": " ".join(words[1:] if words and "=" not in words[0] else words)[:200],
                "settings": settings.to_dict(), "format": fmt}
            if fmt == "best_of_3":
                meta["series"] = {"wins": [0, 0], "game": 1}
            seats: list[dict[str, object]] = [{"kind": SeatKind.EMPTY} for _ in range(4)]
            try:
                # exclusive: another worker may have taken `new` for this chat at the same instant
                table = await ctx.open_table(NewTable(where, rules.to_dict(), seats, ctx.rng.randrange(1, 2**31),
                                                      meta, lobby=settings.lobby, exclusive=True))
            except ChatHasTable as exc:
                await ctx.answer(event, tr(lang, "new.exists", id=exc.match_id))
                return
            await ctx.answer(event, "\n".join([tr(lang, "new.created", id=table.id)]
                                              + [tr(lang, "new.saved_timer_ignored", reason=n) for n in notes]))
            table.submit(Event(Incoming("command", event.user, event.where, key="", name="join")))

    async def match_ended(self, table: TableView, result: Mapping[str, object]) -> bool:
        await self.next_in_series(table, result)
        return False

    async def next_in_series(self, old: TableView, result: Mapping[str, object]) -> None:
        """Best of three: after a game, deal the next one to the same seats until a side has won two."""
        series = old.meta.get("series")
        winner = result.get("winner_team")
        if not isinstance(series, dict) or winner not in (0, 1):
            return
        won = int(str(winner))
        wins = [int(w) for w in series.get("wins", [0, 0])]
        wins[won] += 1
        lang = old.lang
        names = {f"team{t}": tr(lang, f"team.{t}") for t in (0, 1)}
        if best_of_three_winner([0] * wins[0] + [1] * wins[1]) is not None:
            await old.say(tr(lang, "series.over", team=names[f"team{won}"], w0=wins[0], w1=wins[1]))
            return
        if self.ctx.tables.in_chat(old.platform_name, old.chat_id) is not None:
            return
        game = int(series.get("game", 1)) + 1
        meta = {**old.meta, "series": {"wins": wins, "game": game, "previous": old.id}}
        meta.pop("announced_hand", None)
        seats: list[dict[str, object]] = [dict(seat) for seat in old.seats]
        try:
            table = await self.ctx.open_table(NewTable(old.where, dict(old.rules), seats,
                                                       self.ctx.rng.randrange(1, 2**31), meta, exclusive=True))
        except ChatHasTable:
            return  # someone opened a table here meanwhile (through another worker)
        await table.say(tr(lang, "series.next", game=game, w0=wins[0], w1=wins[1], **names))
        starter = User(old.platform_name, str(meta.get("creator", "")), str(meta.get("creator_name", "")))
        table.submit(Event(Incoming("command", starter, table.where, key="", name="start")))
