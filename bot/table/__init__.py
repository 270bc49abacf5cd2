"""The table actor, one per match (`bot.table.actor`)."""

from bot.table.actor import Item, Table
from bot.table.moves import ACTION_WORDS

__all__ = ["ACTION_WORDS", "Item", "Table"]
