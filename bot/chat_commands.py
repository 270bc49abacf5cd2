"""The host's own commands, answered without a table: `lang`, `rules`, and `start` in a
private chat (a deep link to a table's lobby)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.i18n import normalize_lang, tr
from bot.platform import Incoming
from bot.table.messages import ChatLanguage, Event, SeatLanguage
from bot.views import rules_summary

if TYPE_CHECKING:
    from bot.host import Host

JOIN_PAYLOAD = "join-"  # deep-link payload: join-<match id>


async def private_start(host: Host, event: Incoming, args: tuple[str, ...], lang: str) -> None:
    """`start <payload>` in a private chat: a deep link (join-<match id>), else a greeting with help."""
    payload = args[0] if args else ""
    if not payload.startswith(JOIN_PAYLOAD):
        seated = [t for t in host.tables.values() if t.platform_name == event.where.platform
                  and t.match is not None and t.seat_of(event.user.user_id) is not None]
        waiting = [t for t in host.tables.values() if t.platform_name == event.where.platform
                   and t.status == "lobby" and t.meta.get("start_wanted") and t.seat_of(event.user.user_id) is not None]
        for t in waiting:  # the start waited for them to open the bot: try it again
            t.submit(Event(Incoming("command", event.user, event.where, key=event.key, name="join",
                                    reply=event.reply, extra=event.extra)))
        if not seated and not waiting:
            await host.post(event, tr(lang, "help.text"))
        for t in seated:
            # Back after blocking the bot (or a cleared chat): the hand comes again as a new message
            # whose buttons are current, instead of the one from before.
            t.submit(Event(Incoming("command", event.user, event.where, key=event.key, name="hand",
                                    reply=event.reply, extra=event.extra)))
        return
    try:
        mid = int(payload[len(JOIN_PAYLOAD):])
    except ValueError:
        mid = -1
    table = host.tables.get(mid)
    if table is None or table.platform_name != event.where.platform:
        await host.answer(event, tr(lang, "err.wrong_match"))
        return
    join = Incoming("command", event.user, event.where, key=event.key, name="join", reply=event.reply,
                    extra=event.extra)
    table.submit(Event(join))


async def lang(host: Host, event: Incoming, args: tuple[str, ...], lang: str) -> None:
    """`lang xx`: privately the person's own language, in a group the chat's; tables are drawn anew."""
    want = normalize_lang(args[0]) if args else None
    if want is None:
        await host.answer(event, tr(lang, "lang.usage"))
        return
    if not event.where.private and event.extra.get("admin") == "0":
        # the platform said who administers the group: the group's language is theirs to choose
        await host.answer(event, tr(lang, "lang.admin_only"))
        return
    if event.where.private or host.one_screen(event.where):
        host.user_langs[(event.user.platform, event.user.user_id)] = want
        await host.store.upsert_player(event.user.platform, event.user.user_id, event.user.name, want)
        for t in host.tables.values():
            if t.platform_name == event.user.platform and t.seat_of(event.user.user_id) is not None:
                t.submit(SeatLanguage(event.user.user_id, want))
    if not event.where.private:
        chat = await host.load_chat(event.where.platform, event.where.chat_id)
        chat["lang"] = want
        await host.store.set_chat(event.where.platform, event.where.chat_id, chat)
        table = host.by_chat.get((event.where.platform, event.where.chat_id))
        if table is not None:
            table.submit(ChatLanguage())
    await host.post(event, tr(want, "lang.set"))


async def rules(host: Host, event: Incoming, args: tuple[str, ...], lang: str) -> None:
    """`rules [preset]`: a preset's rules, else those of the chat's table."""
    table = host.by_chat.get((event.where.platform, event.where.chat_id))
    try:
        if args:
            rules = host.engine.preset(args[0].lower()).to_dict()
        elif table is not None:
            rules = table.rules
        else:
            rules = host.engine.preset("classic").to_dict()
    except (ValueError, KeyError):
        await host.answer(event, tr(lang, "new.bad_preset", preset=args[0][:20], presets=", ".join(host.presets())))
        return
    if args[1:2] != ("all",):
        await host.post(event, rules_summary(rules, lang))
        return
    lines = [tr(lang, "rules.title", preset=rules.get("name", "?"))]
    lines += [f"{k} = {v}" for k, v in rules.items() if k != "name"]
    await host.post(event, "\n".join(lines))
