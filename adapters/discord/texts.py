"""The few words the Discord adapter says itself: `discord.<key>` in the host's catalogs (bot/locales)."""

from __future__ import annotations

from bot.i18n import N_, tr

# Marked for `make messages`: the adapter asks for them as text(lang, "bad_button").
KEYS: tuple[str, ...] = (N_("discord.bad_button"), N_("discord.internal"), N_("discord.dm_on"),
                         N_("discord.dm_off"), N_("discord.dm_sent"), N_("discord.press_my_hand"),
                         N_("discord.your_turn"), N_("discord.your_turn_untimed"),
                         N_("discord.guild_only"))


def text(lang: str, key: str) -> str:
    """The adapter's text for `key` in `lang`."""
    return tr(lang, f"discord.{key}")
