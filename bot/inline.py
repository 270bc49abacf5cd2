"""Inline mode: the legal plays a seated person may choose from the group's inline query
(only ever their own cards)."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from bot.cardtext import parse_typed_card
from bot.platform import User, Where
from bot.views import InlineChoice, play_choices
from engine.actions import Play

if TYPE_CHECKING:
    from bot.host import Host


async def choices(host: Host, user: User, where: Where, query: str) -> list[InlineChoice]:
    """The legal plays of `user` at the table of `where`, for inline mode (only ever their own cards)."""
    table = host.by_chat.get((where.platform, where.chat_id))
    if table is None or table.seat_of(user.user_id) is None:
        mine = [t for t in host.tables.values() if t.platform_name == where.platform
                and t.match is not None and t.seat_of(user.user_id) in t.match.to_act()]
        table = mine[0] if mine else None
    if table is None or table.match is None or table.status != "active":
        return []
    s = table.seat_of(user.user_id)
    m = table.match
    if s is None or m.phase != "playing" or m.to_act() != [s]:
        return []
    lang = table.seat_lang(s)
    legal = [a for a in m.legal_actions(s) if isinstance(a, Play)]
    wanted = Counter(c for c in (parse_typed_card(w) for w in query.split()[:40]) if c is not None)
    if wanted:
        exact = Play(s, tuple(sorted(wanted.elements())))
        legal = [a for a in legal if not wanted - Counter(a.cards)]
        if m.check(exact) is None and not any(Counter(a.cards) == wanted for a in legal):
            legal.insert(0, exact)  # the typed cards are a legal play the list left out
    return play_choices(table.seat_view(s), legal, lang, match_id=table.id, version=m.version, limit=50,
                        seats=table.seats.infos(), group_lang=table.lang)
