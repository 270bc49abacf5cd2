"""One hand: the deal, trump, the kitty, 25 tricks and the score.

The hand changes in place as actions arrive; nothing is cloned. A hand can
also be set up in the middle of play (``Hand.at_trick``) for the
conformance cases and for AI sampling. (Past 400 lines: every phase of a
hand changes the same state, and each checked step sits beside the trusted
step that applies it.)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from operator import mul
from typing import Any

from .cards import (
    BIG_JOKER,
    NO_TRUMP,
    NUM_FACES,
    POINTS,
    SMALL_JOKER,
    cards_str,
    rank_of,
    rank_str,
    trump_str,
)
from .combos import Unit, decompose
from .declare import Declaration, judge, validate
from .errors import IllegalAction, IllegalCode
from .order import Order, order_for
from .play import Lead, beater, check_follow, check_lead, holds, trick_winner
from .rules import Rules
from .scoring import Outcome, kitty_multiplier, knockback, outcome, throw_penalty
from .shown import ShownTrick, hand_names, plays_view, shown_trick, tricks_view
from .views import HandEnd, HandPublic, HandSummary, Phase, TrumpName

DEALING, DECLARING, BURYING, CHAO, PLAYING, OVER = (
    Phase.DEALING,
    Phase.DECLARING,
    Phase.BURYING,
    Phase.CHAO,
    Phase.PLAYING,
    Phase.HAND_OVER,
)
KITTY_SIZE = 8


def team_of(seat: int) -> int:
    return seat % 2


@dataclass
class HandResult:
    reason: HandEnd
    dealer: int
    declarer_team: int
    defender_points: int = 0
    kitty: list[int] = field(default_factory=list)
    kitty_points: int = 0
    kitty_multiplier: int = 0
    penalties: int = 0
    outcome: Outcome | None = None
    knocked_to: int | None = None
    last_winner: int | None = None

    def to_dict(self) -> HandSummary:
        d: HandSummary = {
            "reason": self.reason,
            "dealer": self.dealer,
            "declarer_team": self.declarer_team,
            "defender_points": self.defender_points,
            "kitty": cards_str(self.kitty),
            "kitty_points": self.kitty_points,
            "kitty_multiplier": self.kitty_multiplier,
            "penalties": self.penalties,
        }
        if self.outcome is not None:
            o = self.outcome
            d = {
                **d,
                "winner": o.winner,
                "levels": o.levels,
                "next_levels": {
                    "declarers": rank_str(o.declarer_level),
                    "defenders": rank_str(o.defender_level),
                },
                "passed": o.passed,
            }
        if self.knocked_to is not None:
            d = {**d, "knocked_to": rank_str(self.knocked_to)}
        return d


class Hand:
    def __init__(
        self,
        rules: Rules,
        levels: Sequence[int],
        dealer: int | None,
        first_drawer: int,
        deck: Sequence[int],
    ) -> None:
        self.rules = rules
        self.team_levels = list(levels)
        self.dealer = dealer  # None: an open hand (first hand, after a revolution): declaring decides
        self.open = dealer is None
        self.first_drawer = first_drawer
        self.deck = list(deck)
        self.hands: list[list[int]] = [[0] * NUM_FACES for _ in range(4)]
        self.drawn = 0
        self.kitty: list[int] = list(deck[100:108])
        self.phase: Phase = DEALING
        self.declaration: Declaration | None = None
        self.first_declarer: int | None = None
        self.declarations: list[Declaration] = []
        self.passes: set[int] = set()
        self.forced = False
        self.trump: int | None = None
        self.trump_from_kitty = False
        self.order: Order | None = None
        self.burier: int | None = None
        self.chao_turn: int | None = None
        self.chao_passes = 0
        self.picked_kitty: list[int] = []
        # play
        self.leader: int | None = None
        self.turn: int | None = None
        self.lead: Lead | None = None
        self.trick: list[tuple[int, tuple[int, ...]]] = []
        self.last_trick: list[tuple[int, tuple[int, ...]]] = []
        self.last_trick_winner: int | None = None
        self.tricks_played = 0
        self.tricks: list[tuple[list[tuple[int, tuple[int, ...]]], int, int]] = []
        self._named_tricks: list[ShownTrick] = []  # the views' names for the tricks so far (shown_tricks)
        self._named_hands: list[tuple[Order | None, list[int], tuple[str, ...]] | None] = [None] * 4  # named_hand
        self.defender_points = 0
        self.penalties = 0
        self.played: set[int] = set()
        self.result: HandResult | None = None

    # ----- set-ups -----
    @classmethod
    def at_trick(
        cls,
        rules: Rules,
        level: int,
        trump: int,
        declarers: Sequence[int],
        hands: Sequence[Sequence[int]],
        leader: int,
        kitty: Sequence[int],
        defender_points: int = 0,
        defender_level: int = 0,
        trick: Sequence[tuple[int, Sequence[int]]] = (),
        lead: Lead | None = None,
    ) -> Hand:
        """A hand already in play: the given counts, trump and leader.

        ``trick`` and ``lead``: a trick already begun (its plays, in order,
        from ``leader``, and the lead as the engine accepted it); the next
        seat is to play. For playouts from the middle of a trick.
        """
        dealer = declarers[0]
        levels = [0, 0]
        levels[team_of(dealer)] = level
        levels[1 - team_of(dealer)] = defender_level
        h = cls(rules, levels, dealer, dealer, [0] * 108)
        h.hands = [list(c) for c in hands]
        h.drawn = 100
        h.kitty = list(kitty)
        h.trump = trump
        h.order = order_for(level, trump, rules)
        h.phase = PLAYING
        h.leader = h.turn = leader
        if trick:
            if lead is None or trick[0][0] != leader:
                raise ValueError("a trick begun needs its lead, led by the leader")
            h.trick = [(s, tuple(p)) for s, p in trick]
            h.lead = lead
            h.turn = (trick[-1][0] + 1) % 4
        h.defender_points = defender_points
        h.played = set(range(4))
        return h

    # ----- facts -----
    @property
    def level(self) -> int:
        if self.dealer is not None:
            return self.team_levels[team_of(self.dealer)]
        if self.declaration is not None:
            return self.team_levels[team_of(self.declaration.seat)]
        return self.team_levels[0]

    @property
    def declarer_team(self) -> int | None:
        return None if self.dealer is None else team_of(self.dealer)

    def is_defender(self, seat: int) -> bool:
        return self.dealer is not None and team_of(seat) != team_of(self.dealer)

    def cards_left(self) -> list[int]:
        return list(map(sum, self.hands))

    def to_act(self) -> list[int]:
        if self.phase == DEALING:
            return []
        if self.phase == DECLARING:
            if self.forced:
                return [s for s in range(4) if self.dealer is not None and team_of(s) == team_of(self.dealer)]
            return [s for s in range(4) if s not in self.passes]
        if self.phase == BURYING:
            return [] if self.burier is None else [self.burier]
        if self.phase == CHAO:
            return [] if self.chao_turn is None else [self.chao_turn]
        if self.phase == PLAYING:
            return [] if self.turn is None else [self.turn]
        return []

    # ----- the deal -----
    def deal(self, n: int) -> None:
        if self.phase != DEALING:
            raise IllegalAction(IllegalCode.WRONG_PHASE)
        if n < 1:
            raise IllegalAction(IllegalCode.BAD_ACTION)
        stop = min(100, self.drawn + n)
        while self.drawn < stop:
            seat = (self.first_drawer + self.drawn) % 4
            self.hands[seat][self.deck[self.drawn]] += 1
            self.drawn += 1
        if self.drawn == 100:
            self.phase = DECLARING
            self.passes = set()

    def shown_before(self, seat: int, faces: Sequence[int]) -> bool:
        """A seat shows each pair at most once a hand, so overrides cannot cycle forever."""
        return len(faces) == 2 and any(d.seat == seat and d.face == faces[0] and d.count == 2 for d in self.declarations)

    def seat_level(self, seat: int) -> int:
        """The rank a seat may show: the hand's level, or in an open hand its own side's."""
        if not self.open:
            return self.level
        return self.team_levels[team_of(seat)]

    def check_declare(self, seat: int, faces: Sequence[int]) -> Declaration:
        """The declaration showing ``faces`` would make now, or a refusal; changes nothing."""
        if self.phase not in (DEALING, DECLARING):
            raise IllegalAction(IllegalCode.WRONG_PHASE)
        if self.forced and (self.dealer is None or team_of(seat) != team_of(self.dealer)):
            raise IllegalAction(IllegalCode.NOT_YOUR_TURN)
        return self._shown(seat, faces, self.seat_level(seat), self.open)

    def _shown(self, seat: int, faces: Sequence[int], level: int, open_hand: bool) -> Declaration:
        if not faces or not holds(self.hands[seat], faces[:1]):
            raise IllegalAction(IllegalCode.NOT_IN_HAND)
        if self.shown_before(seat, faces):
            raise IllegalAction(IllegalCode.CANNOT_OVERRIDE)
        held = self.hands[seat][faces[0]]
        return validate(self.rules, self.declaration, seat, faces, held, level, open_hand)

    def declare_options(self, seat: int) -> list[tuple[int, ...]]:
        """Every declaration (in the 炒底 round, every bid) ``seat`` could make now, as faces.

        Only level cards and joker pairs can be shown, so only those are tried;
        once something is shown a single can only reinforce one's own single
        (``declare.validate``), so other singles are not tried.
        """
        ph = self.phase
        if ph not in (DEALING, DECLARING, CHAO):
            return []
        if ph == CHAO:
            level = self.level
        elif self.open or self.dealer is None:  # as seat_level, without two property calls a card dealt
            level = self.team_levels[seat % 2] if self.open else self.level
        else:
            level = self.team_levels[self.dealer % 2]
        hand = self.hands[seat]
        cur = self.declaration
        cands: list[tuple[int, ...]] = []
        for f in (level, 13 + level, 26 + level, 39 + level):
            n = hand[f]
            if n:
                if cur is None or (cur.seat == seat and cur.face == f and cur.count == 1):
                    cands.append((f,))
                if n == 2:
                    cands.append((f, f))
        if hand[SMALL_JOKER] == 2:
            cands.append((SMALL_JOKER, SMALL_JOKER))
        if hand[BIG_JOKER] == 2:
            cands.append((BIG_JOKER, BIG_JOKER))
        if not cands:
            return cands
        # what check_declare / check_chao ask, without raising for every refusal
        if ph == CHAO:
            if seat != self.chao_turn:
                return []
            open_hand = False
        else:
            if self.forced and (self.dealer is None or team_of(seat) != team_of(self.dealer)):
                return []
            open_hand = self.open
        rules = self.rules
        out: list[tuple[int, ...]] = []
        for c in cands:
            if len(c) == 2 and self.shown_before(seat, c):
                continue
            got = judge(rules, cur, seat, c, hand[c[0]], level, open_hand)
            if type(got) is Declaration and (ph != CHAO or got.count >= 2):
                out.append(c)
        return out

    def declare(self, seat: int, faces: Sequence[int]) -> Declaration:
        return self.do_declare(self.check_declare(seat, faces))

    def do_declare(self, new: Declaration) -> Declaration:
        """Apply a declaration ``check_declare`` gave for this very state."""
        seat = new.seat
        self.declaration = new
        self.declarations.append(new)
        if self.first_declarer is None:
            self.first_declarer = seat
        self.passes = set()
        if self.forced:
            self.finish_declaring()
        return new

    def check_pass(self, seat: int) -> None:
        if self.phase == CHAO:
            if seat != self.chao_turn:
                raise IllegalAction(IllegalCode.NOT_YOUR_TURN)
        elif self.phase != DECLARING or self.forced:
            raise IllegalAction(IllegalCode.WRONG_PHASE)

    def pass_(self, seat: int) -> None:
        self.check_pass(seat)
        if self.phase == CHAO:
            self.chao_pass(seat)
            return
        self.passes.add(seat)
        if len(self.passes) == 4:
            self.finish_declaring()

    def close(self) -> None:
        if self.phase != DECLARING:
            raise IllegalAction(IllegalCode.WRONG_PHASE)
        self.finish_declaring()

    def finish_declaring(self) -> None:
        """Fix trump and dealer when the window ends; the dealer takes the kitty."""
        d = self.declaration
        if d is not None:
            if self.open:
                self.dealer = self.first_declarer if self.rules.first_hand_dealer == "first" else d.seat
            self.trump = d.suit
        else:
            if self.rules.no_declaration == "forced_dealer" and not self.open and not self.forced:
                self.forced = True
                level = self.level
                assert self.dealer is not None
                side = (self.dealer, (self.dealer + 2) % 4)
                if any(self.hands[s][f] for s in side for f in range(NUM_FACES) if rank_of(f) == level):
                    return  # wait for the dealer's side to show a level card
                self.result = HandResult("redeal", (self.dealer + 1) % 4, team_of(self.dealer + 1))
                self.phase = OVER
                return
            self._trump_from_kitty()
        self.forced = False
        assert self.dealer is not None and self.trump is not None
        self.order = order_for(self.level, self.trump, self.rules)
        self._pick_up(self.dealer)

    def fix_trump(self, trump: int) -> None:
        """A board with its trump marked or drawn (002 2.6 A, C): all dealt, no bidding, the dealer
        takes the kitty."""
        assert self.dealer is not None and self.phase == DEALING
        self.deal(100)
        self.trump = trump
        self.order = order_for(self.level, trump, self.rules)
        self._pick_up(self.dealer)

    def _trump_from_kitty(self) -> None:
        self.trump_from_kitty = True
        rule = self.rules.no_declaration
        kitty = self.kitty
        finder = self.first_drawer
        if rule == "third_kitty_card":
            card = kitty[2]
            self.trump = NO_TRUMP if card >= SMALL_JOKER else card // 13
        else:
            level = self.team_levels[team_of(self.dealer)] if self.dealer is not None else self.team_levels[0]
            trump: int | None = None
            for i, card in enumerate(kitty):
                if card < SMALL_JOKER and rank_of(card) == level:
                    trump, finder = card // 13, (self.first_drawer + i) % 4
                    break
            if trump is None:
                plain = [(i, c) for i, c in enumerate(kitty) if c < SMALL_JOKER]
                if not plain:
                    trump = NO_TRUMP
                elif rule == "flip_kitty_largest":
                    i, c = max(plain, key=lambda ic: (rank_of(ic[1]), -ic[0]))
                    trump, finder = c // 13, (self.first_drawer + i) % 4
                else:  # 000: the suit of the smallest kitty card
                    i, c = min(plain, key=lambda ic: (rank_of(ic[1]), ic[0]))
                    trump = c // 13
            self.trump = trump
        if self.dealer is None:
            self.dealer = finder if rule == "flip_kitty_largest" else self.first_drawer

    def _pick_up(self, seat: int) -> None:
        self.picked_kitty = list(self.kitty)
        for f in self.kitty:
            self.hands[seat][f] += 1
        self.kitty = []
        self.burier = seat
        self.phase = BURYING

    # ----- the kitty -----
    def check_bury(self, seat: int, faces: Sequence[int]) -> None:
        if self.phase != BURYING:
            raise IllegalAction(IllegalCode.WRONG_PHASE)
        if seat != self.burier:
            raise IllegalAction(IllegalCode.NOT_YOUR_TURN)
        if len(faces) != KITTY_SIZE:
            raise IllegalAction(IllegalCode.BURY_COUNT, count=KITTY_SIZE)
        if not holds(self.hands[seat], faces):
            raise IllegalAction(IllegalCode.NOT_IN_HAND)

    def bury(self, seat: int, faces: Sequence[int]) -> None:
        self.check_bury(seat, faces)
        self.do_bury(seat, faces)

    def do_bury(self, seat: int, faces: Sequence[int]) -> None:
        """Apply a bury ``check_bury`` accepted for this very state."""
        for f in faces:
            self.hands[seat][f] -= 1
        self.kitty = list(faces)
        if self.rules.chao and not self.open and not self.trump_from_kitty:
            self.phase = CHAO
            self.chao_turn = (seat + 1) % 4
            self.chao_passes = 0
        else:
            self._start_play()

    def check_chao(self, seat: int, faces: Sequence[int]) -> Declaration:
        if self.phase != CHAO:
            raise IllegalAction(IllegalCode.WRONG_PHASE)
        if seat != self.chao_turn:
            raise IllegalAction(IllegalCode.NOT_YOUR_TURN)
        new = self._shown(seat, faces, self.level, False)
        if new.count < 2:
            raise IllegalAction(IllegalCode.CANNOT_OVERRIDE)
        return new

    def chao(self, seat: int, faces: Sequence[int]) -> Declaration:
        return self.do_chao(self.check_chao(seat, faces))

    def do_chao(self, new: Declaration) -> Declaration:
        """Apply a 炒底 ``check_chao`` gave for this very state."""
        seat = new.seat
        self.declaration = new
        self.declarations.append(new)
        self.trump = new.suit
        self.order = order_for(self.level, self.trump, self.rules)
        self.chao_turn = None
        self._pick_up(seat)
        return new

    def chao_pass(self, seat: int) -> None:
        if seat != self.chao_turn:
            raise IllegalAction(IllegalCode.NOT_YOUR_TURN)
        self.chao_passes += 1
        nxt = (seat + 1) % 4
        if self.chao_passes >= 3:
            self.chao_turn = None
            self._start_play()
        else:
            self.chao_turn = nxt

    def _start_play(self) -> None:
        self.phase = PLAYING
        self.leader = self.turn = self.dealer

    # ----- revolution -----
    def hand_points(self, seat: int) -> int:
        return sum(map(mul, POINTS, self.hands[seat]))

    def can_revolt(self, seat: int) -> bool:
        return (
            self.rules.revolution
            and self.phase in (BURYING, CHAO, PLAYING)
            and self.is_defender(seat)
            and seat not in self.played
            and self.hand_points(seat) <= self.rules.revolution_max_points
        )

    def revolt(self, seat: int) -> None:
        if not self.can_revolt(seat):
            raise IllegalAction(IllegalCode.CANNOT_REVOLT)
        assert self.dealer is not None
        self.result = HandResult("revolution", self.dealer, team_of(self.dealer))
        self.phase = OVER

    # ----- play -----
    def check_play(self, seat: int, faces: Sequence[int]) -> Lead | None:
        """Refuses an illegal play; for a lead, returns what would be on the table."""
        if self.phase != PLAYING:
            raise IllegalAction(IllegalCode.WRONG_PHASE)
        if seat != self.turn:
            raise IllegalAction(IllegalCode.NOT_YOUR_TURN)
        assert self.order is not None
        if not self.trick:
            others = [self.hands[s] for s in range(4) if s != seat]
            return check_lead(faces, self.hands[seat], others, self.order)
        assert self.lead is not None
        check_follow(faces, self.hands[seat], self.lead, self.order)
        return None

    def winner_if(self, seat: int, faces: Sequence[int]) -> int | None:
        """The seat that takes the trick if ``seat`` plays ``faces`` (a legal follow) as its fourth
        play; None when no trick would be completed by it."""
        if self.phase != PLAYING or len(self.trick) != 3 or self.lead is None or self.order is None:
            return None
        seats = [s for s, _ in self.trick] + [seat]
        return seats[trick_winner([p for _, p in self.trick] + [tuple(faces)], self.lead, self.order)]

    def play(self, seat: int, faces: Sequence[int]) -> list[dict[str, Any]]:
        """Play cards; returns the public events (a failed throw, a trick won, the hand over)."""
        return self.do_play(seat, faces, self.check_play(seat, faces))

    def do_play(self, seat: int, faces: Sequence[int], lead: Lead | None) -> list[dict[str, Any]]:
        """Apply a play ``check_play`` accepted for this very state (``lead``: what it returned)."""
        events: list[dict[str, Any]] = []
        if lead is not None:
            played = lead.faces
            if lead.failed:
                penalty = self._charge_throw(seat, lead)
                event: dict[str, Any] = {
                    "e": "throw_failed",
                    "seat": seat,
                    "attempted": cards_str(lead.attempted),
                    "played": cards_str(lead.faces),
                    "penalty": penalty,
                }
                assert self.order is not None
                shown = beater(lead.units[0], [((seat + i) % 4, self.hands[(seat + i) % 4]) for i in (1, 2, 3)],
                               self.order)
                if shown is not None:  # the seat that shows the cards beating what was forced
                    event["beaten_by"] = shown[0]
                    event["beater"] = cards_str(shown[1])
                events.append(event)
            self.lead = lead
        else:
            played = tuple(faces)
        if self._lay(seat, played):
            events.extend(self._end_trick())
        return events

    def play_trusted(self, seat: int, faces: Sequence[int]) -> None:
        """The trusted path: ``seat`` (the seat to play) plays ``faces``, known legal, nothing re-checked.

        For playouts whose moves the engine generated (``engine.randplay``, the
        AI's policy): the cards are not checked against the hand or the
        follow rules. What is not a check but a rule still runs: a throw is
        tested against the other hands and a failed one is corrected and
        penalised, the trick is won and scored, the hand ends. No events.
        """
        if not self.trick:
            order = self.order
            assert order is not None
            f = faces[0]
            n = len(faces)
            if n == 1:
                lead = Lead((f,), order.suit[f], (Unit(0, order.rank[f], (f,)),), (f,))
            elif n == 2 and faces[1] == f:
                t = (f, f)
                lead = Lead(t, order.suit[f], (Unit(1, order.rank[f], t),), t)
            else:
                lead = check_lead(faces, self.hands[seat], [self.hands[s] for s in range(4) if s != seat], order)
                if lead.failed:
                    self._charge_throw(seat, lead)
            self.lead = lead
            faces = lead.faces
        if self._lay(seat, tuple(faces)):
            self._end_trick()

    def _charge_throw(self, seat: int, lead: Lead) -> int:
        """A failed throw's penalty, counted for the other side; returns it."""
        penalty = throw_penalty(self.rules, len(lead.attempted), len(lead.faces))
        if penalty:
            self.penalties += penalty if not self.is_defender(seat) else -penalty
            self.defender_points += penalty if not self.is_defender(seat) else -penalty
        return penalty

    def _lay(self, seat: int, played: tuple[int, ...]) -> bool:
        """Take the cards from the hand onto the trick; True when the trick is complete."""
        hand = self.hands[seat]
        for f in played:
            hand[f] -= 1
        self.played.add(seat)
        self.trick.append((seat, played))
        if len(self.trick) < 4:
            self.turn = (seat + 1) % 4
            return False
        return True

    def _end_trick(self) -> list[dict[str, Any]]:
        assert self.order is not None and self.lead is not None and self.dealer is not None
        idx = trick_winner([p for _, p in self.trick], self.lead, self.order)
        winner = self.trick[idx][0]
        points = 0
        for _, p in self.trick:
            for f in p:
                points += POINTS[f]
        if self.is_defender(winner):
            self.defender_points += points
        self.last_trick = self.trick
        self.last_trick_winner = winner
        self.tricks.append((self.trick, winner, points))
        self.tricks_played += 1
        events: list[dict[str, Any]] = [{"e": "trick", "winner": winner, "points": points}]
        lead = self.lead
        winning_play = self.trick[idx][1]
        self.trick = []
        self.lead = None
        self.leader = self.turn = winner
        if not any(self.hands[winner]):
            self._finish(winner, lead, winning_play)
            assert self.result is not None
            events.append({"e": "hand_over", **self.result.to_dict()})
        return events

    def _finish(self, winner: int, lead: Lead, winning_play: Sequence[int]) -> None:
        assert self.dealer is not None and self.order is not None
        dteam = team_of(self.dealer)
        result = HandResult("played", self.dealer, dteam, kitty=list(self.kitty), penalties=self.penalties)
        result.last_winner = winner
        result.kitty_points = sum(POINTS[f] for f in self.kitty)
        knocked: int | None = None
        if self.is_defender(winner):
            result.kitty_multiplier = kitty_multiplier(self.rules, lead.units)
            self.defender_points += result.kitty_points * result.kitty_multiplier
            level_cards = sum(1 for f in winning_play if f < SMALL_JOKER and rank_of(f) == self.level)
            knocked = knockback(self.rules, self.level, level_cards)
        result.defender_points = self.defender_points
        result.knocked_to = knocked
        result.outcome = outcome(
            self.rules, self.defender_points, self.team_levels[dteam], self.team_levels[1 - dteam], knocked
        )
        self.result = result
        self.turn = None
        self.phase = OVER

    # ----- views -----
    def named_hand(self, seat: int) -> tuple[str, ...]:
        """The seat's cards in display order (``shown.hand_names``), named again only when they changed:
        after an event the host draws every seat, and three of the four hands are as they were."""
        counts = self.hands[seat]
        order = self.order
        got = self._named_hands[seat]
        if got is not None and got[0] is order and got[1] == counts:
            return got[2]
        names = tuple(hand_names(counts, order))
        self._named_hands[seat] = (order, list(counts), names)
        return names

    def shown_tricks(self) -> list[ShownTrick]:
        """The finished tricks with their cards named, each named once (finished tricks never change)."""
        shown = self._named_tricks
        tricks = self.tricks
        for i in range(len(shown), len(tricks)):
            shown.append(shown_trick(*tricks[i]))
        return shown

    def public(self) -> HandPublic:
        d = self.declaration
        lr = self.last_trick
        shown = self.shown_tricks()
        return {
            "phase": self.phase,
            "dealer": self.dealer,
            "declarers": None if self.dealer is None else [self.dealer % 2, self.dealer % 2 + 2],
            "level": rank_str(self.level),
            "trump": trump_name(self.trump),
            "declaration": None if d is None else {"seat": d.seat, "cards": cards_str([d.face] * d.count)},
            "trick": [(s, cards_str(p)) for s, p in self.trick],
            "leader": self.leader,
            "turn": self.turn,
            "last_trick": (
                plays_view(shown[-1][0]) if shown and lr is self.tricks[-1][0] else [(s, cards_str(p)) for s, p in lr]
            ),
            "last_trick_winner": self.last_trick_winner,
            "defender_points": self.defender_points,
            "tricks_played": self.tricks_played,
            "tricks": tricks_view(shown),
            "lead_shape": self.lead_units_shape(),
            "hand_counts": self.cards_left(),
            "cards_dealt": self.drawn,
            "burier": self.burier if self.phase == BURYING else None,
            "chao_turn": self.chao_turn,
            "forced": self.forced,
            "to_act": self.to_act(),
        }

    def lead_units_shape(self) -> list[int]:
        return [] if self.lead is None else [u.pairs for u in self.lead.units]


def trump_name(trump: int | None) -> TrumpName | None:
    """The trump as views name it."""
    name = trump_str(trump)
    return None if name is None else _TRUMP_NAMES[name]


_TRUMP_NAMES: dict[str, TrumpName] = {"S": "S", "H": "H", "D": "D", "C": "C", "NT": "NT"}


__all__ = ["BURYING", "CHAO", "DEALING", "DECLARING", "OVER", "PLAYING", "Hand", "HandResult", "decompose"]
