"""Chat settings and the words every chat has without a table: `lang`, `rules`, `help`, and `start`
in a private chat (a deep link to a table's lobby, or a greeting)."""

from __future__ import annotations

from collections.abc import Sequence

from bot.commands import Arg, Call, Choice, Command, Text
from bot.feature import Context, Feature
from bot.i18n import LANGS, N_, normalize_lang, tr
from bot.platform import Incoming
from bot.table.messages import ChatLanguage, Event, SeatLanguage
from bot.views import rules_summary

JOIN_PAYLOAD = "join-"  # deep-link payload: join-<match id>


class ChatSettings(Feature):
    """`lang`, `rules`, `help` and a private `start`."""

    name = "settings"

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    def commands(self) -> Sequence[Command]:
        presets = Choice(self.ctx.presets(), open=True)
        return (
            Command("lang", N_("help.cmd.lang"), (Arg("language", N_("help.arg.lang.language"),
                                                      Choice(("zh", "zht", "en"), open=True)),),
                    handler=self.lang),
            Command("rules", N_("help.cmd.rules"), (Arg("preset", N_("help.arg.rules.preset"), presets),
                                                    Arg("all", N_("help.arg.rules.all"), Choice(("all",)))),
                    handler=self.rules),
            Command("help", N_("help.cmd.help"), (Arg("command", N_("help.arg.help.command"), Text(40)),),
                    handler=self.help),
            Command("start", N_("help.cmd.start_private"), (Arg("payload", N_("help.arg.start.payload"), Text(64)),),
                    place="private", handler=self.private_start),
        )

    def help_text(self, lang: str, in_group: bool) -> str:
        return self.ctx.commands.help(lang, in_group, after=tr(lang, "help.play"))

    async def help(self, call: Call) -> None:
        """`help`: the commands of this place; `help <command>`: one command, its arguments and their ranges."""
        event, lang = call.event, call.lang
        in_group = self.ctx.in_group(event.where)
        asked = (call.args.text("command") or "").lower().lstrip("/")
        if asked:
            text = self.ctx.commands.usage(asked, lang, in_group)
            await self.ctx.post(event, text if text is not None else tr(lang, "help.no_such", name=asked[:20]))
            return
        await self.ctx.post(event, self.help_text(lang, in_group))

    async def private_start(self, call: Call) -> None:
        """`start <payload>` in a private chat: a deep link (join-<match id>), else a greeting with help."""
        event, lang = call.event, call.lang
        payload = call.args.text("payload") or ""
        tables = self.ctx.tables.seated(event.where.platform, event.user.user_id)
        if not payload.startswith(JOIN_PAYLOAD):
            seated = [t for t in tables if t.match is not None]
            waiting = [t for t in tables if t.status == "lobby" and t.meta.get("start_wanted")]
            for t in waiting:  # the start waited for them to open the bot: try it again
                t.submit(Event(_as(event, "join")))
            if not seated and not waiting:
                await self.ctx.post(event, self.help_text(lang, in_group=False))
            for t in seated:
                # Back after blocking the bot (or a cleared chat): the hand comes again as a new message
                # whose buttons are current, instead of the one from before.
                t.submit(Event(_as(event, "hand")))
            return
        try:
            mid = int(payload[len(JOIN_PAYLOAD):])
        except ValueError:
            mid = -1
        table = self.ctx.tables.get(mid)
        if table is None or table.platform_name != event.where.platform:
            await self.ctx.answer(event, tr(lang, "err.wrong_match"))
            return
        table.submit(Event(_as(event, "join")))

    async def lang(self, call: Call) -> None:
        """`lang xx`: privately the person's own language, in a group the chat's; tables are drawn anew."""
        event = call.event
        given = call.args.text("language")
        want = normalize_lang(given) if given else None
        if want is None or want not in LANGS:
            await self.ctx.answer(event, tr(call.lang, "lang.usage"))
            return
        if not event.where.private and event.extra.get("admin") == "0":
            # the platform said who administers the group: the group's language is theirs to choose
            await self.ctx.answer(event, tr(call.lang, "lang.admin_only"))
            return
        if event.where.private or self.ctx.one_screen(event.where):
            await self.ctx.chats.set_user_lang(event.user, want)
            for t in self.ctx.tables.seated(event.user.platform, event.user.user_id):
                t.submit(SeatLanguage(event.user.user_id, want))
        if not event.where.private:
            chats = self.ctx.chats
            chat = await chats.load(event.where.platform, event.where.chat_id)
            chat["lang"] = want
            await chats.save(event.where.platform, event.where.chat_id, chat)
            table = self.ctx.tables.in_chat(event.where.platform, event.where.chat_id)
            if table is not None:
                table.submit(ChatLanguage())
        await self.ctx.post(event, tr(want, "lang.set"))
        await self.ctx.language_chosen(event.where, want)

    async def rules(self, call: Call) -> None:
        """`rules [preset] [all]`: a preset's rules, else those of the chat's table."""
        event, lang = call.event, call.lang
        asked = call.args.text("preset")
        table = self.ctx.tables.in_chat(event.where.platform, event.where.chat_id)
        try:
            if asked:
                rules = self.ctx.preset(asked.lower()).to_dict()
            elif table is not None:
                rules = dict(table.rules)
            else:
                rules = self.ctx.preset("classic").to_dict()
        except (ValueError, KeyError):
            await self.ctx.answer(event, tr(lang, "new.bad_preset", preset=(asked or "")[:20],
                                            presets=", ".join(self.ctx.presets())))
            return
        if call.args.text("all") != "all":
            await self.ctx.post(event, rules_summary(rules, lang))
            return
        lines = [tr(lang, "rules.title", preset=rules.get("name", "?"))]
        lines += [f"{k} = {v}" for k, v in rules.items() if k != "name"]
        await self.ctx.post(event, "\n".join(lines))


def _as(event: Incoming, name: str) -> Incoming:
    """The person's event as another command of theirs (a deep link's `join`, a `hand` again)."""
    return Incoming("command", event.user, event.where, key=event.key, name=name, reply=event.reply,
                    extra=event.extra)
