"""Finished hands of a chat told again trick by trick, from the match log (the web table's replays).

Only what became public is told: each trick's plays, its winner and points, the trump and who
declared it, and the hand's result (the kitty is shown there, as the group was told at the end).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import Protocol, TypedDict

from bot.table.seats import Seats
from engine import Match, Rules
from engine.views import DeclarationView, HandSummary, Phase, PublicView, TrickRecord, TrumpName
from persistence import StoredMatch
from persistence.board_store import BoardStore


class ToldHand(TypedDict):
    """One finished hand as the web page's replay shows it (sent as JSON)."""

    hand: int
    dealer: int | None
    declarers: list[int] | None
    level: str
    trump: TrumpName | None
    declaration: DeclarationView | None
    tricks: list[TrickRecord]
    result: HandSummary | None


class Replay(ToldHand):
    """The answer to the page's replay request: the hand asked, which hands there are, who sat where."""

    type: str
    match: int
    hands: list[int]
    seats: list[str | None]


class MatchSource(Protocol):
    async def get_match(self, match_id: int) -> StoredMatch | None: ...


async def may_replay(store: object, stored: StoredMatch, user_id: str | None) -> bool:
    """A board table's replay is for people who played that board (at any table): anyone else
    would see its cards before playing it (docs/duplicate.md). Every other match: yes."""
    board = stored.meta.get("board")
    if not isinstance(board, Mapping) or not isinstance(board.get("id"), int):
        return True
    if not user_id:
        return False
    try:
        boards = BoardStore.of(store)
    except TypeError:  # a store without SQL keeps no boards: nobody can be shown to have played it
        return False
    return await boards.has_seen(int(board["id"]), stored.platform, user_id)


def _told(pub: PublicView) -> ToldHand:
    return {"hand": pub["hand_no"], "dealer": pub.get("dealer"), "declarers": pub.get("declarers"),
            "level": pub["level"], "trump": pub.get("trump"), "declaration": pub.get("declaration"),
            "tricks": [{"plays": [(s, list(c)) for s, c in t["plays"]], "winner": t["winner"],
                        "points": t["points"]} for t in pub.get("tricks") or []],
            "result": pub.get("last_result")}


def finished_hands(rules: Mapping[str, object], seed: int, actions: Sequence[Mapping[str, object]]) -> list[ToldHand]:
    """Every hand of the log that was played to its end, as `_told` tells it."""
    m = Match.new(Rules.from_dict(dict(rules)), seed)
    out: list[ToldHand] = []
    for a in actions:
        m.apply(a)
        if m.phase in (Phase.HAND_OVER, Phase.MATCH_OVER):
            pub = m.public_view()
            if not out or out[-1]["hand"] != pub["hand_no"]:
                out.append(_told(pub))
    return out


async def hand_replay(store: MatchSource, platform: str, chat_of: int, match_id: int, hand_no: int,
                      user_id: str | None = None) -> Replay | None:
    """Hand `hand_no` (0: the last finished) of match `match_id`, which must be of the same chat as
    match `chat_of` (the one the asker's credential names); None when there is no such hand, or
    it is a board `user_id` has not played (`may_replay`)."""
    own = await store.get_match(chat_of)
    asked = own if match_id == chat_of else await store.get_match(match_id)
    if own is None or asked is None or own.platform != platform or \
            (asked.platform, asked.chat_id) != (own.platform, own.chat_id):
        return None
    if not await may_replay(store, asked, user_id):
        return None
    hands = await asyncio.to_thread(finished_hands, asked.rules, asked.seed, list(asked.actions))
    if not hands:
        return None
    chosen = hands[-1] if hand_no <= 0 else next((h for h in hands if h["hand"] == hand_no), None)
    if chosen is None:
        return None
    names = [None if i is None else i.name for i in Seats.of(asked.seats).infos()]
    return Replay(type="replay", match=match_id, hands=[h["hand"] for h in hands], seats=names, **chosen)
