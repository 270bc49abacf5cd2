"""What every door should show, worked out from the engine alone.

The host's AI seats (without worker threads) make the engine's quick move with the seed
`bot.ai.move_seed` gives; the shadow makes the same moves, and has Bob (a person at the doors that
seat two) play that same move through the door, so it knows the table every person should see
after a play without asking any door.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.ai import move_seed
from bot.scene.build import table_scene
from bot.table.moves import refusal_text
from engine import Match, Phase
from engine.actions import Play
from tests.scenarios.doors import ANN_SEAT, Deal
from tests.scenarios.seen import Seen, Summary, rank


class Shadow:
    """The match of a deal, moved on as the host moves it; `people`: the seats a person plays."""

    def __init__(self, deal: Deal, people: Sequence[int] = (ANN_SEAT,)) -> None:
        self.seed = deal.seed
        self.m = deal.match()
        self.people = tuple(people)

    @classmethod
    def of(cls, m: Match, people: Sequence[int] = (ANN_SEAT,)) -> Shadow:
        """The shadow of a match as a bot holds it (a copy, replayed from its log)."""
        shadow = cls.__new__(cls)
        shadow.seed, shadow.m, shadow.people = m.seed, Match.replay(m.rules, m.seed, m.actions), tuple(people)
        return shadow

    def playing(self) -> bool:
        return self.m.phase == Phase.PLAYING and bool(self.m.to_act())

    def move_of(self, seat: int) -> tuple[str, ...]:
        """The play an AI in `seat` makes now (Bob makes the same one, as a person, through the door)."""
        act = self.m.auto_action(seat, rng_seed=move_seed(self.seed, self.m.version, seat))
        assert isinstance(act, Play), act
        return tuple(act.cards)

    def play(self, seat: int, cards: Sequence[str]) -> None:
        """A person's play, then the AIs' until a person must act (or the hand is over)."""
        self.m.apply(Play(seat, tuple(cards)))
        while self.playing() and self.m.to_act()[0] not in self.people:
            self.m.apply(Play(self.m.to_act()[0], self.move_of(self.m.to_act()[0])))

    def next_person(self) -> int | None:
        """The person the table waits for now (None: nobody, or the hand is over)."""
        return self.m.to_act()[0] if self.playing() and self.m.to_act()[0] in self.people else None

    def ann_plays(self, cards: Sequence[str]) -> None:
        """Ann's play, then everyone else's until Ann must act again (or the hand is over)."""
        self.play(ANN_SEAT, cards)
        while (s := self.next_person()) not in (None, ANN_SEAT):
            self.play(s, self.move_of(s))

    def legal(self) -> tuple[str, ...]:
        """A legal play for Ann now (the engine's quick one)."""
        act = self.m.auto_action(0, rng_seed=self.m.version)
        assert isinstance(act, Play), act
        return tuple(act.cards)

    def seen(self, seat: int = ANN_SEAT) -> Seen:
        """Whose turn, the trick and the hand of `seat` as every door must show them (nothing said)."""
        pub = self.m.public_view()
        trick = tuple((int(s), tuple(c)) for s, c in pub.get("trick") or ())
        return Seen(tuple(self.m.to_act()), trick, tuple(sorted(self.m.view(seat)["hand"])), (), None)

    def summary(self) -> Summary:
        assert self.m.phase in (Phase.HAND_OVER, Phase.MATCH_OVER), self.m.phase
        sc = table_scene(self.m.public_view(), match_id=1, status="active", preset="classic", seats=[],
                         next_dealer=self.m.next_dealer())
        s = sc.summary
        assert s is not None
        return Summary(hand_no=int(s.hand_no or 0), points=s.defender_points, kitty=tuple(sorted(s.kitty)),
                       multiplier=s.kitty_multiplier if s.kitty_multiplier > 0 else None,
                       levels_after=(rank(s.levels_after[0]), rank(s.levels_after[1])) if s.levels_after else None,
                       next_dealer=s.next_dealer, levels_up=s.levels_up)


def refusal(shadow: Shadow, lang: str) -> tuple[tuple[str, ...], str]:
    """Two of Ann's cards the engine refuses for not following the lead, and the refusal in `lang`."""
    m = shadow.m
    hand = list(m.view(0)["hand"])
    size = len(m.public_view()["trick"][0][1])
    for i in range(len(hand) - size + 1):
        cards = tuple(hand[i:i + size])
        err = m.check(Play(0, cards))
        if err is not None and str(err.code).startswith("must_follow"):
            return cards, refusal_text(lang, err)
    raise AssertionError("Ann has no play that fails to follow")


def plays_at_both(shadow: Shadow, first: Sequence[str]) -> tuple[str, ...]:
    """A play Ann may make now and, after playing `first` (and the AIs theirs), at her next turn too:
    the choice that must not be played at that next turn when it was made for this one."""
    now = [tuple(a.cards) for a in shadow.m.legal_actions(0) if isinstance(a, Play)]
    after = Shadow.of(shadow.m, shadow.people)
    after.ann_plays(first)
    assert after.m.to_act() == [0], "Ann does not play again in this hand"
    left = list(after.m.view(0)["hand"])
    for cards in sorted(now, key=len):
        if all(left.count(c) >= cards.count(c) for c in cards) and after.m.check(Play(0, cards)) is None:
            return cards
    raise AssertionError("no play Ann could make at both turns")
