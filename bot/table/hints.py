"""`hint`: what the strongest AI level would play for a person, and why, in one line.

The strongest level searches, so it runs in the host's worker threads within a short budget;
its answer counts only when the match has not moved meanwhile and the engine takes it.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from bot.ai import move_seed
from bot.cardtext import card_text, cards_text, suit_text
from bot.i18n import N_, catalog, tr
from bot.settings import AI_LEVELS
from bot.views import SeatInfo, seat_label
from engine.actions import ACTION_TYPES, Action
from engine.ai import EXPERT_TIME
from engine.ai.explain import reason

if TYPE_CHECKING:
    from bot.table.ops import TableOps

log = logging.getLogger(__name__)

HINT_BUDGET = (
    0.3  # CPU seconds the strongest AI level thinks about a hint: an answer a person does not wait for
)


async def strongest(table: TableOps, s: int, fallback: Action) -> Action:
    """The strongest level's move for seat s; `fallback` (the quick move) without worker threads,
    or when the answer came too late or is not legal now."""
    chooser = table.ai.chooser
    if chooser is None or not table.host.ai_policy.threads:
        return fallback
    m = table.game
    version = m.version
    view = table.seat_view(s)
    seed = move_seed(table.seed, version, s)
    level = AI_LEVELS[-1]
    # no longer than the table's AI players may think (its `ai_budget`); expert: the same time, more candidates
    budget = min(HINT_BUDGET, table.settings.ai_budget)
    if level == "expert":
        budget /= EXPERT_TIME
    try:
        act = await table.host.run_ai(lambda: chooser(view, level, seed, budget))
    except Exception:
        log.exception("hint failed at table %s", table.id)
        return fallback
    if isinstance(act, ACTION_TYPES) and table.match is m and m.version == version and m.check(act) is None:
        return act
    return fallback


def why(table: TableOps, s: int, action: Action, lang: str) -> str:
    """The hint's reason in one line: the kind of move, the cards it keeps back, what it expects of the opponents."""
    try:
        code, params = reason(table.seat_view(s), action)
    except Exception:  # a reason is a courtesy: never let it cost the hint
        log.exception("no reason for a hint at table %s", table.id)
        code, params = "", {}
    return reason_text(code, params, table.seats.infos(), lang)


def reason_text(code: str, params: Mapping[str, object], infos: Sequence[SeatInfo | None], lang: str) -> str:
    """``engine.ai.explain.reason``'s code and params in words: shared by hints and the hand review,
    so both say the same about the same move."""
    key = f"hint.why_{code}"
    if key not in catalog("en"):
        key = "hint.why_other"

    def who(seat: object) -> str:
        return seat_label(int(str(seat)), infos, lang) if seat is not None else ""

    parts = [tr(lang, key, who=who(params.get("seat")), suit=suit_text(str(params.get("suit", ""))))]
    kept = params.get("keeps")
    if isinstance(kept, list) and kept:
        parts.append(tr(lang, "hint.keeps", cards=cards_text([str(c) for c in kept])))
    exp = params.get("expect")
    if exp in EXPECT_KEYS and not (exp == "none_higher" and code == "lead_master"):  # said already
        parts.append(
            tr(
                lang,
                EXPECT_KEYS[str(exp)],
                who=who(params.get("expect_seat")),
                card=card_text(str(params.get("expect_card", ""))),
                suit=suit_text(str(params.get("expect_suit", ""))),
            )
        )
    return tr(lang, "hint.join").join(p.rstrip("。.") for p in parts) + tr(lang, "hint.end")


EXPECT_KEYS = {
    "void": N_("hint.expect_void"),
    "lacks": N_("hint.expect_lacks"),
    "out": N_("hint.expect_out"),
    "none_higher": N_("hint.expect_none_higher"),
}
