"""Tournaments in a chat (document 001): a knockout bracket, a round robin or a Swiss, as a pure model.

Everything here is plain data and pure steps, so a tournament is stored as
one JSON document and every rule is tested without a host:

- **Knockout** (001a/d/e/f, 004g): a bracket of the next power of two;
  seeded (1 v 8, 4 v 5, 2 v 7, 3 v 6 …, seeds by the league's rating) or
  drawn; missing entrants are byes that the top seeds (or the first drawn)
  receive; every match is one game except the final, best of three (001e).
- **Round robin / Swiss**: ranked by 大分, then 小分, then the head-to-head
  result among the tied (001c 六). Round robin by the circle method; Swiss
  pairs by score, never the same two twice, for ceil(log2 n) rounds.
- **Forfeits**: a team 15 minutes late (000; 001f) loses by forfeit: 3 大分
  + 13 小分 to the other side and nothing to it; both late is a double
  forfeit (nobody scores, nobody advances).
- **Byes**: in a knockout the entrant goes through; in a Swiss the bye is
  scored as a forfeit win (as chess Swisses give a full point); in a round
  robin every team sits out once when the number is odd, and scores nothing.

It runs past 400 lines because the three formats share the pairings,
results and ranking; their drawing and commands live in other modules.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from typing import Any, Literal, cast

Format = Literal["knockout", "roundrobin", "swiss"]
FORMATS: tuple[Format, ...] = ("knockout", "roundrobin", "swiss")
Status = Literal["open", "running", "finished", "cancelled"]

WIN_BIG, WIN_SMALL, LOSE_BIG = 3, 13, 1
MAX_ENTRANTS = 32
LATE_MINUTES = 15  # 000, 001f: a team this late forfeits
BOTH = -1  # `Pairing.forfeit` when both teams forfeited


class TournamentError(ValueError):
    """A step the tournament's state does not allow; `.code` names it for the person's language."""

    def __init__(self, code: str, **params: object) -> None:
        super().__init__(code)
        self.code = code
        self.params = params


@dataclass(frozen=True)
class Member:
    """A team member: a person (platform user id) or an AI seat (no id)."""

    user_id: str
    name: str

    @property
    def is_ai(self) -> bool:
        return not self.user_id


@dataclass
class Entrant:
    """A team of two. `no` is its entry number (1, 2, …); `seed` its place in the seeding."""

    no: int
    name: str
    members: list[Member]
    seed: int = 0

    @property
    def is_ai(self) -> bool:
        return all(m.is_ai for m in self.members)

    @property
    def full(self) -> bool:
        return len(self.members) == 2


@dataclass
class Game:
    """One game of a pairing: the table's match id, the winning side (0 = a, 1 = b) and levels gained."""

    match_id: int
    winner: int | None
    gained: tuple[int, int] = (0, 0)
    ending: str = "target"


@dataclass
class Pairing:
    """Two entrants meeting in a round (`b` None: a bye). `slot` orders pairings within a round."""

    round: int
    slot: int
    a: int | None
    b: int | None
    best_of: int = 1
    games: list[Game] = field(default_factory=list)
    winner: int | None = None  # entrant no
    forfeit: int | None = None  # entrant no that forfeited, or BOTH
    match_id: int | None = None  # the table open for it now

    @property
    def key(self) -> str:
        return f"r{self.round}s{self.slot}"

    @property
    def done(self) -> bool:
        return self.winner is not None or self.forfeit == BOTH

    @property
    def bye(self) -> bool:
        return (self.a is None) != (self.b is None)

    @property
    def ready(self) -> bool:
        """Both entrants known and nothing decided yet: a table can open for it."""
        return self.a is not None and self.b is not None and not self.done

    def game_wins(self) -> tuple[int, int]:
        won = [0, 0]
        for g in self.games:
            if g.winner in (0, 1):
                won[g.winner] += 1
        return won[0], won[1]

    def side_of(self, no: int) -> int | None:
        return 0 if self.a == no else 1 if self.b == no else None


@dataclass
class Row:
    """A round-robin or Swiss table line."""

    entrant: Entrant
    played: int = 0
    won: int = 0
    big: int = 0
    small: int = 0
    position: int = 0


def bracket_order(size: int) -> list[int]:
    """Seed numbers in bracket order for a power-of-two bracket: 8 -> 1 8 4 5 2 7 3 6."""
    order = [1]
    while len(order) < size:
        n = len(order) * 2
        order = [x for s in order for x in (s, n + 1 - s)]
    return order


def round_robin_rounds(nos: list[int]) -> list[list[tuple[int | None, int | None]]]:
    """The circle method: every entrant meets every other once; an odd field sits one out per round."""
    field_: list[int | None] = list(nos)
    if len(field_) % 2:
        field_.append(None)
    n = len(field_)
    rounds: list[list[tuple[int | None, int | None]]] = []
    for r in range(n - 1):
        pairs = []
        for i in range(n // 2):
            a, b = field_[i], field_[n - 1 - i]
            pairs.append((a, b) if r % 2 == 0 or i else (b, a))  # the fixed entrant alternates sides
        rounds.append(pairs)
        field_ = [field_[0], field_[-1], *field_[1:-1]]
    return rounds


@dataclass
class Tournament:
    """A chat's tournament: entrants, pairings by round, and the steps that move it on."""

    id: int
    platform: str
    chat_id: str
    fmt: Format
    seeded: bool = True
    preset: str = "classic"
    options: list[str] = field(default_factory=list)
    status: Status = "open"
    entrants: list[Entrant] = field(default_factory=list)
    pairings: list[Pairing] = field(default_factory=list)
    rounds: int = 0
    final_best_of: int = 3
    late_minutes: int = LATE_MINUTES
    seed: int = 1
    creator: str = ""

    # -- entrants ----------------------------------------------------------

    def entrant(self, no: int) -> Entrant:
        for e in self.entrants:
            if e.no == no:
                return e
        raise TournamentError("no_team", team=str(no))

    def team_of(self, user_id: str) -> Entrant | None:
        for e in self.entrants:
            if any(m.user_id == user_id for m in e.members):
                return e
        return None

    def find(self, word: str) -> Entrant | None:
        """An entrant by number or by name (case-insensitive, then a unique prefix)."""
        w = word.strip().lstrip("#")
        if w.isdigit():
            return next((e for e in self.entrants if e.no == int(w)), None)
        low = w.casefold()
        exact = [e for e in self.entrants if e.name.casefold() == low]
        if exact:
            return exact[0]
        prefix = [e for e in self.entrants if e.name.casefold().startswith(low)]
        return prefix[0] if len(prefix) == 1 else None

    def _need_open(self) -> None:
        if self.status != "open":
            raise TournamentError("not_open")

    def add_team(self, name: str, member: Member) -> Entrant:
        """A new team with its first member (a person may be in one team only)."""
        self._need_open()
        name = " ".join(name.split())[:24]
        if not name:
            raise TournamentError("team_name")
        if member.user_id and self.team_of(member.user_id) is not None:
            raise TournamentError("already_in", team=self.team_of(member.user_id).name)  # type: ignore[union-attr]
        if any(e.name.casefold() == name.casefold() for e in self.entrants):
            raise TournamentError("name_taken", team=name)
        if len(self.entrants) >= MAX_ENTRANTS:
            raise TournamentError("full", n=MAX_ENTRANTS)
        e = Entrant(max((x.no for x in self.entrants), default=0) + 1, name, [member])
        self.entrants.append(e)
        return e

    def join_team(self, word: str, member: Member) -> Entrant:
        self._need_open()
        e = self.find(word)
        if e is None:
            raise TournamentError("no_team", team=word[:24])
        if member.user_id and self.team_of(member.user_id) is not None:
            raise TournamentError("already_in", team=self.team_of(member.user_id).name)  # type: ignore[union-attr]
        if e.full:
            raise TournamentError("team_full", team=e.name)
        e.members.append(member)
        return e

    def leave(self, user_id: str) -> Entrant:
        """A person leaves before the start; an empty team goes."""
        self._need_open()
        e = self.team_of(user_id)
        if e is None:
            raise TournamentError("not_in")
        e.members = [m for m in e.members if m.user_id != user_id]
        if not e.members:
            self.entrants.remove(e)
        return e

    def add_ai_teams(self, n: int, names: list[str]) -> list[Entrant]:
        """`n` teams of two AI seats (names given by the caller, in the chat's language)."""
        self._need_open()
        out = []
        for i in range(n):
            if len(self.entrants) >= MAX_ENTRANTS:
                break
            no = max((x.no for x in self.entrants), default=0) + 1
            name = names[i % len(names)] if names else f"AI {no}"
            if any(x.name == name for x in self.entrants):
                name = f"{name} {no}"
            e = Entrant(no, name, [Member("", "AI"), Member("", "AI")])
            self.entrants.append(e)
            out.append(e)
        return out

    # -- starting ----------------------------------------------------------

    def start(self, strength: dict[int, float] | None = None) -> None:
        """Seeds or draws the field and lays out the first round (a round robin: all of them).

        `strength` (entrant no -> a rating) orders a seeded field; without one, entry order does.
        A team of one is completed with an AI partner.
        """
        self._need_open()
        if len(self.entrants) < 2 or (self.fmt != "knockout" and len(self.entrants) < 3):
            raise TournamentError("too_few", n=2 if self.fmt == "knockout" else 3)
        for e in self.entrants:
            if not e.full:
                e.members.append(Member("", "AI"))
        if self.seeded:
            power = strength or {}
            order = sorted(self.entrants, key=lambda e: (-power.get(e.no, -1e9), e.no))
        else:
            order = list(self.entrants)
            random.Random(self.seed).shuffle(order)
        for i, e in enumerate(order, 1):
            e.seed = i
        self.status = "running"
        if self.fmt == "knockout":
            self._lay_bracket(order)
        elif self.fmt == "roundrobin":
            for r, pairs in enumerate(round_robin_rounds([e.no for e in order]), 1):
                for s, (a, b) in enumerate(pairs):
                    if a is None:
                        a, b = b, None
                    self.pairings.append(Pairing(r, s, a, b))
            self.rounds = max(p.round for p in self.pairings)
        else:
            self.rounds = max(1, math.ceil(math.log2(len(self.entrants))))
            self._pair_swiss(1)
        self._settle()

    def _lay_bracket(self, order: list[Entrant]) -> None:
        size = 1 << max(1, math.ceil(math.log2(len(order))))
        self.rounds = int(math.log2(size))
        by_seed = {e.seed: e.no for e in order}
        positions = bracket_order(size)
        for s in range(size // 2):
            a, b = by_seed.get(positions[2 * s]), by_seed.get(positions[2 * s + 1])
            self.pairings.append(Pairing(1, s, a, b, best_of=self._best_of(1)))
        for r in range(2, self.rounds + 1):
            for s in range(size >> r):
                self.pairings.append(Pairing(r, s, None, None, best_of=self._best_of(r)))

    def _best_of(self, round_no: int) -> int:
        return self.final_best_of if round_no == self.rounds else 1

    # -- playing -----------------------------------------------------------

    def pairing(self, key: str) -> Pairing:
        for p in self.pairings:
            if p.key == key:
                return p
        raise TournamentError("no_pairing", key=key)

    def current_round(self) -> int:
        """The lowest round with something left to play (the last round once all is done)."""
        open_rounds = [p.round for p in self.pairings if not p.done]
        return min(open_rounds) if open_rounds else self.rounds

    def next_pairing(self) -> Pairing | None:
        """The next pairing to play (rounds in order; within a round, by slot)."""
        if self.status != "running":
            return None
        ready = [p for p in self.pairings if p.ready and p.round == self.current_round()]
        return min(ready, key=lambda p: p.slot) if ready else None

    def record_game(self, key: str, game: Game) -> Pairing:
        """A game of a pairing finished; decides the pairing once a side has won enough games."""
        p = self.pairing(key)
        if p.done:
            raise TournamentError("already_decided", key=key)
        if any(g.match_id == game.match_id for g in p.games):
            return p  # the same game reported twice
        p.games.append(game)
        p.match_id = None
        need = p.best_of // 2 + 1
        wins = p.game_wins()
        if game.ending == "forfeit" or max(wins) >= need:
            side = game.winner if game.ending == "forfeit" else (0 if wins[0] >= need else 1)
            if side is not None:
                p.winner = p.a if side == 0 else p.b
                if game.ending == "forfeit":
                    p.forfeit = p.b if side == 0 else p.a
        self._settle()
        return p

    def forfeit(self, key: str, loser: int | None) -> Pairing:
        """`loser` (an entrant no) forfeits the pairing; None: both did (nobody advances)."""
        p = self.pairing(key)
        if p.done:
            raise TournamentError("already_decided", key=key)
        if loser is None:
            p.forfeit = BOTH
        else:
            side = p.side_of(loser)
            if side is None:
                raise TournamentError("not_in_pairing", team=str(loser))
            p.forfeit = loser
            p.winner = p.b if side == 0 else p.a
        p.match_id = None
        self._settle()
        return p

    def _settle(self) -> None:
        """Byes go through, winners move up the bracket, a Swiss pairs its next round, the end is noticed."""
        for _ in range(4 * (self.rounds + 2)):
            changed = False
            for p in self.pairings:
                first = p.round == 1 or self.fmt != "knockout"  # later knockout byes wait for both feeders
                if first and p.bye and p.winner is None and p.forfeit is None:
                    p.winner = p.a if p.a is not None else p.b
                    changed = True
            if self.fmt == "knockout":
                changed |= self._feed_bracket()
            elif self.fmt == "swiss":
                r = max((p.round for p in self.pairings), default=0)
                if r < self.rounds and all(p.done for p in self.pairings):
                    self._pair_swiss(r + 1)
                    changed = True
            if not changed:
                break
        if self.status == "running" and all(p.done for p in self.pairings):
            self.status = "finished"

    def _feed_bracket(self) -> bool:
        changed = False
        by_key = {(p.round, p.slot): p for p in self.pairings}
        for p in self.pairings:
            if p.round == 1:
                continue
            feeders = [by_key[(p.round - 1, 2 * p.slot)], by_key[(p.round - 1, 2 * p.slot + 1)]]
            for side, f in enumerate(feeders):
                if not f.done:
                    continue
                if side == 0 and p.a is None and f.winner is not None:
                    p.a, changed = f.winner, True
                if side == 1 and p.b is None and f.winner is not None:
                    p.b, changed = f.winner, True
            both_done = all(f.done for f in feeders)
            if both_done and p.winner is None and p.forfeit is None and not p.games:
                if p.a is None and p.b is None:
                    p.forfeit = BOTH  # neither side sent anyone up: nothing to play
                    changed = True
                elif p.bye:  # the other side's match was a double forfeit: a walkover
                    p.winner = p.a if p.a is not None else p.b
                    changed = True
        return changed

    # -- scoring -----------------------------------------------------------

    def scores(self, p: Pairing) -> tuple[tuple[int, int], tuple[int, int]] | None:
        """大分/小分 for (a, b) of a decided pairing (001c 六); None while undecided or for a round-robin bye."""
        if p.forfeit == BOTH:
            return (0, 0), (0, 0)
        if p.winner is None:
            return None
        if p.bye:
            return ((WIN_BIG, WIN_SMALL), (0, 0)) if p.a is not None else ((0, 0), (WIN_BIG, WIN_SMALL))
        w = 0 if p.winner == p.a else 1
        if p.forfeit is not None:
            loser: tuple[int, int] = (0, 0)
        else:
            last = p.games[-1] if p.games else Game(0, w)
            loser = (LOSE_BIG, max(0, last.gained[1 - w]))
        won = (WIN_BIG, WIN_SMALL)
        return (won, loser) if w == 0 else (loser, won)

    def table(self) -> list[Row]:
        """Round robin / Swiss standings: 大分, 小分, head-to-head among the tied, then seed."""
        rows = {e.no: Row(e) for e in self.entrants}
        for p in self.pairings:
            sc = self.scores(p)
            if sc is None or (p.bye and self.fmt == "roundrobin"):
                continue
            for side, no in ((0, p.a), (1, p.b)):
                if no is None:
                    continue
                row = rows[no]
                row.played += 0 if p.bye else 1
                row.won += int(p.winner == no)
                row.big += sc[side][0]
                row.small += sc[side][1]
        groups: dict[tuple[int, int], list[Row]] = {}
        for row in rows.values():
            groups.setdefault((row.big, row.small), []).append(row)
        ordered: list[Row] = []
        for k in sorted(groups, reverse=True):
            group = groups[k]
            tied = {r.entrant.no for r in group}
            group.sort(key=lambda r: (-self._wins_over(r.entrant.no, tied - {r.entrant.no}), r.entrant.seed))
            ordered.extend(group)
        for i, row in enumerate(ordered, 1):
            row.position = i
        return ordered

    def _wins_over(self, no: int, rivals: set[int]) -> int:
        return sum(1 for p in self.pairings if p.winner == no and not p.bye
                   and ({p.a, p.b} - {no}) & rivals)

    def met(self, a: int, b: int) -> bool:
        return any({p.a, p.b} == {a, b} for p in self.pairings)

    def _pair_swiss(self, round_no: int) -> None:
        """Score groups from the top; the highest unpaired meets the next one it has not met."""
        standing = [r.entrant.no for r in self.table()] if round_no > 1 else \
            [e.no for e in sorted(self.entrants, key=lambda e: e.seed)]
        had_bye = {(p.a if p.a is not None else p.b) for p in self.pairings if p.bye}
        pool = list(standing)
        bye: list[tuple[int, int | None]] = []
        if len(pool) % 2:
            lone = next((no for no in reversed(pool) if no not in had_bye), pool[-1])
            pool.remove(lone)
            bye.append((lone, None))
        if round_no == 1:  # top half meets bottom half, as Swisses do
            half = len(pool) // 2
            matched: list[tuple[int, int | None]] = list(zip(pool[:half], pool[half:], strict=True))
        else:
            matched = self._match(pool) or list(zip(pool[::2], pool[1::2], strict=True))
        for s, (a, b) in enumerate(matched + bye):
            self.pairings.append(Pairing(round_no, s, a, b))

    def _match(self, pool: list[int]) -> list[tuple[int, int | None]] | None:
        """Pairs in standing order with no rematch (backtracking); None when every pairing repeats one."""
        if not pool:
            return []
        first, rest = pool[0], pool[1:]
        for i, other in enumerate(rest):
            if self.met(first, other):
                continue
            tail = self._match(rest[:i] + rest[i + 1:])
            if tail is not None:
                return [(first, other), *tail]
        return None

    def champion(self) -> Entrant | None:
        if self.status != "finished":
            return None
        if self.fmt == "knockout":
            final = [p for p in self.pairings if p.round == self.rounds]
            return self.entrant(final[0].winner) if final and final[0].winner is not None else None
        table = self.table()
        return table[0].entrant if table else None

    # -- storage -----------------------------------------------------------

    def to_dict(self) -> dict[str, object]:
        return {
            "id": self.id, "platform": self.platform, "chat_id": self.chat_id, "fmt": self.fmt,
            "seeded": self.seeded, "preset": self.preset, "options": list(self.options), "status": self.status,
            "rounds": self.rounds, "final_best_of": self.final_best_of, "late_minutes": self.late_minutes,
            "seed": self.seed, "creator": self.creator,
            "entrants": [{"no": e.no, "name": e.name, "seed": e.seed,
                          "members": [[m.user_id, m.name] for m in e.members]} for e in self.entrants],
            "pairings": [{"round": p.round, "slot": p.slot, "a": p.a, "b": p.b, "best_of": p.best_of,
                          "winner": p.winner, "forfeit": p.forfeit, "match_id": p.match_id,
                          "games": [[g.match_id, g.winner, list(g.gained), g.ending] for g in p.games]}
                         for p in self.pairings],
        }  # fmt: skip

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Tournament:
        t = cls(int(d["id"]), str(d["platform"]), str(d["chat_id"]), cast(Format, d["fmt"]),
                seeded=bool(d.get("seeded", True)), preset=str(d.get("preset", "classic")),
                options=[str(o) for o in d.get("options", [])], status=cast(Status, d.get("status", "open")),
                rounds=int(d.get("rounds", 0)), final_best_of=int(d.get("final_best_of", 3)),
                late_minutes=int(d.get("late_minutes", LATE_MINUTES)), seed=int(d.get("seed", 1)),
                creator=str(d.get("creator", "")))
        t.entrants = [Entrant(int(e["no"]), str(e["name"]), [Member(str(u), str(n)) for u, n in e["members"]],
                              int(e.get("seed", 0))) for e in d.get("entrants", [])]
        t.pairings = [Pairing(int(p["round"]), int(p["slot"]), p["a"], p["b"], int(p.get("best_of", 1)),
                              [Game(int(g[0]), g[1], (int(g[2][0]), int(g[2][1])), str(g[3])) for g in p["games"]],
                              p.get("winner"), p.get("forfeit"), p.get("match_id"))
                      for p in d.get("pairings", [])]
        return t
