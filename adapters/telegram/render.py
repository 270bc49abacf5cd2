"""Platform views to Telegram messages: text limits, keyboards, 64-byte callback data."""

from __future__ import annotations

import hashlib
from collections import OrderedDict

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, WebAppInfo

from bot.platform import Button, View

MAX_TEXT = 4096
MAX_ROW = 8
MAX_BUTTONS = 100
MAX_CALLBACK_BYTES = 64
ALIAS_PREFIX = "~"


class CallbackAliases:
    """Stands in for tokens longer than Telegram's 64-byte callback_data.

    Host tokens fit already; this only keeps an oversized one from breaking a
    whole message. Aliases live in memory: after a restart they read as stale.
    """

    def __init__(self, capacity: int = 4096) -> None:
        self._tokens: OrderedDict[str, str] = OrderedDict()
        self._capacity = capacity

    def encode(self, token: str) -> str:
        if token and len(token.encode()) <= MAX_CALLBACK_BYTES and not token.startswith(ALIAS_PREFIX):
            return token
        alias = ALIAS_PREFIX + hashlib.sha256(token.encode()).hexdigest()[:16]
        self._tokens[alias] = token
        self._tokens.move_to_end(alias)
        while len(self._tokens) > self._capacity:
            self._tokens.popitem(last=False)
        return alias

    def decode(self, data: str) -> str | None:
        """The token behind callback data; None for an alias we no longer know."""
        if data.startswith(ALIAS_PREFIX):
            return self._tokens.get(data)
        return data


def fit_text(text: str) -> str:
    """Telegram refuses empty text and text over 4096 characters."""
    if not text.strip():
        return "…"
    if len(text) > MAX_TEXT:
        return text[: MAX_TEXT - 1] + "…"
    return text


def to_button(button: Button, aliases: CallbackAliases) -> InlineKeyboardButton:
    label = button.label or "·"
    if button.kind == "inline_query":
        return InlineKeyboardButton(label, switch_inline_query_current_chat=button.token)
    if button.kind == "url":
        return InlineKeyboardButton(label, url=button.token)
    if button.kind == "web_app":  # the web table as a Mini App (private chats only)
        return InlineKeyboardButton(label, web_app=WebAppInfo(button.token))
    return InlineKeyboardButton(label, callback_data=aliases.encode(button.token))


def to_markup(view: View, aliases: CallbackAliases) -> InlineKeyboardMarkup | None:
    """The view's button grid, rows split at 8 and capped at 100 buttons."""
    rows: list[list[InlineKeyboardButton]] = []
    count = 0
    for row in view.buttons:
        for start in range(0, len(row), MAX_ROW):
            chunk = [to_button(b, aliases) for b in row[start : start + MAX_ROW]]
            chunk = chunk[: MAX_BUTTONS - count]
            if chunk:
                rows.append(chunk)
                count += len(chunk)
    return InlineKeyboardMarkup(rows) if rows else None
