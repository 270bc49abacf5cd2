"""What a table says in the group as the match moves: the events that matter, declarations,
hand and match results (never a card that is still in a hand)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from bot.cardtext import cards_text, suit_text
from bot.i18n import tr
from bot.scene.build import summary_of
from bot.scene.text import summary_text
from bot.views import last_trick_text, match_result_text, seat_label
from engine.actions import Action, Bury, Revolt
from engine.match import Event

if TYPE_CHECKING:
    from bot.table.actor import Table


async def action_done(table: Table, action: Action, events: list[Event]) -> None:
    """After an accepted action: its events, a burial or revolution, a new declaration."""
    await _events(table, events)
    lang = table.lang
    if isinstance(action, Bury):
        await table.say(tr(lang, "announce.buried", who=seat_label(action.seat, table.seats.infos(), lang)))
    elif isinstance(action, Revolt):
        await table.say(tr(lang, "announce.revolt", who=seat_label(action.seat, table.seats.infos(), lang)))
    decl = table.public().get("declaration")
    if decl and decl != table.last_declaration:
        await table.say(tr(lang, "announce.declared", who=seat_label(int(decl["seat"]), table.seats.infos(), lang),
                           cards=cards_text(list(decl.get("cards", [])))))
    table.last_declaration = decl


async def _events(table: Table, events: list[Event]) -> None:
    lang = table.lang
    for e in events:
        kind = e.get("e")
        if kind == "throw_failed":
            await table.say(tr(lang, "announce.throw_failed", who=seat_label(int(e["seat"]), table.seats.infos(), lang),
                               cards=cards_text(list(e.get("played", []))), penalty=e.get("penalty", 0)))
        elif kind == "trump" and e.get("from_kitty"):
            trump = e.get("trump")
            shown = tr(lang, "table.no_trump") if trump == "NT" else suit_text(trump)
            await table.say(tr(lang, "announce.trump_kitty", trump=shown))
        elif kind == "chao":
            await table.say(tr(lang, "announce.chao", who=seat_label(int(e["seat"]), table.seats.infos(), lang),
                               cards=cards_text(list(e.get("cards", [])))))
        elif kind == "time_up":
            await table.say(tr(lang, "announce.time_up"))
        elif kind == "trick" and table.platform.one_screen:
            # a terminal shows each trick as it ends; chats have the table's "last trick" line
            # instead (a message per trick would run into Telegram's 20 a minute per group)
            pub = table.public()
            await table.say(tr(lang, "announce.trick", n=pub.get("tricks_played", "?"),
                               trick=last_trick_text(pub, table.seats.infos(), lang)))


async def hand_result(table: Table) -> None:
    """Once per finished hand: its result (remembered in meta, so a restart does not repeat it)."""
    m = table.game
    pub = table.public()
    res = pub.get("last_result")
    hand_no = int(pub.get("hand_no", 0))
    finished = hand_no if m.phase in ("hand_over", "match_over") else hand_no - 1
    if res and finished > table.announced_hand:
        table.announced_hand = finished
        table.meta["announced_hand"] = finished
        await table.save_meta()
        sc = table.screen.scenes.public()  # the summary every door shows, the next dealer included
        summary = sc.summary if sc.summary is not None and sc.summary.hand_no == finished else summary_of(res)
        await table.say(summary_text(summary, sc.seats, table.lang))


async def match_result(table: Table, result: dict[str, Any]) -> None:
    await table.say(match_result_text(result, table.seats.infos(), table.lang))
