"""`replay N [hand]`: a finished match of this chat told again from its log, as text.

The log is the match (every accepted action), so the replay is the engine
run again over it: nothing is kept twice. Only finished or abandoned matches
of the asking chat are shown; a match still being played is refused, so a
replay can never show what the table does not.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol, cast, runtime_checkable

from bot.cardtext import suit_text
from bot.i18n import tr
from bot.league.texts import t
from bot.platform import User, Where
from bot.replays import may_replay
from bot.scene.build import board_score, seat_faces
from bot.scene.text import board_score_text
from bot.views import SeatInfo, hand_result_text, last_trick_text, match_result_text, seat_label
from engine import Match, Rules
from engine.views import HandSummary, MatchResult
from persistence import StoredMatch

SHOWN = frozenset({"finished", "abandoned"})


@dataclass
class HandStory:
    """One hand as the replay tells it."""

    no: int
    dealer: int | None = None
    trump: str | None = None
    tricks: list[str] = field(default_factory=list)
    result: HandSummary | None = None


def _infos(seats: Sequence[Mapping[str, object]]) -> list[SeatInfo | None]:
    return [
        None if s.get("kind") == "empty" else SeatInfo(str(s.get("name", "?")), is_ai=s.get("kind") == "ai")
        for s in seats[:4]
    ]


def stories(rules: Rules, seed: int, actions: Sequence[Mapping[str, object]], seats: list[SeatInfo | None],
            lang: str) -> tuple[list[HandStory], MatchResult | None]:
    """Every hand of the log with its tricks (as the table's last-trick line) and result."""
    m = Match.new(rules, seed=seed)
    hands = [HandStory(1)]
    for action in actions:
        for e in m.apply(action):
            kind = e.get("e")
            cur = hands[-1]
            if kind == "new_hand":
                hands.append(HandStory(int(e.get("hand_no", len(hands) + 1))))
            elif kind == "trump":
                cur.trump = str(e.get("trump"))
                cur.dealer = int(e["dealer"]) if e.get("dealer") is not None else None
            elif kind == "trick":
                cur.tricks.append(last_trick_text(m.public_view(), seats, lang))
            elif kind == "hand_result":
                cur.result = cast(HandSummary, dict(e))  # the engine's hand_result event is the summary
    if hands[-1].result is None and not hands[-1].tricks:
        hands.pop()  # a hand dealt but not played when the match stopped
    return hands, m.result


def _trump_word(trump: str | None, lang: str) -> str:
    if trump is None:
        return "?"
    return tr(lang, "table.no_trump") if trump == "NT" else suit_text(trump)


def _summary_line(h: HandStory, seats: list[SeatInfo | None], lang: str, board: bool) -> str:
    res = h.result
    dealer = h.dealer if h.dealer is not None else None if res is None else res.get("dealer")
    who = seat_label(int(dealer), seats, lang) if dealer is not None else "?"
    if board and res is not None:  # a board's hand: its score, no deal won and no levels
        return t("replay_board_line", lang, hand=h.no, dealer=who, trump=_trump_word(h.trump, lang),
                 points=res.get("defender_points", 0),
                 score=board_score_text(board_score(res), seat_faces(seats), lang))
    if res is None:
        outcome = t("replay_unfinished_hand", lang)
    elif res.get("reason", "played") != "played":
        outcome = tr(lang, f"reason.{res.get('reason')}")
    else:
        outcome = t("replay_won_" + str(res.get("winner", "declarers")), lang, points=res.get("defender_points", 0))
    levels = (None if res is None else res.get("levels_after")) or ["?", "?"]
    return t("replay_hand_line", lang, hand=h.no, dealer=who, trump=_trump_word(h.trump, lang), outcome=outcome,
             a=levels[0], b=levels[1])


def render(stored: StoredMatch, hand: int | None, lang: str) -> str:
    """The replay text of a stored match: hand by hand, or every trick of one hand."""
    seats = _infos(stored.seats)
    rules = Rules.from_dict(stored.rules)
    board = bool(rules.board)
    hands, result = stories(rules, int(stored.seed), stored.actions, seats, lang)
    names = " · ".join(seat_label(i, seats, lang) for i in range(4))
    if hand is not None:
        found = [h for h in hands if h.no == hand]
        if not found:
            return t("replay_no_hand", lang, id=stored.id, hand=hand, n=len(hands))
        h = found[0]
        lines = [t("replay_hand_title", lang, id=stored.id, hand=h.no), names,
                 tr(lang, "table.trump", trump=_trump_word(h.trump, lang))]
        lines += [f"{i}. {line}" for i, line in enumerate(h.tricks, 1)]
        if h.result is not None:
            lines.append(hand_result_text({**h.result, "hand_no": h.no}, seats, lang, board=board))
        return "\n".join(lines)
    lines = [t("replay_title", lang, id=stored.id, preset=stored.meta.get("preset", "?")), names]
    lines += [_summary_line(h, seats, lang, board) for h in hands]
    if result is not None:
        last = hands[-1].result if hands and board else None
        info = stored.meta.get("board")
        number = info.get("number") if isinstance(info, dict) else None
        lines.append(match_result_text(result, seats, lang, board=last,
                                       board_number=number if isinstance(number, int) else None))
    elif stored.status == "abandoned":
        lines.append(t("ending_abandoned", lang))
    if hands:
        lines.append(t("replay_more", lang, id=stored.id))
    return "\n".join(lines)


@runtime_checkable
class MatchSource(Protocol):
    """The part of a store a replay reads (the league's commands get the store as an opaque object)."""

    async def get_match(self, match_id: int) -> StoredMatch | None: ...


async def replay_text(store: object, where: Where, user: User, args: tuple[str, ...], lang: str) -> str:
    """`replay N [hand]` in a chat: a finished match of this chat, else a short reason (a board
    only for someone who played it)."""
    words = [a.lstrip("#") for a in args]
    if not words or not words[0].isdigit():
        return t("replay_usage", lang)
    match_id = int(words[0])
    hand = int(words[1]) if len(words) > 1 and words[1].isdigit() else None
    stored = await store.get_match(match_id) if isinstance(store, MatchSource) else None
    if stored is None or stored.platform != where.platform or stored.chat_id != where.chat_id:
        return t("replay_not_found", lang, id=match_id)
    if stored.status not in SHOWN:
        return t("replay_still_playing", lang, id=match_id)
    if not await may_replay(store, stored, user.user_id):
        return t("replay_board_not_played", lang, id=match_id)
    return await asyncio.to_thread(render, stored, hand, lang)  # a long match takes a few ms to replay
