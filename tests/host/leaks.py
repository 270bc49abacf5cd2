"""The leak scanner: no outgoing text may show a card its reader may not know."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from typing import Any

from bot.cardtext import card_text
from bot.platform import View

CARD_RE = re.compile(r"大王|小王|[♠♥♦♣](?:10|[2-9JQKA])")
_FACES = [r + s for s in "SHDC" for r in "23456789TJQKA"] + ["SJ", "BJ"]
TEXT_TO_CODE = {card_text(c): c for c in _FACES}


def mentioned(view: View) -> Counter[str]:
    """Cards named in a view, line by line (a line may repeat a card another line shows)."""
    out: Counter[str] = Counter()
    for t in view.text.split("\n") + [b.label for row in view.buttons for b in row]:
        out |= Counter(TEXT_TO_CODE[m] for m in CARD_RE.findall(t))
    return out


def cards_in(obj: Any) -> Counter[str]:
    """Every card code anywhere inside a JSON-like value."""
    out: Counter[str] = Counter()
    if isinstance(obj, str):
        if obj in TEXT_TO_CODE.values():
            out[obj] += 1
    elif isinstance(obj, dict):
        for v in obj.values():
            out += cards_in(v)
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            out += cards_in(v)
    return out


def snapshot(match: Any) -> dict[str, Any] | None:
    """What was public and what each seat could see at one moment."""
    if match is None:
        return None
    pub = match.public_view()
    return {"public": pub, "seats": [match.view(s) for s in range(4)]}


def excess(seen: Counter[str], allowed: Counter[str]) -> list[str]:
    return sorted((seen - allowed).elements())


def scan(log: Iterable[Any], seat_of_user: dict[str, int]) -> list[str]:
    """Every leak found: group texts beyond the public view, private texts beyond that seat's view."""
    problems = []
    for sent in log:
        snap = sent.snapshot
        if snap is None:
            continue
        seen = mentioned(sent.view)
        if not seen:
            continue
        if not sent.where.private:
            allowed = cards_in(snap["public"])
        else:
            s = seat_of_user.get(sent.where.chat_id)
            allowed = cards_in(snap["public"])
            if s is not None:
                allowed += cards_in(snap["seats"][s].get("hand")) + cards_in(snap["seats"][s].get("kitty"))
        bad = excess(seen, allowed)
        if bad:
            problems.append(f"{sent.op} to {sent.where}: {bad} in {sent.view.text[:200]!r}")
    return problems
