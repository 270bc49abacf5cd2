"""A match: hands one after another until a side passes its final level.

A match is its rules, its seed and the list of accepted actions; its state
is a fold of that list, so ``Match.replay`` rebuilds it exactly.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from typing import Any

from .cards import (
    CARD_INDEX,
    FULL_DECK,
    NUM_FACES,
    POINTS,
    SMALL_JOKER,
    CardError,
    cards_str,
    parse_card,
    rank_of,
    rank_str,
)
from .errors import IllegalAction
from .formats import adjudicate_time_limit
from .hand import BURYING, CHAO, DEALING, DECLARING, OVER, PLAYING, Hand, sort_key, team_of
from .play import auto_follow, follow_options, lead_options
from .rules import Rules

MATCH_OVER = "match_over"
DEAL_STEP = 4  # cards a system "deal" action draws by default: one round of the table


class Match:
    def __init__(self, rules: Rules, seed: int) -> None:
        self.rules = rules
        self.seed = seed
        self.actions: list[dict[str, Any]] = []
        self.levels = [rules.start_level, rules.start_level]
        self.hand_no = 0
        self.time_up = False
        self.result: dict[str, Any] | None = None
        self.history: list[dict[str, Any]] = []
        self.last_result: dict[str, Any] | None = None
        self._forced_dealer: int | None = None
        self.hand: Hand = self._new_hand(dealer=None, first_drawer=None)

    # ----- construction -----
    @classmethod
    def new(cls, rules: Rules, seed: int) -> Match:
        return cls(rules, seed)

    @classmethod
    def replay(cls, rules: Rules, seed: int, actions: Iterable[dict[str, Any]]) -> Match:
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
        if first_drawer is None:
            first_drawer = dealer if dealer is not None else rng.randrange(4)
        return Hand(self.rules, self.levels, dealer, first_drawer, deck)

    @property
    def version(self) -> int:
        return len(self.actions)

    @property
    def phase(self) -> str:
        return MATCH_OVER if self.result is not None else self.hand.phase

    # ----- actions -----
    def check(self, action: dict[str, Any]) -> IllegalAction | None:
        """Would ``apply`` accept this? Tested on a copy, so nothing changes."""
        try:
            self._dry_run(action)
        except IllegalAction as exc:
            return exc
        return None

    def _dry_run(self, action: dict[str, Any]) -> None:
        """The same tests ``apply`` makes, without changing anything (no copies)."""
        if not isinstance(action, dict):
            raise IllegalAction("bad_action")
        if self.result is not None:
            raise IllegalAction("wrong_phase")
        t = action.get("t")
        h = self.hand
        ph = h.phase
        if t == "play":
            h.check_play(_seat(action), _faces(action))
        elif t in ("declare", "chao"):
            seat = _seat(action)
            faces = _faces(action)
            if t == "declare":
                h.check_declare(seat, faces)
            else:
                h.check_chao(seat, faces)
        elif t == "deal":
            n = action.get("n", DEAL_STEP)
            if not isinstance(n, int) or isinstance(n, bool) or n < 1:
                raise IllegalAction("bad_action")
            if ph != DEALING:
                raise IllegalAction("wrong_phase")
        elif t == "close":
            if ph != DECLARING:
                raise IllegalAction("wrong_phase")
        elif t == "pass":
            h.check_pass(_seat(action))
        elif t == "bury":
            h.check_bury(_seat(action), _faces(action))
        elif t == "revolt":
            if not h.can_revolt(_seat(action)):
                raise IllegalAction("cannot_revolt")
        elif t == "next":
            if ph != OVER:
                raise IllegalAction("wrong_phase")
        elif t == "time_up":
            if self.time_up:
                raise IllegalAction("wrong_phase")
        else:
            raise IllegalAction("bad_action")

    def apply(self, action: dict[str, Any]) -> list[dict[str, Any]]:
        if not isinstance(action, dict):
            raise IllegalAction("bad_action")
        if self.result is not None:
            raise IllegalAction("wrong_phase")
        t = action.get("t")
        h = self.hand
        events: list[dict[str, Any]]
        if t == "play":
            seat = _seat(action)
            faces = _faces(action)
            events = [{"e": "played", "seat": seat}]
            events += h.play(seat, faces)
            events[0]["cards"] = cards_str(h.last_trick[-1][1] if not h.trick else h.trick[-1][1])
            if h.phase == OVER:
                events += self._end_hand()
        elif t == "deal":
            n = action.get("n", DEAL_STEP)
            if not isinstance(n, int) or isinstance(n, bool):
                raise IllegalAction("bad_action")
            h.deal(n)
            events = [{"e": "dealt", "cards_dealt": h.drawn}]
        elif t == "declare":
            seat = _seat(action)
            d = h.declare(seat, _faces(action))
            events = [{"e": "declared", "seat": seat, "cards": cards_str([d.face] * d.count)}]
            events += self._after_declaring(h)
        elif t == "pass":
            seat = _seat(action)
            h.pass_(seat)
            events = [{"e": "passed", "seat": seat}, *self._after_declaring(h)]
        elif t == "close":
            h.close()
            events = self._after_declaring(h)
        elif t == "bury":
            seat = _seat(action)
            h.bury(seat, _faces(action))
            events = [{"e": "buried", "seat": seat}]
        elif t == "chao":
            seat = _seat(action)
            d = h.chao(seat, _faces(action))
            events = [{"e": "chao", "seat": seat, "cards": cards_str([d.face] * d.count)}]
        elif t == "revolt":
            seat = _seat(action)
            h.revolt(seat)
            events = [{"e": "revolution", "seat": seat}, *self._end_hand()]
        elif t == "next":
            if h.phase != OVER:
                raise IllegalAction("wrong_phase")
            self._next_hand()
            events = [{"e": "new_hand", "hand_no": self.hand_no}]
        elif t == "time_up":
            if self.time_up:
                raise IllegalAction("wrong_phase")
            self.time_up = True
            events = [{"e": "time_up"}]
            if h.phase == OVER:
                events += self._adjudicate()
        else:
            raise IllegalAction("bad_action")
        self.actions.append(dict(action))
        return events

    def _after_declaring(self, h: Hand) -> list[dict[str, Any]]:
        if h.phase == BURYING:
            return [
                {
                    "e": "trump",
                    "trump": h.public()["trump"],
                    "dealer": h.dealer,
                    "from_kitty": h.trump_from_kitty,
                }
            ]
        if h.phase == OVER:
            return self._end_hand()
        return []

    # ----- between hands -----
    def _end_hand(self) -> list[dict[str, Any]]:
        h = self.hand
        r = h.result
        assert r is not None
        summary = r.to_dict()
        summary["hand_no"] = self.hand_no
        events: list[dict[str, Any]] = []
        if r.reason == "played" and r.outcome is not None:
            o = r.outcome
            dteam = r.declarer_team
            self.levels[dteam] = o.declarer_level
            self.levels[1 - dteam] = o.defender_level
            if o.passed:
                winner = dteam if o.winner == "declarers" else 1 - dteam
                self.result = {"winner_team": winner, "levels": self._level_strs(), "reason": "target"}
        summary["levels_after"] = self._level_strs()
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

    def _next_hand(self) -> None:
        r = self.hand.result
        assert r is not None
        dealer = self._forced_dealer if self._forced_dealer is not None else self._next_dealer()
        self._forced_dealer = None
        first = r.dealer if r.reason == "revolution" else None
        self.hand = self._new_hand(dealer, first)

    def _adjudicate(self) -> list[dict[str, Any]]:
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
        self.result = {"winner_team": a.winner_team, "levels": self._level_strs(), "reason": "time_limit"}
        return [{"e": "match_over", **self.result}]

    # ----- asking -----
    def to_act(self) -> list[int]:
        if self.result is not None:
            return []
        return self.hand.to_act()

    def system_action(self) -> dict[str, Any] | None:
        """The next action only the host's clock can take, if one fits now."""
        if self.result is not None:
            return None
        ph = self.hand.phase
        if ph == DEALING:
            return {"t": "deal", "n": DEAL_STEP}
        if ph == DECLARING and not self.hand.forced:
            return {"t": "close"}
        if ph == OVER:
            return {"t": "next"}
        return None

    def legal_actions(self, seat: int, limit: int = 500) -> list[dict[str, Any]]:
        h = self.hand
        out: list[dict[str, Any]] = []
        if self.result is not None:
            return out
        if h.phase in (DEALING, DECLARING, CHAO):
            if h.phase == CHAO and seat != h.chao_turn:
                return out
            for faces in self._declare_options(seat):
                t = "chao" if h.phase == CHAO else "declare"
                a = {"t": t, "seat": seat, "cards": cards_str(faces)}
                if self.check(a) is None:
                    out.append(a)
            if (h.phase == DECLARING and not h.forced and seat not in h.passes) or h.phase == CHAO:
                out.append({"t": "pass", "seat": seat})
        elif h.phase == PLAYING and seat == h.turn:
            assert h.order is not None
            if not h.trick:
                opts = lead_options(h.hands[seat], h.order)
            else:
                assert h.lead is not None
                opts = follow_options(h.hands[seat], h.lead, h.order, limit)
            out = [{"t": "play", "seat": seat, "cards": cards_str(o)} for o in opts]
        if h.can_revolt(seat):
            out.append({"t": "revolt", "seat": seat})
        return out

    def can_declare(self, seat: int) -> bool:
        """Whether `seat` holds a legal declaration now: what a host asks after every deal step,
        for each seat, so it stops at the first one instead of listing them all."""
        h = self.hand
        if self.result is not None or h.phase not in (DEALING, DECLARING):
            return False
        return any(self.check({"t": "declare", "seat": seat, "cards": cards_str(faces)}) is None
                   for faces in self._declare_options(seat))

    def _declare_options(self, seat: int) -> list[list[int]]:
        h = self.hand
        level = h.seat_level(seat) if h.phase != CHAO else h.level
        hand = h.hands[seat]
        opts: list[list[int]] = []
        for f in range(NUM_FACES):
            if not hand[f]:
                continue
            if f >= SMALL_JOKER:
                if hand[f] == 2:
                    opts.append([f, f])
                continue
            if rank_of(f) == level:
                opts.append([f])
                if hand[f] == 2:
                    opts.append([f, f])
        return opts

    def auto_action(self, seat: int, rng_seed: int = 0) -> dict[str, Any] | None:
        """One legal action for this seat, fast; None when it has nothing to do."""
        h = self.hand
        if self.result is not None:
            return None
        if h.phase == DECLARING:
            if h.forced:
                opts = [a for a in self.legal_actions(seat) if a["t"] == "declare"]
                return opts[0] if opts else None
            return {"t": "pass", "seat": seat} if seat not in h.passes else None
        if h.phase == CHAO:
            return {"t": "pass", "seat": seat} if seat == h.chao_turn else None
        if h.phase == BURYING and seat == h.burier:
            return {"t": "bury", "seat": seat, "cards": cards_str(self._auto_bury(seat))}
        if h.phase == PLAYING and seat == h.turn:
            assert h.order is not None
            order = h.order
            hand = h.hands[seat]
            if h.trick:
                assert h.lead is not None
                return {"t": "play", "seat": seat, "cards": cards_str(auto_follow(hand, h.lead, order))}
            rng = random.Random(rng_seed)
            leads = lead_options(hand, order)
            longest = max(len(o) for o in leads)
            best = [o for o in leads if len(o) == longest]
            return {"t": "play", "seat": seat, "cards": cards_str(rng.choice(best))}
        return None

    def _auto_bury(self, seat: int) -> list[int]:
        h = self.hand
        order = h.order
        assert order is not None
        cards = [f for f in range(NUM_FACES) for _ in range(h.hands[seat][f])]
        cards.sort(key=lambda f: (order.suit[f] == 4, POINTS[f] > 0, order.rank[f]))
        return cards[:8]

    # ----- views -----
    def public_view(self) -> dict[str, Any]:
        h = self.hand
        v = h.public()
        v.update(
            hand_no=self.hand_no,
            phase=self.phase,
            levels=self._level_strs(),
            version=self.version,
            last_result=self.last_result,
            result=self.result,
            rules=self.rules.name,
            rules_options=self.rules.to_dict(),  # overrides included, so an AI reads the rules in play
            time_up=self.time_up,
        )
        if self.result is not None:
            v["to_act"] = []
        return v

    def view(self, seat: int, public: dict[str, Any] | None = None) -> dict[str, Any]:
        """What this seat sees. `public`: this version's `public_view()` when the caller keeps one
        already (it is copied, not changed; its nested values are shared, so read them only)."""
        if seat not in range(4):
            raise IllegalAction("bad_action")
        h = self.hand
        v = dict(public) if public is not None else self.public_view()
        v["seat"] = seat
        faces = [f for f in range(NUM_FACES) for _ in range(h.hands[seat][f])]
        faces.sort(key=lambda f: sort_key(h.order, f))
        v["hand"] = cards_str(faces)
        if h.phase == BURYING and seat == h.burier:
            v["kitty"] = cards_str(h.picked_kitty)
        elif h.phase in (CHAO, PLAYING) and seat == h.burier:
            v["buried"] = cards_str(h.kitty)  # the seat put these there itself
        v["can_revolt"] = h.can_revolt(seat)
        return v


def _seat(action: dict[str, Any]) -> int:
    seat = action.get("seat")
    if not isinstance(seat, int) or isinstance(seat, bool) or seat not in range(4):
        raise IllegalAction("bad_action")
    return seat


def _faces(action: dict[str, Any]) -> list[int]:
    cards = action.get("cards")
    if not isinstance(cards, list) or len(cards) > 33:
        raise IllegalAction("bad_card")
    out: list[int] = []
    for c in cards:
        f = CARD_INDEX.get(c) if isinstance(c, str) else None
        if f is None:
            if not isinstance(c, str):
                raise IllegalAction("bad_card")
            try:
                f = parse_card(c)
            except CardError:
                raise IllegalAction("bad_card") from None
        out.append(f)
    return out


def hidden_cards(view: dict[str, Any]) -> Sequence[str]:
    """Cards a view shows as its own hand."""
    hand = view.get("hand", [])
    return list(hand) if isinstance(hand, list) else []
