"""Telegram settings, read from the environment, and the flood limits we keep to."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

DEFAULT_API = "https://api.telegram.org"


@dataclass(frozen=True)
class FloodLimits:
    """The limits the adapter holds itself to, a notch under Telegram's own.

    Telegram allows about 1 message a second per chat with short bursts, 20 a
    minute per group (edits included) and 30 a second overall; keeping one
    message of headroom in each absorbs network jitter. `scale` is how many
    real seconds one Telegram second lasts (tests run the clock fast).
    """

    scale: float = 1.0
    chat_per_second: float = 1.0
    chat_burst: int = 2
    group_per_minute: int = 19
    # Of those, edits (the table message) may use only this many, so that an
    # announcement never waits behind a busy table.
    group_edits_per_minute: int = 14
    global_per_second: int = 25
    # Of those, edits (which coalesce while they wait: a newer edit of the same message replaces a
    # waiting one) may use only this many, so that under pressure new messages (a turn notice, an
    # announcement) go first; and edits of group messages (table messages) only the second figure,
    # so that a player's own hand goes before the group's table.
    global_edits_per_second: int = 20
    global_group_edits_per_second: int = 18
    # And edits that tell nothing new (`Outgoing.lazy`: the cards a tap picked, which its answer
    # named; a hand redrawn as cards are dealt, its buttons unchanged) only this many, for at most
    # `lazy_within` Telegram seconds: under pressure they wait, and a newer edit replaces them unsent.
    global_lazy_edits_per_second: int = 12
    lazy_within: float = 2.0
    max_retries: int = 5
    # Network trouble (timeouts, 5xx, dropped connections): wait retry_base, doubling up to
    # retry_cap real seconds, between the attempts of one call.
    retry_base: float = 0.25
    retry_cap: float = 4.0
    # Several workers sharing the budgets (adapters/telegram/shared_flood.py), in real seconds: a
    # place granted is used within `shared_use_within`, and counts as arriving `shared_hold` after
    # its grant until its worker says when it did (a dead worker's places run out then).
    shared_use_within: float = 0.5
    shared_hold: float = 2.0


@dataclass(frozen=True)
class TelegramConfig:
    """Everything the adapter needs to connect; `from_env` reads the TELEGRAM_* variables."""

    token: str
    api_base_url: str = DEFAULT_API
    mode: Literal["polling", "webhook"] = "polling"
    webhook_url: str = ""
    webhook_listen: str = "0.0.0.0"
    webhook_port: int = 8443
    webhook_secret: str = ""
    poll_timeout: int = 30
    drop_pending_updates: bool = False
    limits: FloodLimits = field(default_factory=FloodLimits)

    @property
    def base_url(self) -> str:
        """What python-telegram-bot wants: the API root plus "/bot" (it appends the token)."""
        return self.api_base_url.rstrip("/") + "/bot"

    @property
    def base_file_url(self) -> str:
        return self.api_base_url.rstrip("/") + "/file/bot"

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> TelegramConfig | None:
        """The configuration, or None when TELEGRAM_BOT_TOKEN is not set (Telegram stays off).

        TELEGRAM_API_BASE_URL points at another Bot API server; TELEGRAM_WEBHOOK_URL
        switches from long polling to a webhook (TELEGRAM_WEBHOOK_LISTEN,
        TELEGRAM_WEBHOOK_PORT and TELEGRAM_WEBHOOK_SECRET tune it).
        """
        env = os.environ if env is None else env
        token = env.get("TELEGRAM_BOT_TOKEN", "").strip()
        if not token:
            return None
        webhook_url = env.get("TELEGRAM_WEBHOOK_URL", "").strip()
        return cls(
            token=token,
            api_base_url=env.get("TELEGRAM_API_BASE_URL", "").strip() or DEFAULT_API,
            mode="webhook" if webhook_url else "polling",
            webhook_url=webhook_url,
            webhook_listen=env.get("TELEGRAM_WEBHOOK_LISTEN", "0.0.0.0"),
            webhook_port=int(env.get("TELEGRAM_WEBHOOK_PORT", "8443")),
            webhook_secret=env.get("TELEGRAM_WEBHOOK_SECRET", ""),
        )
