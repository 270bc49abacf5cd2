"""The table actor, one per match (see `bot.table.actor` for the map of its modules)."""

from bot.table.actor import Table
from bot.table.moves import ACTION_WORDS

__all__ = ["ACTION_WORDS", "Table"]
