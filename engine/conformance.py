"""``python -m engine.conformance CASE.json``: run one rules case, print what the engine decides.

It never reads ``expect``. Exit 0 when the case ran, 2 with a one-line
error for a malformed case.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from typing import Any

from .cards import CardError, cards_str, counts_of, parse_card, parse_rank, parse_trump, rank_str
from .declare import Declaration, validate
from .errors import IllegalAction, IllegalCode
from .hand import Hand
from .rules import PRESETS, Rules
from .scoring import outcome


class CaseError(ValueError):
    pass


def _cards(raw: Any, what: str) -> list[int]:
    if not isinstance(raw, list):
        raise CaseError(f"{what} must be a list of cards")
    try:
        return [parse_card(str(c)) for c in raw]
    except CardError as exc:
        raise CaseError(f"{what}: {exc}") from None


def _rules(case: dict[str, Any]) -> Rules:
    name = case.get("rules", "classic")
    if name not in PRESETS:
        raise CaseError(f"unknown preset {name!r}")
    return PRESETS[name]


def _check_supply(groups: list[list[int]]) -> None:
    total = Counter(f for g in groups for f in g)
    for f, n in total.items():
        if n > 2:
            raise CaseError(f"card {cards_str([f])[0]} appears {n} times; two decks hold it twice")


def run_trick(case: dict[str, Any]) -> dict[str, Any]:
    rules = _rules(case)
    level = parse_rank(str(case.get("level", "2")))
    trump = parse_trump(str(case.get("trump", "NT")))
    assert trump is not None
    declarers = case.get("declarers", [0, 2])
    if not isinstance(declarers, list) or len(declarers) != 2 or sorted(declarers) not in ([0, 2], [1, 3]):
        raise CaseError("declarers must be [0, 2] or [1, 3]")
    raw_hands = case.get("hands")
    if not isinstance(raw_hands, list) or len(raw_hands) != 4:
        raise CaseError("hands must hold four lists")
    hands = [_cards(h, f"hands[{i}]") for i, h in enumerate(raw_hands)]
    kitty = _cards(case.get("kitty", []), "kitty")
    _check_supply([*hands, kitty])
    leader = case.get("leader", 0)
    if leader not in range(4):
        raise CaseError("leader must be a seat 0-3")
    defender_level = parse_rank(str(case.get("defender_level", "2")))
    hand = Hand.at_trick(
        rules,
        level,
        trump,
        declarers,
        [counts_of(h) for h in hands],
        leader,
        kitty,
        int(case.get("defender_points", 0)),
        defender_level,
    )
    plays_out: list[dict[str, Any]] = []
    tricks_out: list[dict[str, Any]] = []
    plays = case.get("plays", [])
    if not isinstance(plays, list):
        raise CaseError("plays must be a list")
    for attempt in plays:
        if not isinstance(attempt, list) or len(attempt) != 2 or attempt[0] not in range(4):
            raise CaseError(f"bad play attempt {attempt!r}")
        seat, cards = attempt
        faces = _cards(cards, "a play")
        leading = not hand.trick
        try:
            events = hand.play(seat, faces)
        except IllegalAction as exc:
            plays_out.append({"ok": False, "reason": exc.code})
            continue
        entry: dict[str, Any] = {"ok": True}
        if leading:
            played = hand.trick[0][1] if hand.trick else hand.last_trick[0][1]
            entry["played"] = cards_str(played)
            entry["penalty"] = 0
        for e in events:
            if e["e"] == "throw_failed":
                entry["penalty"] = e["penalty"]
            elif e["e"] == "trick":
                tricks_out.append({"winner": e["winner"], "points": e["points"]})
        plays_out.append(entry)
    out: dict[str, Any] = {"plays": plays_out, "tricks": tricks_out}
    r = hand.result
    if r is not None and r.outcome is not None:
        o = r.outcome
        out["result"] = {
            "defender_points": r.defender_points,
            "kitty_multiplier": r.kitty_multiplier,
            "winner": o.winner,
            "levels": o.levels,
            "next_levels": {"declarers": rank_str(o.declarer_level), "defenders": rank_str(o.defender_level)},
        }
    return out


def run_score(case: dict[str, Any]) -> dict[str, Any]:
    rules = _rules(case)
    points = case.get("defender_points")
    if not isinstance(points, int):
        raise CaseError("defender_points must be a number")
    dl = parse_rank(str(case.get("declarer_level", "2")))
    fl = parse_rank(str(case.get("defender_level", "2")))
    o = outcome(rules, points, dl, fl)
    out: dict[str, Any] = {
        "winner": o.winner,
        "levels": o.levels,
        "next_level": rank_str(o.declarer_level if o.winner == "declarers" else o.defender_level),
        "match_over": o.passed,
    }
    if o.passed:
        out["match_winner"] = o.winner
    return out


def run_declare(case: dict[str, Any]) -> dict[str, Any]:
    rules = _rules(case)
    level = parse_rank(str(case.get("level", "2")))
    raw_hands = case.get("hands")
    if not isinstance(raw_hands, list) or len(raw_hands) != 4:
        raise CaseError("hands must hold four lists")
    hands = [counts_of(_cards(h, f"hands[{i}]")) for i, h in enumerate(raw_hands)]
    current: Declaration | None = None
    first: int | None = None
    out_decl: list[dict[str, Any]] = []
    attempts = case.get("declarations", [])
    if not isinstance(attempts, list):
        raise CaseError("declarations must be a list")
    for attempt in attempts:
        if not isinstance(attempt, list) or len(attempt) != 2 or attempt[0] not in range(4):
            raise CaseError(f"bad declaration attempt {attempt!r}")
        seat, cards = attempt
        faces = _cards(cards, "a declaration")
        try:
            if not faces or hands[seat][faces[0]] < len(faces):
                raise IllegalAction(IllegalCode.NOT_IN_HAND)
            current = validate(rules, current, seat, faces, hands[seat][faces[0]], level, bool(case.get("first_hand")))
            if first is None:
                first = seat
            out_decl.append({"ok": True})
        except IllegalAction as exc:
            out_decl.append({"ok": False, "reason": exc.code})
    result: dict[str, Any] = {"declarations": out_decl, "trump": None}
    if current is not None:
        suit = current.suit
        result["trump"] = "NT" if suit == 4 else "SHDC"[suit]
        if case.get("first_hand"):
            result["dealer"] = first if rules.first_hand_dealer == "first" else current.seat
    return result


RUNNERS = {"trick": run_trick, "score": run_score, "declare": run_declare}


def run_case(case: dict[str, Any]) -> dict[str, Any]:
    if not isinstance(case, dict):
        raise CaseError("a case is a JSON object")
    kind = case.get("kind")
    runner = RUNNERS.get(str(kind))
    if runner is None:
        raise CaseError(f"unknown kind {kind!r}")
    try:
        return runner(case)
    except CardError as exc:
        raise CaseError(str(exc)) from None


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m engine.conformance CASE.json", file=sys.stderr)
        return 2
    try:
        with open(args[0], encoding="utf-8") as fh:
            case = json.load(fh)
        out = run_case(case)
    except (OSError, json.JSONDecodeError, CaseError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(out, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
