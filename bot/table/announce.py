"""What a table says in the group as the match moves: the events that matter, declarations,
hand and match results (never a card that is still in a hand). The `Announcer` hears what was
committed (`bot.table.commit`); a hand's result is said by the actor's step once the hand is over
(`hand_result`, remembered in meta so a restart does not say it twice)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.cardtext import cards_text, suit_text
from bot.i18n import tr
from bot.intents.types import PlayCards
from bot.scene.build import seat_faces, summary_of
from bot.scene.text import side_text, summary_text
from bot.table.commit import Committed, TableEvent
from bot.table.scenes import board_score
from bot.views import last_trick_text, match_result_text, seat_label
from engine.actions import Bury, Revolt
from engine.views import DeclarationView

if TYPE_CHECKING:
    from bot.platform import Incoming
    from bot.table.context import TableCore
    from bot.table.ops import TableOps


class Announcer:
    """Subscribes to a table's `Committed` and `Ended` events (`bot.table.commit`) and says in the
    group what matters of them: the engine's events, a burial or revolution, a new declaration, the
    match's result. It reads only the event and who sits where; it changes nothing at the table."""

    def __init__(self, table: TableCore) -> None:
        self.table = table
        self.last_declaration: DeclarationView | None = (table.match.public_view().get("declaration")
                                                         if table.match is not None else None)

    async def __call__(self, event: TableEvent) -> None:
        if isinstance(event, Committed):
            await self.committed(event)
        elif event.played:
            t = self.table
            if t.meta.board is not None:  # a board has no match winner: it is compared with other tables
                told = board_result_text(t)
                if told:
                    await t.say(told)
                return
            await t.say(match_result_text(dict(event.result), t.seats.infos(), t.lang, league=t.league_line))

    async def committed(self, c: Committed) -> None:
        """After an accepted action: its events, a burial or revolution, a new declaration."""
        t = self.table
        await self._events(c)
        lang = t.lang
        action = c.action
        if isinstance(action, Bury):
            await t.say(tr(lang, "announce.buried", who=seat_label(action.seat, t.seats.infos(), lang)))
        elif isinstance(action, Revolt):
            await t.say(tr(lang, "announce.revolt", who=seat_label(action.seat, t.seats.infos(), lang)))
        decl = c.public.get("declaration")
        if decl and decl != self.last_declaration:
            await t.say(tr(lang, "announce.declared", who=seat_label(int(decl["seat"]), t.seats.infos(), lang),
                           cards=cards_text(list(decl.get("cards", [])))))
        self.last_declaration = decl

    async def _events(self, c: Committed) -> None:
        t = self.table
        lang = t.lang
        for e in c.events:
            kind = e.get("e")
            if kind == "throw_failed":
                who = seat_label(int(e["seat"]), t.seats.infos(), lang)
                cards = cards_text(list(e.get("played", [])))
                if "beaten_by" in e:  # who shows which cards: the reason the throw was cut down
                    await t.say(tr(lang, "announce.throw_failed_by", who=who, cards=cards,
                                   by=seat_label(int(e["beaten_by"]), t.seats.infos(), lang),
                                   beater=cards_text(list(e.get("beater", []))), penalty=e.get("penalty", 0)))
                else:
                    await t.say(tr(lang, "announce.throw_failed", who=who, cards=cards, penalty=e.get("penalty", 0)))
            elif kind == "trump" and e.get("from_kitty"):
                trump = e.get("trump")
                shown = tr(lang, "table.no_trump") if trump == "NT" else suit_text(trump)
                await t.say(tr(lang, "announce.trump_kitty", trump=shown))
            elif kind == "chao":
                await t.say(tr(lang, "announce.chao", who=seat_label(int(e["seat"]), t.seats.infos(), lang),
                               cards=cards_text(list(e.get("cards", [])))))
            elif kind == "time_up":
                await t.say(tr(lang, "announce.time_up"))
            elif kind == "trick" and t.platform.one_screen:
                # a terminal shows each trick as it ends; chats have the table's "last trick" line
                # instead (a message per trick would run into Telegram's 20 a minute per group)
                pub = c.public
                await t.say(tr(lang, "announce.trick", n=pub.get("tricks_played", "?"),
                               trick=last_trick_text(pub, t.seats.infos(), lang)))


async def hand_result(table: TableOps) -> None:
    """Once per finished hand: its result (remembered in meta, so a restart does not repeat it)."""
    m = table.game
    pub = table.public()
    res = pub.get("last_result")
    hand_no = int(pub.get("hand_no", 0))
    finished = hand_no if m.phase in ("hand_over", "match_over") else hand_no - 1
    if res and finished > table.meta.announced_hand:
        table.meta.announced_hand = finished
        await table.save_meta()
        sc = table.screen.scenes.public()  # the summary every door shows, the next dealer included
        summary = (sc.summary if sc.summary is not None and sc.summary.hand_no == finished
                   else summary_of(res, board=table.meta.board is not None))
        await table.say(summary_text(summary, sc.seats, table.lang))


def board_result_text(t: TableCore) -> str:
    """A board table's end: its result as duplicate scores it (the declarers' side, the defenders'
    points, the declarers' score with 002's 光头 rule), where a match would name a winner."""
    b = board_score(t.match, t.meta) if t.match is not None else None
    if b is None:
        return ""
    lang = t.lang
    return tr(lang, "board.table_done", n=b.number if b.number is not None else "?",
              side=side_text(b.declarers, seat_faces(t.seats.infos()), lang), points=b.points, score=f"{b.score:+d}")


async def choice_not_played(table: TableOps, ev: Incoming) -> None:
    """A choice from the group's inline mode was refused. The person's own client has already posted
    it in the group ("Ann: ♦3"), so the group is told it was not played, and its table is drawn again
    at once (also mid-trick) to show whose turn it is; the reason went to the person privately."""
    act = ev.intent.act if ev.intent is not None else None
    cards = cards_text(list(act.cards)) if isinstance(act, PlayCards) else ""
    s = table.seat_of(ev.user.user_id)
    who = seat_label(s, table.seats.infos(), table.lang) if s is not None else ev.user.name
    await table.say(tr(table.lang, "inline.not_played", who=who, cards=cards))
    table.screen.may_lag_at = None
    table.screen.table_trick = None  # drawn at the next render, if what it shows changed
