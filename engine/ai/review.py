"""复盘: judge every decision one seat made in a finished hand, from that seat's view at that moment.

Why it can be trusted: each decision is judged on the view the seat had then (``Match.view`` at that
point of the log), never on the others' hidden cards. The choices weighed are the ones ``strong``
weighs (``basic``'s best plays, the bury variants, the legal bids and the pass) plus what the seat
did; each is played out to the end of the hand on the same deals of the hidden cards, sampled as
``strong`` samples them (``sampling`` with ``infer``'s guesses), with ``basic`` playing every seat
afterwards. A choice is *clearly better* when its mean gain over the seat's own move is at least
``FLAG_AT`` points and clears ``CONFIDENCE`` standard errors. The reason given for it is
``explain.reason`` on the same view, the code hints use, so a hint and a review entry agree.

After the hand every card is known, so each decision also gets a hindsight line: the best of the
same choices played out once on the real deal. It is labelled hindsight where it is shown, since the
seat could not have known it.

Cost: the budget per decision goes through ``strong``'s cost model (playouts per card still in
play), never the clock, so a review is the same on every machine; docs/ai.md has the CPU measured.
"""

from __future__ import annotations

import copy
import math
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..actions import Action, Bury, Chao, Declare, Pass, Play, SeatAction, action_from_json
from ..cards import card_str, cards_str
from ..declare import Declaration
from ..match import Match
from ..order import order_for
from ..rules import Rules
from ..views import SeatView
from . import rollout, search
from .bidding import bid_value
from .burying import COST_PER_HAND_S, play_hand, variants, without
from .explain import reason
from .infer import beliefs
from .options import action, can_pass, declare_options
from .race import RACE_AFTER, bound
from .sampling import Deal, sample
from .seen import Seen, faces, read_view
from .value import points_for

FLAG_AT = 10.0  # points a better choice must save on average to be named
CONFIDENCE = 1.0  # standard errors its saving must clear
DECISION_BUDGET_S = 0.4  # CPU per decision through the cost model (docs/ai.md: seconds per hand)
WIDTH = 4  # choices besides the seat's own, as ``strong`` weighs
MIN_DEALS = 8
MAX_DEALS = 200


@dataclass(frozen=True)
class Judged:
    """One decision: what the seat did, and the clearly better choice when there was one."""

    index: int  # position of the action in the match log
    kind: str  # "declare", "pass", "chao", "bury" or "play"
    trick: int | None  # 1-based trick of a play
    made: SeatAction
    better: SeatAction | None  # None: nothing weighed was clearly better
    saved: float  # mean points the best other choice gains over the seat's own (0 or less: none)
    error: float  # the standard error of ``saved``
    deals: int  # sampled deals the choices were played out on
    code: str = ""  # the reason for ``better`` (``explain.reason``): the hints' code
    params: dict[str, Any] = field(default_factory=dict)
    hindsight: SeatAction | None = None  # the best choice on the real deal, when not the seat's own
    hindsight_saved: float = 0.0  # what it would have gained there

    @property
    def flagged(self) -> bool:
        return self.better is not None


@dataclass(frozen=True)
class HandReview:
    """A seat's decisions in one hand, in the order made."""

    hand: int
    seat: int
    decisions: list[Judged]

    @property
    def flagged(self) -> list[Judged]:
        return [d for d in self.decisions if d.flagged]

    @property
    def cost(self) -> float:
        """The points the flagged decisions cost, summed over their estimates."""
        return sum(d.saved for d in self.flagged)

    @property
    def costliest(self) -> Judged | None:
        return max(self.flagged, key=lambda d: d.saved, default=None)


@dataclass(frozen=True)
class Moment:
    """A decision as the log holds it: the seat's view before it, the action, and the real deal."""

    index: int
    view: SeatView
    made: SeatAction
    hands: list[list[int]]  # every seat's cards then (hindsight only)
    kitty: list[int]


JUDGED = (Declare, Pass, Chao, Bury, Play)


def moments(rules: Rules, seed: int, actions: Sequence[Action | Mapping[str, object]], hand_no: int,
            seat: int) -> list[Moment]:
    """The seat's decisions in hand ``hand_no`` (1-based) of the log, with the view before each.

    Declarations made while cards are still being dealt are left out (most of the hand is unknown
    then, and ``strong`` does not search them either), and so is a pass that only closed a window.

    :raises ValueError: when the log does not finish that hand.
    """
    m = Match.new(rules, seed)
    out: list[Moment] = []
    finished = False
    for i, raw in enumerate(actions):
        a = action_from_json(dict(raw)) if isinstance(raw, Mapping) else raw
        if (m.hand_no == hand_no and isinstance(a, JUDGED) and a.seat == seat and m.phase != "dealing"
                and seat in m.to_act()):
            out.append(Moment(i, copy.deepcopy(m.view(seat)), a, [list(h) for h in m.hand.hands],
                              list(m.hand.kitty)))
        m.apply(a)
        if m.hand_no == hand_no and m.phase in ("hand_over", "match_over"):
            finished = True
            break
        if m.hand_no > hand_no:
            break
    if not finished:
        raise ValueError(f"hand {hand_no} is not finished in this log")
    return out


def review_hand(rules: Rules, seed: int, actions: Sequence[Action | Mapping[str, object]], hand_no: int,
                seat: int, *, budget_s: float = DECISION_BUDGET_S, deals: int | None = None) -> HandReview:
    """Judge each of the seat's decisions in a finished hand (``deals``: exactly that many sampled
    deals per decision instead of the budget, for tests)."""
    judged = [judge(mo, seed, hand_no, budget_s=budget_s, deals=deals) for mo in moments(rules, seed, actions,
                                                                                       hand_no, seat)]
    return HandReview(hand_no, seat, [j for j in judged if j is not None])


def judge(mo: Moment, seed: int, hand_no: int, *, budget_s: float = DECISION_BUDGET_S,
          deals: int | None = None) -> Judged | None:
    """One decision judged from its view; None when the seat had no choice (a forced play)."""
    seen = read_view(mo.view)
    rng = random.Random(f"review:{seed}:{hand_no}:{seen.seat}:{mo.index}")
    made = mo.made
    plan = _plan(seen, made, rng)
    if plan is None:
        return None
    choices, value, draw, kind = plan
    cards_left = sum(seen.hand_counts)
    playouts = search.playouts_for(budget_s, cards_left) if kind == "play" else int(budget_s / COST_PER_HAND_S)
    n = deals if deals is not None else max(MIN_DEALS, min(MAX_DEALS, playouts // len(choices)))
    means, errors, used = _compare(len(choices), n, draw, value)
    best = max(range(1, len(choices)), key=lambda j: means[j], default=0)
    saved, error = (means[best], errors[best]) if best else (0.0, 0.0)
    clear = best > 0 and saved >= FLAG_AT and saved - CONFIDENCE * error > 0
    real = Deal([list(h) for h in mo.hands], list(mo.kitty), True)
    truth = [value(real, j) for j in range(len(choices))]
    hind = max(range(len(choices)), key=lambda j: truth[j])
    code, params = "", dict[str, Any]()
    better = _as_action(seen, kind, choices[best]) if clear else None
    if better is not None:
        code, params = reason(mo.view, better)
    trick = seen.tricks_played + 1 if kind == "play" else None
    return Judged(mo.index, kind, trick, made, better, saved, error, used, code, params,
                  _as_action(seen, kind, choices[hind]) if truth[hind] > truth[0] else None, truth[hind] - truth[0])


Choice = Any  # a play's faces, a bury's faces, or a bid (Declaration, None for the pass)


def _plan(seen: Seen, made: SeatAction, rng: random.Random) -> tuple[list[Choice], Callable[[Deal, int], float],
                                                   Callable[[], Deal], str] | None:
    """The choices (the seat's own first), how one is played out on a deal, and how deals are drawn."""
    if isinstance(made, Play):
        assert seen.order is not None
        own = faces(list(made.cards))
        cands = search.candidates(seen, WIDTH)
        keys = {tuple(sorted(c)) for c in cands}
        if len(cands) <= 1 and tuple(sorted(own)) in keys:
            return None  # nothing else to weigh
        choices: list[Choice] = [own, *[c for c in cands if tuple(sorted(c)) != tuple(sorted(own))]]
        guesses = beliefs(seen)
        return choices, lambda d, j: play_points(seen, d, choices[j]), lambda: sample(seen, rng, guesses), "play"
    if isinstance(made, Bury):
        assert seen.trump is not None
        order = seen.order or order_for(seen.level, seen.trump, seen.rules)
        dealer = seen.dealer if seen.dealer is not None else seen.seat
        buried = list(faces(list(made.cards)))
        vs = [v for v in variants(seen.hand, order) if sorted(v) != sorted(buried)]
        choices = [buried, *vs]

        def bury_points(deal: Deal, j: int) -> float:
            hands = [list(h) for h in deal.hands]
            hands[seen.seat] = without(seen.hand, choices[j])
            return play_hand(seen, order, dealer, hands, choices[j], points_for)

        return choices, bury_points, lambda: sample(seen, rng), "bury"
    if isinstance(made, Declare | Chao | Pass) and seen.phase in ("declaring", "chao"):
        chao = seen.phase == "chao"
        bids: list[Declaration | None] = list(declare_options(seen, chao=chao))
        if chao or can_pass(seen):
            bids.append(None)
        own_bid = None if isinstance(made, Pass) else _bid_of(seen, made)
        others = [b for b in bids if not _same_bid(b, own_bid)]
        if not others:
            return None
        choices = [own_bid, *others]
        return (choices, lambda d, j: bid_value(seen, d, choices[j], points_for), lambda: sample(seen, rng),
                made.t)
    return None


def _bid_of(seen: Seen, made: Declare | Chao) -> Declaration:
    fs = faces(list(made.cards))
    return Declaration(seen.seat, fs[0], len(fs))


def _same_bid(a: Declaration | None, b: Declaration | None) -> bool:
    if a is None or b is None:
        return a is b
    return (a.face, a.count) == (b.face, b.count)


def _as_action(seen: Seen, kind: str, choice: Choice) -> SeatAction:
    if kind == "play":
        return action("play", seen.seat, cards_str(choice))
    if kind == "bury":
        return action("bury", seen.seat, cards_str(choice))
    if choice is None:
        return action("pass", seen.seat)
    return action("chao" if seen.phase == "chao" else "declare", seen.seat, [card_str(choice.face)] * choice.count)


def play_points(seen: Seen, deal: Deal, first: Sequence[int]) -> float:
    """Play ``first`` then finish the hand with the policy: the points for the seat's side."""
    assert seen.order is not None and seen.dealer is not None
    pts = rollout.run_out(seen.rules, seen.order, seen.dealer, [list(x) for x in deal.hands], deal.kitty,
                          seen.trick, seen.lead, seen.seat, seen.defender_points, first)
    return points_for(seen.rules, pts, seen.seat % 2 != seen.dealer % 2)


def _compare(k: int, n: int, draw: Callable[[], Deal], value: Callable[[Deal, int], float]
             ) -> tuple[list[float], list[float], int]:
    """Each choice's mean gain over choice 0 (the seat's own) on the same deals, and its standard
    error; choices clearly worse than the seat's own stop being played out after a few deals."""
    sums, squares, counts = [0.0] * k, [0.0] * k, [0] * k
    active = list(range(1, k))
    used = 0
    for i in range(n):
        deal = draw()
        used += 1
        base = value(deal, 0)
        for j in active:
            d = value(deal, j) - base
            sums[j] += d
            squares[j] += d * d
            counts[j] += 1
        if i + 1 >= RACE_AFTER:
            active = [j for j in active if bound(sums[j], squares[j], counts[j], -2.0) >= 0.0]
            if not active:
                break
    means = [s / c if c else 0.0 for s, c in zip(sums, counts, strict=True)]
    errors = [_error(s, q, c) for s, q, c in zip(sums, squares, counts, strict=True)]
    return means, errors, used


def _error(total: float, square: float, n: int) -> float:
    if n < 2:
        return math.inf
    mean = total / n
    return math.sqrt(max(0.0, square / n - mean * mean) / (n - 1))
