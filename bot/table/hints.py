"""`hint`: what the strongest AI level would play for a person, and why, in one line.

The strongest level searches, so it runs in the host's worker threads within a short budget;
its answer counts only when the match has not moved meanwhile and the engine takes it.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from bot.ai import move_seed
from bot.i18n import catalog, tr
from bot.settings import AI_LEVELS
from bot.views import seat_label
from engine.actions import ACTION_TYPES, Action
from engine.ai.explain import reason

if TYPE_CHECKING:
    from bot.table.actor import Table

log = logging.getLogger(__name__)

HINT_BUDGET = 0.3  # seconds the strongest AI level thinks about a hint: an answer a person does not wait for


async def strongest(table: Table, s: int, fallback: Action) -> Action:
    """The strongest level's move for seat s; `fallback` (the quick move) without worker threads,
    or when the answer came too late or is not legal now."""
    chooser = table.ai.chooser
    if chooser is None or not table.host.ai_policy.threads:
        return fallback
    m = table.game
    version = m.version
    view = table.seat_view(s)
    seed = move_seed(table.seed, version, s)
    try:
        act = await table.host.run_ai(lambda: chooser(view, AI_LEVELS[-1], seed, HINT_BUDGET))
    except Exception:
        log.exception("hint failed at table %s", table.id)
        return fallback
    if isinstance(act, ACTION_TYPES) and table.match is m and m.version == version and m.check(act) is None:
        return act
    return fallback


def why(table: Table, s: int, action: Action, lang: str) -> str:
    """The hint's reason in one short clause."""
    try:
        code, params = reason(table.seat_view(s), action)
    except Exception:  # a reason is a courtesy: never let it cost the hint
        log.exception("no reason for a hint at table %s", table.id)
        code, params = "", {}
    key = f"hint.why_{code}"
    if key not in catalog("en"):
        key = "hint.why_other"
    who = params.get("seat")
    return tr(lang, key, who=seat_label(int(who), table.seats.infos(), lang) if who is not None else "")
