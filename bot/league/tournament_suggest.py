"""What the free words after a `tournament` action may be, offered as one types (`bot.suggestions`).

From the chat's tournament as everyone there sees it (its teams, its open pairings) and the words
each action takes; a team is offered by its name, with who is in it.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.league.tournament import Entrant, Tournament
from bot.suggestions import Ask, Suggestion, complete

NEW_WORDS = ("knockout", "roundrobin", "swiss", "seeded", "drawn", "bo1", "bo3")
AI_COUNTS = ("1", "2", "4", "8", "16")


def more(tour: Tournament | None, ask: Ask, presets: Sequence[str]) -> list[Suggestion]:
    """The `more` words after `ask.given["action"]`; `tour` is the chat's live tournament (None: none)."""
    action = ask.given.get("action", "").strip().lower()
    if action == "new":
        return complete(ask.typed, (*NEW_WORDS, *presets)) if tour is None else []
    if tour is None:
        return []
    if action == "ai" and tour.status == "open":
        return complete(ask.typed, AI_COUNTS)
    if action == "join" and tour.status == "open":
        teams = [e for e in tour.entrants if not e.full and not e.is_ai]
    elif action == "forfeit" and tour.status == "running":
        playing = {no for p in tour.pairings if not p.done and p.a is not None and p.b is not None
                   for no in (p.a, p.b)}
        teams = [e for e in tour.entrants if e.no in playing]
    else:
        return []
    typed = ask.typed.strip().lstrip("#").casefold()
    return [_team(e) for e in teams if e.name.casefold().startswith(typed) or str(e.no) == typed]


def _team(e: Entrant) -> Suggestion:
    people = ", ".join(m.name for m in e.members)
    return Suggestion(e.name, f"{e.name} ({people})" if people else e.name)
