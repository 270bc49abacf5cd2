"""The end of a hand: level tables, kitty multipliers, must-play levels, knock-back."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .combos import Unit, primary
from .rules import Rules
from .views import Side

_SUPER_BANDS: tuple[tuple[int, Side, int], ...] = (  # (lowest points, winner, levels) from document 004k
    (0, "declarers", 6), (5, "declarers", 5), (15, "declarers", 4), (25, "declarers", 3),
    (35, "declarers", 2), (40, "declarers", 1), (80, "defenders", 0), (120, "defenders", 1),
    (125, "defenders", 2), (165, "defenders", 3), (205, "defenders", 4), (245, "defenders", 5),
    (285, "defenders", 6),
)  # fmt: skip


def level_change(rules: Rules, points: int) -> tuple[Side, int]:
    """Who wins the hand and by how many levels, from the defenders' final points."""
    s = max(points, 0)
    table = rules.level_table
    if table == "classic":
        if s == 0:
            return "declarers", 5
        if s < 20:
            return "declarers", 3
        if s < 80:
            return "declarers", 1
        if s < 120:
            return "defenders", 0
        if s < 160:
            return "defenders", 1
        if s < 180:
            return "defenders", 2
        if s < 190:
            return "defenders", 3
        if s < 200:
            return "defenders", 4
        return "defenders", 5
    if table == "competition":
        if s >= 80:
            return "defenders", (s - 80) // 20
        if s == 0:
            return "declarers", 5
        if s < 40:
            return "declarers", 3
        return "declarers", 1
    if table == "chaodipi":
        if s == 0:
            return "declarers", 9
        if s < 80:
            return "declarers", 8 - s // 10
        return "defenders", (s - 80) // 10
    winner: Side = "declarers"
    levels = 6
    for low, who, n in _SUPER_BANDS:
        if s >= low:
            winner, levels = who, n
    return winner, levels


def kitty_multiplier(rules: Rules, lead: Sequence[Unit]) -> int:
    """The multiplier for a kitty dug by a play answering ``lead`` (its largest part counts)."""
    main = primary(lead)
    if rules.kitty_scheme == "flat2":
        return 2
    if rules.kitty_scheme == "pair4":
        # 002 第四条 3: ×2, or ×4 when dug with a pair (对子) or a tractor (姐妹对), taken whole;
        # "大王加一对不能成为双扣底": a throw holding a pair is not a double dig, so it is ×2.
        return 4 if len(lead) == 1 and main.pairs >= 1 else 2
    if rules.kitty_scheme == "power2":
        return int(2 ** (main.pairs + 1))
    if main.pairs == 0:
        return 2
    return 4 * main.pairs


def advance(rules: Rules, level: int, by: int, playing_it: bool) -> tuple[int, bool]:
    """Move a side up ``by`` levels; returns (new level, passed the final level).

    A side stops on every must-play level it reaches; the final level is
    passed only by the side that plays it as dealer (when it is must-play).
    """
    cur = level
    target = rules.target
    for _ in range(by):
        if target is not None and cur == target:
            if playing_it or target not in rules.must_play:
                return cur, True
            break
        cur += 1
        if cur > 12:
            if target is None:
                cur = 0
            else:
                return 12, True
        if cur in rules.must_play:
            break
    return cur, False


def knockback(rules: Rules, level: int, level_cards_in_last_play: int) -> int | None:
    """003 (七): dug with the level card while playing J or A sends the dealer side back."""
    if not rules.knockback or level_cards_in_last_play == 0:
        return None
    if level == 9:
        return 0
    if level == 12:
        return 9 if level_cards_in_last_play == 1 else 0
    return None


@dataclass(frozen=True)
class Outcome:
    winner: Side
    levels: int
    declarer_level: int
    defender_level: int
    passed: bool  # the winner passed the final level: the match is over


def outcome(
    rules: Rules, points: int, declarer_level: int, defender_level: int, knocked_to: int | None = None
) -> Outcome:
    winner, levels = level_change(rules, points)
    if winner == "declarers":
        new, passed = advance(rules, declarer_level, levels, playing_it=True)
        dl, fl = new, defender_level
    else:
        new, passed = advance(rules, defender_level, levels, playing_it=False)
        dl, fl = declarer_level, new
    if knocked_to is not None:
        dl = knocked_to
        if winner == "declarers":
            passed = False
    return Outcome(winner, levels, dl, fl, passed)


def throw_penalty(rules: Rules, attempted: int, played: int) -> int:
    """The points a failed throw of `attempted` cards, of which `played` stood, costs the thrower's team.

    One function for the hand and for the AI's rollouts, so a search never scores a failed throw
    differently from the table.
    """
    pts = rules.throw_penalty_points
    mode = rules.throw_penalty
    if mode == "per_card_thrown":
        return pts * attempted
    if mode == "per_card_failed":
        return pts * (attempted - played)
    if mode == "per_throw":
        return pts
    return 0
