"""The table actor, one per match (see `bot.table.actor` for the map of its modules)."""

from bot.table.actor import Table

__all__ = ["Table"]
