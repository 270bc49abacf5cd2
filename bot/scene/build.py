"""Scenes built from the engine's views: the public part once per change, a seat's hand on demand.

Pure functions of their inputs (an engine view, the match for what a seat may do, the seats'
occupants, the clock): the table's actor gathers those (`bot.table.scenes`) and every door draws
what comes out. Nothing here knows a platform, a language or a table actor.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from functools import cache

from bot.scene.types import (
    BoardScore,
    Cards,
    Choices,
    Clock,
    Declared,
    HandScene,
    Lobby,
    Played,
    Result,
    SeatFace,
    SeatInfo,
    Stake,
    Status,
    Summary,
    TableScene,
    Trick,
    Trump,
    Turn,
    Won,
)
from engine.actions import Bury, Chao, Declare, Pass, Revolt, SeatAction
from engine.boards import declarers_score
from engine.cards import card_points, is_trump_card
from engine.hand import team_of
from engine.leading import trick_leader
from engine.match import Match
from engine.rules import PRESETS, Rules
from engine.scoring import level_change
from engine.views import (
    HandPublic,
    HandSummary,
    MatchResult,
    Phase,
    PublicView,
    SeatView,
    TrickPlay,
    TrickRecord,
    TrumpName,
)

#: Declarations and 炒底 bids a hand offers at most (each one button).
MAX_BIDS = 12


def seat_faces(seats: Sequence[SeatInfo | None], pub: PublicView | None = None) -> tuple[SeatFace, ...]:
    """The four seats as everyone sees them (with the cards each holds and the dealer, once dealt)."""
    counts: Sequence[int] = pub.get("hand_counts") or () if pub is not None else ()
    dealer = pub.get("dealer") if pub is not None else None
    out = []
    for s in range(4):
        info = seats[s] if s < len(seats) else None
        n = counts[s] if s < len(counts) else None
        if info is None:
            out.append(SeatFace(s, team_of(s), False, cards=n, dealer=dealer == s))
        else:
            out.append(SeatFace(s, team_of(s), True, info.name, info.is_ai, info.away, n, dealer == s))
    return tuple(out)


def lobby_scene(*, match_id: int, preset: str, seats: Sequence[SeatInfo | None], creator: str,
                options: str = "") -> TableScene:
    """A table still taking seats."""
    return TableScene(match_id, 0, "lobby", preset, seat_faces(seats), lobby=Lobby(creator, options))


def table_scene(pub: PublicView, *, match_id: int, status: Status, preset: str,
                seats: Sequence[SeatInfo | None], clock: Clock | None = None,
                next_dealer: int | None = None, final_trick: Trick | None = None, board: bool = False) -> TableScene:
    """The public part of every viewer's scene, from the engine's public view.

    `clock`: the running deadline; `next_dealer`: who deals next, while a finished hand waits for the
    next one (`Match.next_dealer`); `final_trick`: the last hand's last trick, once the next hand has
    begun (the view no longer holds it); `board`: a duplicate board, scored by its points alone (no
    levels at stake)."""
    declarer_seats = pub.get("declarers")
    dealer = pub.get("dealer")
    declarers = team_of(declarer_seats[0]) if declarer_seats else team_of(dealer) if dealer is not None else None
    tricks = pub.get("tricks") or []
    points = [0, 0]
    for t in tricks:
        points[team_of(int(t["winner"]))] += int(t["points"])
    hand_no = int(pub.get("hand_no", 1))
    last_trick = _last_trick(pub, tricks)
    summary_raw = pub.get("last_result")
    board = board or bool((pub.get("rules_options") or {}).get("board"))  # the rules say so too (a replay)
    summary = None
    if summary_raw is not None:
        ended = pub.get("phase") in (Phase.HAND_OVER, Phase.MATCH_OVER)
        before = int(summary_raw.get("hand_no", 0)) == hand_no - 1
        after = next_dealer if pub.get("phase") == Phase.HAND_OVER else dealer if before else None
        summary = summary_of(summary_raw, next_dealer=after, hand_no=hand_no,
                             final_trick=last_trick if ended else final_trick if before else None, board=board)
    levels = pub.get("levels") or ["2", "2"]
    if board and pub.get("level") is not None:  # a board is played at its level: the teams' levels mean nothing
        levels = [pub["level"], pub["level"]]
    return TableScene(
        match_id=match_id,
        version=int(pub.get("version", 0)),
        status=status,
        preset=preset,
        seats=seat_faces(seats, pub),
        hand_no=hand_no,
        phase=Phase(pub["phase"]),
        level=pub.get("level"),
        levels=(str(levels[0]), str(levels[1])),
        trump=_trump(pub),
        declarers=declarers,
        trick=_plays(pub.get("trick") or ()),
        winning=trick_leader(pub),
        last_trick=last_trick,
        tricks_played=int(pub.get("tricks_played", 0)),
        won=tuple(_won(t, declarer_seats) for t in tricks),
        points=(points[0], points[1]),
        defender_points=int(pub.get("defender_points", 0)),
        stake=None if board else _stake(pub, declarers),
        turn=_turn(pub, status, clock),
        summary=summary,
        result=result_of(pub.get("result"), board=board_score(summary_raw) if board and summary_raw else None),
        time_up=bool(pub.get("time_up")),
        board=board,
    )


#: Points in play: two decks of five 5s, 10s and Ks a suit.
ALL_POINTS = 200


@cache
def _level_rules(table: str) -> Rules:
    """Rules that score by `table` (all `level_change` reads of them)."""
    return replace(PRESETS["classic"], level_table=table)  # type: ignore[arg-type]


def _stake(pub: PublicView, declarers: int | None) -> Stake | None:
    """While cards are played: the outcome at the defenders' points so far, and the next step."""
    if pub.get("phase") != Phase.PLAYING or declarers is None:
        return None
    rules = _level_rules(str((pub.get("rules_options") or {}).get("level_table", "classic")))
    points = int(pub.get("defender_points", 0))
    now = level_change(rules, points)
    next_at = next((p for p in range(points - points % 5 + 5, ALL_POINTS + 1, 5) if level_change(rules, p) != now), None)
    side, up = now
    return Stake(declarers if side == "declarers" else 1 - declarers, side, up, next_at)


def _plays(trick: Iterable[TrickPlay]) -> tuple[Played, ...]:
    return tuple(Played(int(s), tuple(cards)) for s, cards in trick)


def _trump(pub: PublicView) -> Trump:
    trump = pub.get("trump")
    decl = pub.get("declaration")
    declared = None
    if decl and decl["cards"]:
        cards = tuple(decl["cards"])
        suit: TrumpName = trump if trump is not None else "NT" if cards[0] in ("BJ", "SJ") else _suit(cards[0])
        declared = Declared(int(decl["seat"]), cards, suit)
    return Trump(trump, declared)


_SUITS: dict[str, TrumpName] = {"S": "S", "H": "H", "D": "D", "C": "C"}


def _suit(card: str) -> TrumpName:
    return _SUITS.get(card[1:2], "NT")


def final_trick_of(hand: HandPublic | None) -> Trick | None:
    """The last trick of a hand that has ended (`Match.previous_public`), for its summary."""
    return None if hand is None else _last_trick(hand, hand.get("tricks") or [])


def _won(t: TrickRecord, declarers: Sequence[int] | None) -> Won:
    points, winner = int(t["points"]), int(t["winner"])
    return Won(winner, points, points > 0 and not (declarers is not None and winner in declarers))


def _last_trick(pub: HandPublic, tricks: Sequence[object]) -> Trick | None:
    plays = _plays(pub.get("last_trick") or ())
    winner = pub.get("last_trick_winner")
    if not plays or winner is None:
        return None
    done = pub.get("tricks") or []
    if done and _plays(done[-1]["plays"]) == plays:
        points = int(done[-1]["points"])
    else:
        points = sum(card_points(c) for p in plays for c in p.cards)
    declarers = pub.get("declarers")
    counts = points > 0 and not (declarers is not None and int(winner) in declarers)
    return Trick(plays, int(winner), points, counts)


def _turn(pub: PublicView, status: Status, clock: Clock | None) -> Turn:
    if status != "active":
        return Turn()
    turn = pub.get("turn")
    if pub.get("phase") == Phase.PLAYING and turn is not None:
        seats: tuple[int, ...] = (int(turn),)
    else:
        seats = tuple(int(s) for s in pub.get("to_act") or ())
    return Turn(seats, clock if seats else None)


def board_score(res: HandSummary, number: int | None = None) -> BoardScore:
    """A board's hand as duplicate scores it (002 4.4, 光头 included); `number`: the board's, when known
    (the table's meta gives it: `bot.table.scenes.board_score`)."""
    points = int(res.get("defender_points", 0))
    return BoardScore(number, int(res.get("declarer_team", 0)), points, declarers_score(points))


def summary_of(res: HandSummary, *, next_dealer: int | None = None, hand_no: int = 0,
               final_trick: Trick | None = None, board: bool = False) -> Summary:
    """A finished hand's summary, as the engine gives it (`last_result`, a match's history).

    `board`: the hand is a board's, compared with other tables: no winner, levels climbed or next
    dealer (the engine still works those out; they mean nothing on a board)."""
    dteam = int(res.get("declarer_team", 0))
    side = res.get("winner")
    winner = None if side is None else dteam if side == "declarers" else 1 - dteam
    after = res.get("levels_after")
    knocked = res.get("knocked_to")
    if board:
        side, winner, after, knocked, next_dealer = None, None, None, None, None
    return Summary(
        hand_no=int(res.get("hand_no", hand_no)),
        reason=res.get("reason", "played"),
        defenders=1 - dteam,
        defender_points=int(res.get("defender_points", 0)),
        kitty=tuple(res.get("kitty") or ()),
        kitty_points=int(res.get("kitty_points", 0)),
        kitty_multiplier=int(res.get("kitty_multiplier", 0) or 0),
        penalties=int(res.get("penalties", 0) or 0),
        winner=winner,
        side=side,
        levels_up=0 if board else int(res.get("levels", 0) or 0),
        knocked_to=None if not knocked else str(knocked),
        levels_after=None if not after else (str(after[0]), str(after[1])),
        next_dealer=next_dealer,
        final_trick=final_trick,
    )


def result_of(result: MatchResult | None, *, board: BoardScore | None = None) -> Result | None:
    if result is None:
        return None
    levels = result["levels"]
    return Result(int(result["winner_team"]), (str(levels[0]), str(levels[1])), result["reason"], board=board)


def choices(m: Match, seat: int, v: SeatView, *, bury_seed: int) -> Choices:
    """What `seat` may do now: its bids, pass and 革命 while trump is found, whether it plays, and
    while it buries, the AI's pick of 8 (`bury_seed` seeds the pick, so a redraw picks the same)."""
    phase = m.phase
    if phase in (Phase.DEALING, Phase.DECLARING, Phase.CHAO):
        acts: list[SeatAction] = list(m.legal_actions(seat))
        return Choices(
            declare=tuple(tuple(a.cards) for a in acts if isinstance(a, Declare))[:MAX_BIDS],
            chao=tuple(tuple(a.cards) for a in acts if isinstance(a, Chao))[:MAX_BIDS],
            can_pass=any(isinstance(a, Pass) for a in acts),
            revolt=any(isinstance(a, Revolt) for a in acts),
        )
    revolt = bool(v.get("can_revolt"))
    if phase == Phase.PLAYING:
        return Choices(revolt=revolt, play=v.get("turn") == seat)
    if phase == Phase.BURYING and m.bury_choice(seat) is not None:
        pick = m.auto_action(seat, rng_seed=bury_seed)
        return Choices(revolt=revolt, bury=True, bury_pick=tuple(pick.cards) if isinstance(pick, Bury) else ())
    return Choices(revolt=revolt)


NOTHING = Choices()


def hand_scene(v: SeatView, choices: Choices = NOTHING, picked: Iterable[int] = ()) -> HandScene:
    """A seat's own hand from its view (never another's: the view holds its cards only)."""
    cards: Cards = tuple(v.get("hand") or ())
    level, trump = v.get("level"), v.get("trump")
    suits = tuple("T" if is_trump_card(c, level, trump) else c[1] for c in cards)
    kitty = v.get("kitty")
    buried = v.get("buried")
    return HandScene(
        seat=int(v["seat"]),
        cards=cards,
        suits=suits,
        choices=choices,
        picked=frozenset(i for i in picked if 0 <= i < len(cards)),
        kitty=None if kitty is None else tuple(kitty),
        buried=None if buried is None else tuple(buried),
    )


def card_indices(hand: Sequence[str], cards: Sequence[str]) -> list[int] | None:
    """Positions in `hand` of `cards` (a multiset), or None if they are not all there."""
    used: set[int] = set()
    out = []
    for c in cards:
        for i, h in enumerate(hand):
            if h == c and i not in used:
                used.add(i)
                out.append(i)
                break
        else:
            return None
    return out
