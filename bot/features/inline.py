"""Inline play as a feature: the legal plays a seated person may choose from the group's inline
query, or why there are none (the choosing itself is bot.inline's)."""

from __future__ import annotations

from bot import inline
from bot.feature import Context, Feature
from bot.platform import User, Where
from bot.views import InlineChoice


class InlinePlay(Feature):
    """Answers the platforms' inline queries (Telegram's inline mode)."""

    name = "inline"

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    async def inline_choices(self, user: User, where: Where, query: str) -> list[InlineChoice] | None:
        return await inline.choices(self.ctx, user, where, query)

    def inline_reason(self, user: User, where: Where) -> str | None:
        return inline.why_none(self.ctx, user, where)
