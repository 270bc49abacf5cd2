"""Why a suggested play is good, in a word the host can put into a sentence (a `hint` says it in one line).

Only the seat's own view is read, as the AI itself does: the reason never names a card someone else holds.
"""

from __future__ import annotations

from typing import Any

from ..actions import Action, Play
from ..play import trick_winner
from ..views import SeatView
from .basic import spot_of
from .policy import is_master
from .seen import faces, read_view


def reason(view: SeatView, action: Action) -> tuple[str, dict[str, Any]]:
    """(code, params) for a suggested action; codes: lead_master, lead_safe, takes, partner_winning,
    cannot_beat, and the action's own type for anything but a play."""
    t = action.t
    seen = read_view(view)
    if not isinstance(action, Play) or seen.order is None or seen.dealer is None:
        return t, {}
    play = faces(list(action.cards))
    if not seen.trick:
        units = len(set(play))
        return ("lead_master" if units <= 2 and is_master(play, spot_of(seen)) else "lead_safe"), {}
    if seen.lead is None:
        return t, {}
    plays = [p for _, p in seen.trick]
    now = seen.trick[trick_winner(plays, seen.lead, seen.order)][0]
    if trick_winner([*plays, play], seen.lead, seen.order) == len(plays):
        return "takes", {"seat": now}
    if now % 2 == seen.seat % 2:
        return "partner_winning", {"seat": now}
    return "cannot_beat", {"seat": now}
