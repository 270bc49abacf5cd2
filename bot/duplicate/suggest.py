"""What the free words after `board`, `daily` and `duplicate`'s action may be, offered as one types.

From what exists where the person is (`bot.suggestions`): the chat's boards (to play, those they
have not played; to look at, those they have), today's daily boards, the open duplicate events of
the chat's server to join as a room or a table, and the words each action takes. Nothing of a
board's cards is named: a board is offered by its label, as the group already sees it.
"""

from __future__ import annotations

from bot.duplicate import daily
from bot.duplicate.events import TEAMS
from bot.duplicate.tables import SOURCES, Desk, board_label
from bot.i18n import N_, tr
from bot.settings import AI_LEVELS
from bot.suggestions import Ask, Suggestion, complete
from persistence.board_store import BoardRow, EventRow

RECENT = 50  # a chat's newest boards looked at, at most (each is a look-up of who has played it)
NEW_BOARD = (*(f"trump={s}" for s in SOURCES), "ai")
NEW_EVENT = ("boards=4", "boards=8", "boards=16", "minutes=0", "minutes=12", "minutes=20",
             *(f"trump={s}" for s in SOURCES))
POST = tuple(f"{h:02d}:00" for h in range(24))
AI = N_("suggest.ai")


async def more(desk: Desk, ask: Ask) -> list[Suggestion]:
    """The `more` words of `ask.command` after its action (`ask.given["action"]`)."""
    action = ask.given.get("action", "").strip().lower()
    presets = desk.ctx.presets()
    if ask.command == "board":
        if action == "new":
            return complete(ask.typed, (*NEW_BOARD, *presets))
        if action == "play":
            return await _boards(desk, ask, played=False)
        if action == "show":
            return await _boards(desk, ask, played=True)
        return []
    if ask.command == "daily":
        if action == "play":
            return await _daily(desk, ask)
        if action == "standings":
            return complete(ask.typed, ("today", "week"))
        if action == "post":
            return complete(ask.typed, ("off", *POST))
        return []
    if action in ("new", "pairs"):
        return complete(ask.typed, (*NEW_EVENT, *presets))
    if action in ("room", "table"):
        return [Suggestion(str(ev.id), _event_label(ev, ask.lang)) for ev in await _events(desk, ask, action)
                if str(ev.id).startswith(ask.typed.strip().lstrip("#"))]
    if action == "join":
        return complete(ask.typed, TEAMS)
    if action == "ai":
        return complete(ask.typed, (*TEAMS, *AI_LEVELS))
    if action == "name" and " " not in ask.typed.strip():
        return complete(ask.typed, TEAMS)
    return []


async def _boards(desk: Desk, ask: Ask, *, played: bool) -> list[Suggestion]:
    """The chat's boards and today's daily ones the person has played (`played`), or has not."""
    user = ask.user
    store = desk.boards
    mine = await store.set_boards("single", f"{ask.where.platform}:{ask.where.chat_id}")
    rows: list[BoardRow] = sorted(mine, key=lambda b: -b.id)[:RECENT]
    rows += await _today(desk)
    typed = ask.typed.strip()
    head, _, _ = typed.partition(" ")
    out: list[Suggestion] = []
    for b in rows:
        if await store.has_seen(b.id, user.platform, user.user_id) != played:
            continue
        label = board_label(b, ask.lang)
        if not played and ask.typed.lstrip().lstrip("#").startswith(f"{b.id} "):  # given: with AI players?
            return complete(ask.typed, (Suggestion(f"{b.id}", label), Suggestion("ai", tr(ask.lang, AI))))
        if str(b.id).startswith(head.lstrip("#")):
            out.append(Suggestion(str(b.id), label))
    return out


async def _today(desk: Desk) -> list[BoardRow]:
    """Today's daily boards if anyone has asked for them (a suggestion makes none)."""
    return await desk.boards.set_boards("daily", daily.today(desk.ctx.clock).isoformat())


async def _daily(desk: Desk, ask: Ask) -> list[Suggestion]:
    """Today's boards the person has not played, by number, and `ai`."""
    user = ask.user
    rows = await _today(desk)
    words = [Suggestion(str(b.number), board_label(b, ask.lang)) for b in rows
             if not await desk.boards.has_seen(b.id, user.platform, user.user_id)]
    if not rows:  # not made yet: nobody has played any
        words = [Suggestion(str(n), str(n)) for n in range(1, daily.DAILY_BOARDS + 1)]
    return complete(ask.typed, (*words, Suggestion("ai", tr(ask.lang, AI))))


async def _events(desk: Desk, ask: Ask, action: str) -> list[EventRow]:
    """The open events of the chat's server this chat may join: a team match waiting for its closed
    room (`room`), a pairs event taking tables (`table`)."""
    out = []
    for ev in await desk.boards.all_open_events():
        if not ask.here(ev.platform, ev.chat_id) or ev.chat_id == ask.where.chat_id:
            continue
        if (action == "room" and ev.kind == "team" and ev.status == "forming" and "closed" not in ev.state["rooms"]) or (action == "table" and ev.kind == "pairs" and ev.status in ("forming", "playing")):
            out.append(ev)
    return out


def _event_label(ev: EventRow, lang: str) -> str:
    key = N_("suggest.dup_team") if ev.kind == "team" else N_("suggest.dup_pairs")
    return tr(lang, key, id=ev.id, name=str(ev.state.get("creator_name", "")), boards=ev.state.get("count", 0))
