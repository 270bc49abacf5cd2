"""What a simulated person types into their private chat to take an action ("play ♠A ♠A", "pass").

The crash and failover runs, the throughput benchmark and the Telegram capacity tests all have
people type their moves as text; they build that text here, so all of them type what the bot's
text parser reads.
"""

from __future__ import annotations

from typing import Any

from bot.cardtext import cards_text

WORDS = {"play": "play", "bury": "bury", "declare": "declare", "pass": "pass", "chao": "chao", "revolt": "revolt"}


def typed_text(action: dict[str, Any]) -> str:
    """The text for an action in its JSON form (`Action.to_json()`): its word, then its cards if it has any.

    :raises KeyError: for an action nobody types (a deal, the next hand).
    """
    return WORDS[str(action["t"])] + (" " + cards_text(action["cards"]) if "cards" in action else "")
