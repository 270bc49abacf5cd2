"""The name the host looks up for its league hook (`bot.host.Host.record_league`)."""

from bot.league.bridge import record

__all__ = ["record"]
