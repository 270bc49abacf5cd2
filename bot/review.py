"""复盘 for people: one person's review of their own decisions in a finished hand, in their language.

The judging is `engine.ai.review` (each decision from the seat's own view at that moment); this module
finds the match and the person's seat, runs the review off the event loop, and words it: one line per
clearly costly decision with the same reason a hint would give, a summary, and a hindsight section
that says it is hindsight. The same result feeds the terminal, the chats (privately) and the web
replay, which marks the flagged tricks (`Told.flagged`).

Only a person who held a seat of the match gets a review, and only of that seat: a review names
the seat's own cards, so it is never shown to the others.

A board of a duplicate event (`bot/duplicate`) was dealt the same cards in the other room: the review
then goes on with that room's play of it, once that room has finished the board: the defenders'
points in both rooms, and the review of the same seat there (the same cards, the other team).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Mapping, Sequence
from typing import Protocol, TypedDict

from bot.i18n import N_, tr
from bot.replays import finished_hands
from bot.table.hints import reason_text
from bot.table.moves import action_text
from bot.table.seats import Seats
from bot.views import SeatInfo, seat_label
from engine import Rules
from engine.ai.review import DECISION_BUDGET_S, HandReview, Judged, review_hand
from persistence import StoredMatch
from persistence.board_store import BoardStore

BURY, BID = N_("review.bury"), N_("review.bid")
BURY_MID, BID_MID = N_("review.bury_mid"), N_("review.bid_mid")
TRICK, TRICK_MID = N_("review.trick"), N_("review.trick_mid")
HINDSIGHT_LINES = 3
BUDGET_S = DECISION_BUDGET_S  # CPU per decision (docs/ai.md: a few seconds for a hand's review)  # the largest hindsight gains shown
# one review at a time in a process: each takes seconds of CPU, and a host serves many tables
_ONE_AT_A_TIME = threading.Lock()


class MatchSource(Protocol):
    async def get_match(self, match_id: int) -> StoredMatch | None: ...


class Flag(TypedDict):
    """A flagged decision as the web replay marks it: its trick (None for a bid or the bury)."""

    trick: int | None
    text: str


class Told(TypedDict):
    """A review in words: the whole text, and the flagged decisions one by one."""

    match: int
    hand: int
    seat: int
    text: str
    flagged: list[Flag]


def _where(d: Judged, lang: str, *, mid: bool = False) -> str:
    """"Trick 7" at the start of a line, "trick 7" inside a sentence (the same in Chinese)."""
    if d.kind == "play":
        return tr(lang, TRICK_MID if mid else TRICK, n=d.trick)
    key = (BURY_MID if mid else BURY) if d.kind == "bury" else (BID_MID if mid else BID)
    return tr(lang, key)


def _points(x: float) -> str:
    return str(round(x))


def line(d: Judged, infos: Sequence[SeatInfo | None], lang: str) -> str:
    """One flagged decision: what was done, what was better and by about how much, and why."""
    assert d.better is not None
    return tr(lang, "review.line", where=_where(d, lang), made=action_text(lang, d.made),
              better=action_text(lang, d.better), points=_points(d.saved), error=_points(2 * d.error),
              why=reason_text(d.code, d.params, infos, lang))


def words(review: HandReview, infos: Sequence[SeatInfo | None], lang: str) -> tuple[str, list[Flag]]:
    """The review's text and its flagged lines."""
    flags = [Flag(trick=d.trick, text=line(d, infos, lang)) for d in review.flagged]
    out = [tr(lang, "review.head", hand=review.hand, who=seat_label(review.seat, infos, lang),
              count=len(review.decisions))]
    out += [f"• {f['text']}" for f in flags]
    worst = review.costliest
    if worst is None or worst.better is None:
        out.append(tr(lang, "review.clean"))
    else:
        out.append(tr(lang, "review.summary", count=len(flags), points=_points(review.cost),
                      where=_where(worst, lang, mid=True), better=action_text(lang, worst.better),
                      saved=_points(worst.saved)))
    hind = sorted((d for d in review.decisions if d.hindsight is not None and d.hindsight_saved >= 10),
                  key=lambda d: -d.hindsight_saved)[:HINDSIGHT_LINES]
    if hind:
        out.append(tr(lang, "review.hindsight"))
        out += [
            "· " + tr(lang, "review.hindsight_line", where=_where(d, lang), better=action_text(lang, d.hindsight),
                      points=_points(d.hindsight_saved))
            for d in sorted(hind, key=lambda d: d.index) if d.hindsight is not None
        ]
    return "\n".join(out), flags


def _run(rules: Mapping[str, object], seed: int, actions: Sequence[Mapping[str, object]], hand: int,
         seat: int) -> HandReview:
    with _ONE_AT_A_TIME:
        return review_hand(Rules.from_dict(dict(rules)), seed, actions, hand, seat, budget_s=BUDGET_S)


async def seat_review(stored: StoredMatch, user_id: str, hand_no: int, lang: str, *,
                      boards: BoardStore | None = None, store: MatchSource | None = None) -> Told | str:
    """The review of `user_id`'s seat in hand `hand_no` (0: the last finished) of a stored match, or
    the catalog key saying why there is none. With `boards` and `store`, a board of a duplicate event
    is set beside the other room's play of it (`other_rooms`)."""
    seats = Seats.of(stored.seats)
    seat = seats.seat_of(user_id)
    if seat is None:
        return N_("review.not_seated")
    if _ONE_AT_A_TIME.locked():  # asked again and again, reviews would pile up in the threads
        return N_("review.busy")
    hands = await asyncio.to_thread(finished_hands, stored.rules, stored.seed, list(stored.actions))
    numbers = [h["hand"] for h in hands if h["tricks"]]
    hand = numbers[-1] if numbers and hand_no <= 0 else hand_no
    if hand not in numbers:
        return N_("review.no_hand")
    review = await asyncio.to_thread(_run, stored.rules, stored.seed, list(stored.actions), hand, seat)
    text, flags = words(review, seats.infos(), lang)
    if boards is not None and store is not None:
        beside = await other_rooms(boards, store, stored, seat, lang)
        text = "\n".join([text, *beside])
    return Told(match=stored.id, hand=hand, seat=seat, text=text, flagged=flags)


async def other_rooms(boards: BoardStore, store: MatchSource, stored: StoredMatch, seat: int,
                      lang: str) -> list[str]:
    """For a board of a duplicate event: each other room's play of the same board, once it is done
    there (before, only that it is not: nothing of its play may reach this room early)."""
    play = await boards.play_of_match(stored.id)
    if play is None or play.event_id is None:
        return []
    out: list[str] = []
    for other in await boards.plays([play.board_id]):
        if other.match_id == stored.id or other.event_id != play.event_id:
            continue
        there = await store.get_match(other.match_id) if other.status == "done" else None
        if there is None or play.status != "done":
            out.append(tr(lang, "review.other_waiting", match=other.match_id))
            continue
        out.append(tr(lang, "review.other_room", match=other.match_id, here=play.defender_points,
                      there=other.defender_points))
        review = await asyncio.to_thread(_run, there.rules, there.seed, list(there.actions), 1, seat)
        infos = Seats.of(there.seats).infos()
        out.append(tr(lang, "review.other_seat", who=seat_label(seat, infos, lang)))
        text, _ = words(review, infos, lang)
        out += ["  " + line for line in text.splitlines()[1:] if not line.startswith(("· ",))
                and line != tr(lang, "review.hindsight")]
    return out


async def chat_review(store: MatchSource, platform: str, chat_of: int, match_id: int, hand_no: int,
                      user_id: str, lang: str) -> Told | str:
    """For the web replay: as `seat_review`, for a match of the same chat as match `chat_of`."""
    own = await store.get_match(chat_of)
    asked = own if match_id == chat_of else await store.get_match(match_id)
    if own is None or asked is None or own.platform != platform or \
            (asked.platform, asked.chat_id) != (own.platform, own.chat_id):
        return N_("review.no_hand")
    return await seat_review(asked, user_id, hand_no, lang)
