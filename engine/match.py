"""A match: hands one after another until a side passes its final level.

A match is its rules, its seed and the list of accepted actions; its state
is a fold of that list, so ``Match.replay`` rebuilds it exactly.

One way in: ``validate`` makes the single validation and returns a
``Checked`` bound to this match at this version; ``apply`` takes a
``Checked`` as it is, and validates anything else first, the same way.
(This file is past 400 lines: it is the one surface hosts use, and the
asking half reads best beside the acting half.)
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, cast

from .actions import (
    DEAL_STEP,
    Action,
    Bury,
    Chao,
    Close,
    Deal,
    Declare,
    Next,
    Pass,
    Play,
    Revolt,
    TimeUp,
    action_faces,
    as_action,
)
from .boards import BoardSpec, check_board_rules
from .cards import (
    FULL_DECK,
    NUM_FACES,
    POINTS,
    cards_str,
    parse_cards,
    rank_str,
)
from .declare import Declaration
from .errors import IllegalAction, IllegalCode
from .formats import adjudicate_time_limit
from .hand import (
    BURYING,
    CHAO,
    DEALING,
    DECLARING,
    KITTY_SIZE,
    OVER,
    PLAYING,
    Hand,
    team_of,
    trump_name,
)
from .play import Lead, auto_follow, iter_follows, lead_options
from .rules import Rules
from .views import HandPublic, HandSummary, MatchResult, Phase, PublicView, SeatView

MATCH_OVER = Phase.MATCH_OVER
#: An event the match reports after an action: ``{"e": kind, ...}``, public, JSON-able.
Event = dict[str, Any]


class Checked:
    """An action ``Match.validate`` accepted for one match at one version.

    ``apply`` takes it without validating again while the match is still at
    that version; after any other action it is validated afresh. (A plain
    slotted class, not a frozen dataclass: one is made per action applied.)
    """

    __slots__ = ("action", "detail", "faces", "owner", "version")

    def __init__(
        self, action: Action, owner: Match, version: int, faces: tuple[int, ...], detail: Lead | Declaration | None
    ) -> None:
        self.action = action
        self.owner = owner
        self.version = version
        self.faces = faces
        self.detail = detail

    def __repr__(self) -> str:
        return f"Checked({self.action!r}, version={self.version})"


@dataclass(frozen=True, slots=True)
class BuryChoice:
    """How burying is offered instead of listing every 8-card subset: pick exactly ``count`` of ``cards``.

    ``cards`` is the seat's whole hand (kitty included), each copy listed; any
    ``count`` of them (a multiset) is a legal ``Bury``.
    """

    seat: int
    cards: tuple[str, ...]
    count: int

    def action(self, picked: Iterable[str]) -> Bury:
        return Bury(self.seat, tuple(picked))


class Match:
    def __init__(self, rules: Rules, seed: int) -> None:
        self.rules = rules
        self.seed = seed
        self._log: list[Action | Compact] = []
        self._expanded = 0  # entries before this index are value types already
        self.levels = [rules.start_level, rules.start_level]
        self.hand_no = 0
        self.time_up = False
        self.result: MatchResult | None = None
        self.history: list[HandSummary] = []
        self.last_result: HandSummary | None = None
        self.previous_hand: Hand | None = None  # the hand that ended last, once the next one is dealt
        self._forced_dealer: int | None = None
        self.board: BoardSpec | None = check_board_rules(rules) if rules.board else None
        if self.board is not None:
            self.levels = [self.board.level, self.board.level]
        self.hand: Hand = self._new_hand(dealer=None, first_drawer=None)

    # ----- construction -----
    @classmethod
    def new(cls, rules: Rules, seed: int) -> Match:
        return cls(rules, seed)

    @classmethod
    def replay(cls, rules: Rules, seed: int, actions: Iterable[Action | Mapping[str, object]]) -> Match:
        """Rebuild a match from its log: value types, or the JSON dicts the store keeps."""
        m = cls(rules, seed)
        for a in actions:
            m.apply(a)
        return m

    def _rng(self) -> random.Random:
        return random.Random(f"tractor:{self.seed}:{self.hand_no}")

    def _new_hand(self, dealer: int | None, first_drawer: int | None) -> Hand:
        self.hand_no += 1
        rng = self._rng()
        deck = list(FULL_DECK)
        rng.shuffle(deck)
        if self.board is not None:  # one fixed hand: its dealer is dealt first (engine/boards.py)
            hand = Hand(self.rules, self.levels, self.board.dealer, self.board.dealer, deck)
            if self.board.trump is not None:
                hand.fix_trump(self.board.trump)
            return hand
        if first_drawer is None:
            first_drawer = dealer if dealer is not None else rng.randrange(4)
        return Hand(self.rules, self.levels, dealer, first_drawer, deck)

    @property
    def actions(self) -> list[Action]:
        """The log as value types; entries the trusted path wrote compactly are expanded on first read."""
        log = self._log
        if self._expanded < len(log):
            for i in range(self._expanded, len(log)):
                e = log[i]
                if type(e) is tuple:
                    log[i] = _expand(e)
            self._expanded = len(log)
        return cast(list[Action], log)

    @property
    def version(self) -> int:
        return len(self._log)

    @property
    def phase(self) -> Phase:
        return MATCH_OVER if self.result is not None else self.hand.phase

    def is_terminal(self) -> bool:
        return self.result is not None

    def actions_json(self) -> list[dict[str, Any]]:
        """The log as the store keeps it."""
        return [dict(a.to_json()) for a in self.actions]

    # ----- actions -----
    def check(self, action: Action | Mapping[str, object]) -> IllegalAction | None:
        """Would ``apply`` accept this? The same validation, and nothing changes."""
        try:
            self.validate(action)
        except IllegalAction as exc:
            return exc
        return None

    def validate(self, action: Action | Mapping[str, object]) -> Checked:
        """The one validation: an accepted action bound to this version, or ``IllegalAction``.

        A JSON dict is parsed first (a bad shape is ``bad_action`` / ``bad_card``).
        """
        a = as_action(action)
        if self.result is not None:
            raise IllegalAction(IllegalCode.WRONG_PHASE)
        h = self.hand
        ph = h.phase
        faces: tuple[int, ...] = ()
        detail: Lead | Declaration | None = None
        if isinstance(a, Play):
            faces = action_faces(a)
            detail = h.check_play(a.seat, faces)
        elif isinstance(a, Declare):
            faces = action_faces(a)
            detail = h.check_declare(a.seat, faces)
        elif isinstance(a, Chao):
            faces = action_faces(a)
            detail = h.check_chao(a.seat, faces)
        elif isinstance(a, Deal):
            if a.n < 1:
                raise IllegalAction(IllegalCode.BAD_ACTION)
            if ph != DEALING:
                raise IllegalAction(IllegalCode.WRONG_PHASE)
        elif isinstance(a, Close):
            if ph != DECLARING:
                raise IllegalAction(IllegalCode.WRONG_PHASE)
        elif isinstance(a, Pass):
            h.check_pass(a.seat)
        elif isinstance(a, Bury):
            faces = action_faces(a)
            h.check_bury(a.seat, faces)
        elif isinstance(a, Revolt):
            if not h.can_revolt(a.seat):
                raise IllegalAction(IllegalCode.CANNOT_REVOLT)
        elif isinstance(a, Next):
            if ph != OVER:
                raise IllegalAction(IllegalCode.WRONG_PHASE)
        elif isinstance(a, TimeUp):
            if self.time_up:
                raise IllegalAction(IllegalCode.WRONG_PHASE)
        else:  # pragma: no cover - as_action gives nothing else
            raise IllegalAction(IllegalCode.BAD_ACTION)
        return Checked(a, self, self.version, faces, detail)

    def apply(self, action: Checked | Action | Mapping[str, object]) -> list[Event]:
        """Apply one action or raise ``IllegalAction``; returns the public events.

        A ``Checked`` from ``validate`` at this version is applied without validating again.
        """
        if type(action) is Checked:
            c = action if action.owner is self and action.version == self.version else self.validate(action.action)
        else:
            c = self.validate(action)  # type: ignore[arg-type]  # not a Checked: an action or its JSON
        return self._commit(c)

    def _commit(self, c: Checked) -> list[Event]:
        a = c.action
        h = self.hand
        events: list[Event]
        if isinstance(a, Play):
            assert not isinstance(c.detail, Declaration)
            seat = a.seat
            events = [{"e": "played", "seat": seat}]
            events += h.do_play(seat, c.faces, c.detail)
            events[0]["cards"] = cards_str(h.last_trick[-1][1] if not h.trick else h.trick[-1][1])
            if h.phase == OVER:
                events += self._end_hand()
        elif isinstance(a, Deal):
            h.deal(a.n)
            events = [{"e": "dealt", "cards_dealt": h.drawn}]
        elif isinstance(a, Declare):
            assert isinstance(c.detail, Declaration)
            d = h.do_declare(c.detail)
            events = [{"e": "declared", "seat": a.seat, "cards": cards_str([d.face] * d.count)}]
            events += self._after_declaring(h)
        elif isinstance(a, Pass):
            h.pass_(a.seat)
            events = [{"e": "passed", "seat": a.seat}, *self._after_declaring(h)]
        elif isinstance(a, Close):
            h.close()
            events = self._after_declaring(h)
        elif isinstance(a, Bury):
            h.do_bury(a.seat, c.faces)
            events = [{"e": "buried", "seat": a.seat}]
        elif isinstance(a, Chao):
            assert isinstance(c.detail, Declaration)
            d = h.do_chao(c.detail)
            events = [{"e": "chao", "seat": a.seat, "cards": cards_str([d.face] * d.count)}]
        elif isinstance(a, Revolt):
            h.revolt(a.seat)
            events = [{"e": "revolution", "seat": a.seat}, *self._end_hand()]
        elif isinstance(a, Next):
            self._next_hand()
            events = [{"e": "new_hand", "hand_no": self.hand_no}]
        else:
            assert isinstance(a, TimeUp)
            self.time_up = True
            events = [{"e": "time_up"}]
            if h.phase == OVER:
                events += self._adjudicate()
        self._log.append(a)
        return events

    def _after_declaring(self, h: Hand) -> list[Event]:
        if h.phase == BURYING:
            return [
                {
                    "e": "trump",
                    "trump": trump_name(h.trump),
                    "dealer": h.dealer,
                    "from_kitty": h.trump_from_kitty,
                }
            ]
        if h.phase == OVER:
            return self._end_hand()
        return []

    # ----- between hands -----
    def _end_hand(self) -> list[Event]:
        h = self.hand
        r = h.result
        assert r is not None
        summary: HandSummary = {**r.to_dict(), "hand_no": self.hand_no}
        events: list[Event] = []
        if r.reason == "played" and r.outcome is not None:
            o = r.outcome
            dteam = r.declarer_team
            self.levels[dteam] = o.declarer_level
            self.levels[1 - dteam] = o.defender_level
            if self.board is not None:  # a board is one hand: it ends the match, whoever won it
                winner = dteam if o.winner == "declarers" else 1 - dteam
                self.result = {"winner_team": winner, "levels": self._level_strs(), "reason": "board"}
            elif o.passed:
                winner = dteam if o.winner == "declarers" else 1 - dteam
                self.result = {"winner_team": winner, "levels": self._level_strs(), "reason": "target"}
        summary = {**summary, "levels_after": self._level_strs()}
        self.last_result = summary
        self.history.append(summary)
        events.append({"e": "hand_result", **summary})
        if self.result is not None:
            events.append({"e": "match_over", **self.result})
        elif self.time_up:
            events += self._adjudicate()
        return events

    def _level_strs(self) -> list[str]:
        return [rank_str(x) for x in self.levels]

    def _next_dealer(self) -> int | None:
        r = self.hand.result
        assert r is not None
        if r.reason == "revolution":
            return None
        if r.reason == "redeal":
            return r.dealer
        assert r.outcome is not None
        d = r.dealer
        if r.outcome.winner == "declarers":
            return d if self.rules.dealer_on_hold == "same" else (d + 2) % 4
        return (d + 1) % 4

    def next_dealer(self) -> int | None:
        """Who deals the next hand, while a finished hand waits for it (`hand_over`); None otherwise,
        and after a revolution (the next hand finds its dealer by declaring again)."""
        if self.result is not None or self.hand.phase != OVER or self.hand.result is None:
            return None
        return self._forced_dealer if self._forced_dealer is not None else self._next_dealer()

    def previous_public(self) -> HandPublic | None:
        """The public view of the hand that ended last (its final trick, its tricks), once the next
        hand has begun: what a table shows of it after a restart, when nothing else remembers it."""
        return None if self.previous_hand is None else self.previous_hand.public()

    def _next_hand(self) -> None:
        r = self.hand.result
        assert r is not None
        dealer = self._forced_dealer if self._forced_dealer is not None else self._next_dealer()
        self._forced_dealer = None
        first = r.dealer if r.reason == "revolution" else None
        self.previous_hand = self.hand
        self.hand = self._new_hand(dealer, first)

    def _adjudicate(self) -> list[Event]:
        """The clock ran out and the hand is over: decide as the preset says (see `formats`)."""
        r = self.hand.result
        assert r is not None
        on_top = r.declarer_team
        nxt = self._next_dealer()
        gained = (self.levels[0], self.levels[1])
        if self.rules.time_limit_mode == "both_to_ace":
            a = adjudicate_time_limit((rank_str(gained[0]), rank_str(gained[1])), on_top, rule="both_to_a",
                                      levels_gained=gained)
            ahead = a.first_dealer_team
            if nxt is None or team_of(nxt) != ahead:
                nxt = r.dealer if team_of(r.dealer) == ahead else (r.dealer + 1) % 4
            self._forced_dealer = nxt
            self.levels = [12, 12]
            return [{"e": "time_limit", "mode": "both_to_ace", "dealer": nxt}]
        # equal levels: the side on top for the next hand wins
        tie_team = team_of(nxt) if nxt is not None else on_top
        a = adjudicate_time_limit((rank_str(gained[0]), rank_str(gained[1])), tie_team, levels_gained=gained)
        assert a.winner_team is not None  # only "both_to_a" goes on
        result: MatchResult = {"winner_team": a.winner_team, "levels": self._level_strs(), "reason": "time_limit"}
        self.result = result
        return [{"e": "match_over", **result}]

    # ----- asking -----
    def to_act(self) -> list[int]:
        if self.result is not None:
            return []
        return self.hand.to_act()

    def system_action(self) -> Deal | Close | Next | None:
        """The next action only the host's clock can take, if one fits now."""
        if self.result is not None:
            return None
        ph = self.hand.phase
        if ph == DEALING:
            return Deal(DEAL_STEP)
        if ph == DECLARING and not self.hand.forced:
            return Close()
        if ph == OVER:
            return Next()
        return None

    def legal_actions(self, seat: int) -> Iterator[Declare | Chao | Pass | Play | Revolt]:
        """Every legal action for ``seat`` now, lazily (take what you need; nothing is cut off).

        Declarations, 炒底 bids, passes, plays (every legal lead unit, every
        legal follow) and 革命. Burying is not listed (C(33, 8) subsets):
        ``bury_choice(seat)`` says what to pick from, and any pick is legal.
        """
        h = self.hand
        if self.result is not None:
            return
        if h.phase in (DEALING, DECLARING, CHAO):
            if h.phase == CHAO and seat != h.chao_turn:
                return
            chao = h.phase == CHAO
            for faces in h.declare_options(seat):
                cards = tuple(cards_str(faces))
                yield Chao(seat, cards) if chao else Declare(seat, cards)
            if (h.phase == DECLARING and not h.forced and seat not in h.passes) or chao:
                yield Pass(seat)
        elif h.phase == PLAYING and seat == h.turn:
            assert h.order is not None
            if not h.trick:
                for o in lead_options(h.hands[seat], h.order):
                    yield Play(seat, tuple(cards_str(o)))
            else:
                assert h.lead is not None
                for o in iter_follows(h.hands[seat], h.lead, h.order):
                    yield Play(seat, tuple(cards_str(o)))
        if h.can_revolt(seat):
            yield Revolt(seat)

    def takes_trick(self, action: Play) -> int | None:
        """Who takes the trick if this legal play completes it (None: it does not complete one)."""
        if self.result is not None:
            return None
        return self.hand.winner_if(action.seat, parse_cards(action.cards))

    def bury_choice(self, seat: int) -> BuryChoice | None:
        """What ``seat`` buries from, when it is the one to bury now; else ``None``."""
        h = self.hand
        if self.result is not None or h.phase != BURYING or seat != h.burier:
            return None
        return BuryChoice(seat, h.named_hand(seat), KITTY_SIZE)

    def can_declare(self, seat: int) -> bool:
        """Whether `seat` holds a legal declaration now: what a host asks after every deal step,
        for each seat, so it stops at the first one instead of listing them all."""
        h = self.hand
        if self.result is not None or h.phase not in (DEALING, DECLARING):
            return False
        return bool(h.declare_options(seat))

    def auto_action(self, seat: int, rng_seed: int = 0) -> Declare | Pass | Bury | Play | None:
        """One legal action for this seat, fast; None when it has nothing to do."""
        h = self.hand
        if self.result is not None:
            return None
        if h.phase == DECLARING:
            if h.forced:
                return next((a for a in self.legal_actions(seat) if isinstance(a, Declare)), None)
            return Pass(seat) if seat not in h.passes else None
        if h.phase == CHAO:
            return Pass(seat) if seat == h.chao_turn else None
        if h.phase == BURYING and seat == h.burier:
            return Bury(seat, tuple(cards_str(self._auto_bury(seat))))
        if h.phase == PLAYING and seat == h.turn:
            assert h.order is not None
            order = h.order
            hand = h.hands[seat]
            if h.trick:
                assert h.lead is not None
                return Play(seat, tuple(cards_str(auto_follow(hand, h.lead, order))))
            rng = random.Random(rng_seed)
            leads = lead_options(hand, order)
            longest = max(len(o) for o in leads)
            best = [o for o in leads if len(o) == longest]
            return Play(seat, tuple(cards_str(rng.choice(best))))
        return None

    def _auto_bury(self, seat: int) -> list[int]:
        h = self.hand
        order = h.order
        assert order is not None
        cards = [f for f in range(NUM_FACES) for _ in range(h.hands[seat][f])]
        cards.sort(key=lambda f: (order.suit[f] == 4, POINTS[f] > 0, order.rank[f]))
        return cards[:8]

    # ----- the trusted path (playouts, benchmarks): card integers, nothing re-checked, a compact log -----
    def deal_trusted(self, n: int = DEAL_STEP) -> None:
        """``Deal(n)`` while dealing."""
        self.hand.deal(n)
        self._log.append((_DEAL, n, ()))

    def declare_trusted(self, seat: int, faces: tuple[int, ...]) -> None:
        """A declaration, or in the 炒底 round a bid, from ``Hand.declare_options(seat)``.

        The rules resolve it (a single shown again reinforces to a pair), so
        it is read as the checked path reads it; declarations are rare.
        """
        h = self.hand
        if h.phase == CHAO:
            h.do_chao(h.check_chao(seat, faces))
            self._log.append((_CHAO, seat, faces))
            return
        h.do_declare(h.check_declare(seat, faces))
        self._log.append((_DECLARE, seat, faces))
        self._after_declaring(h)

    def pass_trusted(self, seat: int) -> None:
        """``Pass(seat)`` in the declaring window or the 炒底 round."""
        h = self.hand
        h.pass_(seat)
        self._log.append((_PASS, seat, ()))
        self._after_declaring(h)

    def bury_trusted(self, seat: int, faces: tuple[int, ...]) -> None:
        """The burier puts back ``faces`` (eight it holds)."""
        self.hand.do_bury(seat, faces)
        self._log.append((_BURY, seat, faces))

    def play_trusted(self, seat: int, faces: tuple[int, ...]) -> None:
        """The seat to play plays ``faces``, a legal play the caller generated (``Hand.play_trusted``).

        The log keeps the cards as given (a failed throw's attempt, as the
        checked path logs it); the hand's end is scored as ``apply`` scores it.
        """
        h = self.hand
        h.play_trusted(seat, faces)
        self._log.append((_PLAY, seat, faces))
        if h.phase == OVER:
            self._end_hand()

    def next_trusted(self) -> None:
        """``Next()`` once the hand is over."""
        if self.hand.phase != OVER or self.result is not None:
            raise IllegalAction(IllegalCode.WRONG_PHASE)
        self._next_hand()
        self._log.append((_NEXT, 0, ()))

    # ----- views -----
    def public_view(self) -> PublicView:
        h = self.hand
        v: PublicView = {
            **h.public(),
            "hand_no": self.hand_no,
            "phase": self.phase,
            "levels": self._level_strs(),
            "version": self.version,
            "last_result": self.last_result,
            "result": self.result,
            "rules": self.rules.name,
            "rules_options": self.rules.to_dict(),  # overrides included, so an AI reads the rules in play
            "time_up": self.time_up,
        }
        if self.result is not None:
            v["to_act"] = []  # type: ignore[typeddict-readonly-mutated]  # a new dict, not yet handed out
        return v

    def view(self, seat: int, public: PublicView | None = None) -> SeatView:
        """What this seat sees. `public`: this version's `public_view()` when the caller keeps one
        already (it is copied, not changed; its nested values are shared, so read them only)."""
        if seat not in range(4):
            raise IllegalAction(IllegalCode.BAD_ACTION)
        h = self.hand
        pub = public if public is not None else self.public_view()
        v: dict[str, Any] = {**pub, "seat": seat, "hand": list(h.named_hand(seat)),
                             "can_revolt": h.can_revolt(seat)}
        if seat == h.burier:
            if h.phase == BURYING:
                v["kitty"] = cards_str(h.picked_kitty)
            elif h.phase in (CHAO, PLAYING):
                v["buried"] = cards_str(h.kitty)  # the seat put these there itself
        return cast(SeatView, v)


#: A trusted action as the log keeps it until read: (kind, seat or deal count, faces).
Compact = tuple[int, int, tuple[int, ...]]
_DEAL, _DECLARE, _PASS, _BURY, _CHAO, _PLAY, _NEXT = range(7)


def _expand(e: Compact) -> Action:
    kind, seat, faces = e
    cards = tuple(cards_str(faces))
    if kind == _PLAY:
        return Play(seat, cards)
    if kind == _DEAL:
        return Deal(seat)
    if kind == _PASS:
        return Pass(seat)
    if kind == _DECLARE:
        return Declare(seat, cards)
    if kind == _BURY:
        return Bury(seat, cards)
    if kind == _CHAO:
        return Chao(seat, cards)
    return Next()
