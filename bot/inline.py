"""Inline mode: the legal plays a seated person may choose from the group's inline query
(only ever their own cards), all of them, trumps first as in the hand; the adapter pages them.
When there is nothing to choose, `why_none` says why in a line (the person's own language)."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from bot.cardtext import parse_typed_card
from bot.i18n import tr
from bot.platform import User, Where
from bot.views import InlineChoice, play_choices, seat_label
from engine.actions import Play

if TYPE_CHECKING:
    from bot.feature import Context, TableView

# More than any hand has (a void player choosing two of 14 cards has 91): the platform pages them.
ALL_PLAYS = 10_000


def _table_of(ctx: Context, user: User, where: Where) -> TableView | None:
    table = ctx.tables.in_chat(where.platform, where.chat_id)
    if table is None or table.seat_of(user.user_id) is None:
        mine = [t for t in ctx.tables.seated(where.platform, user.user_id)
                if t.match is not None and t.seat_of(user.user_id) in t.match.to_act()]
        table = mine[0] if mine else None
    return table


async def choices(ctx: Context, user: User, where: Where, query: str) -> list[InlineChoice]:
    """The legal plays of `user` at the table of `where`, for inline mode (only ever their own cards)."""
    table = _table_of(ctx, user, where)
    if table is None or table.match is None or table.status != "active":
        return []
    s = table.seat_of(user.user_id)
    m = table.match
    if s is None or m.phase != "playing" or m.to_act() != [s]:
        return []
    lang = table.seat_lang(s)
    hand = list(table.seat_view(s).get("hand") or [])
    place = {c: i for i, c in reversed(list(enumerate(hand)))}
    legal = sorted((a for a in m.legal_actions(s) if isinstance(a, Play)),
                   key=lambda a: sorted(place.get(c, len(hand)) for c in a.cards))  # trumps first, as in the hand
    wanted = Counter(c for c in (parse_typed_card(w) for w in query.split()[:40]) if c is not None)
    if wanted:
        exact = Play(s, tuple(sorted(wanted.elements())))
        legal = [a for a in legal if not wanted - Counter(a.cards)]
        if m.check(exact) is None and not any(Counter(a.cards) == wanted for a in legal):
            legal.insert(0, exact)  # the typed cards are a legal play the list left out
    return play_choices(table.seat_view(s), legal, lang, match_id=table.id, version=m.version, limit=ALL_PLAYS,
                        seats=table.seats.infos(), group_lang=table.lang, people=table.seats.people(),
                        takes=m.takes_trick)


def why_none(ctx: Context, user: User, where: Where) -> str:
    """One line for an empty inline list: not seated here, nothing to play now, or whose turn it is."""
    table = _table_of(ctx, user, where)
    lang = ctx.chats.user_lang(user) or (table.lang if table is not None
                                         else ctx.chats.lang(where.platform, where.chat_id))
    s = table.seat_of(user.user_id) if table is not None else None
    if table is None or s is None:
        return tr(lang, "inline.not_seated")
    m = table.match
    if m is None or table.status != "active" or m.phase != "playing":
        return tr(lang, "inline.not_now")
    waiting = [w for w in m.to_act() if w != s]
    if waiting:
        return tr(lang, "inline.wait", who=seat_label(waiting[0], table.seats.infos(), lang))
    return tr(lang, "inline.no_match_for_query")
