"""The web table's settings, from the environment (README, "The web table")."""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass

from adapters.web.auth import INIT_DATA_MAX_AGE, LINK_TTL

TELEGRAM_SCRIPT = "https://telegram.org/js/telegram-web-app.js"


@dataclass(frozen=True)
class WebConfig:
    """Where the web table listens, the public HTTPS address its links use, and its keys."""

    port: int
    listen: str = "127.0.0.1"
    public_url: str = ""  # https://cards.example.org (no trailing slash); "" = no links in the chats
    secret: bytes = b""  # signs the per-seat links
    telegram_token: str = ""  # checks Mini App initData
    miniapp: str = ""  # "botname/appname": the group's direct Mini App link (t.me/botname/appname?startapp=...)
    telegram_script: str = TELEGRAM_SCRIPT
    link_ttl: float = LINK_TTL
    init_data_max_age: float = INIT_DATA_MAX_AGE

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None) -> WebConfig | None:
        """None unless TRACTOR_WEB_PORT is set. The link key is TRACTOR_WEB_SECRET, else derived from
        the bot tokens (so links survive a restart without one more secret to keep)."""
        env = dict(os.environ if env is None else env)
        port = env.get("TRACTOR_WEB_PORT", "").strip()
        if not port:
            return None
        tg = env.get("TELEGRAM_BOT_TOKEN", "")
        secret = env.get("TRACTOR_WEB_SECRET", "") or tg + env.get("DISCORD_BOT_TOKEN", "")
        if not secret:
            raise ValueError("TRACTOR_WEB_PORT needs TRACTOR_WEB_SECRET or a bot token to sign its links")
        return cls(port=int(port), listen=env.get("TRACTOR_WEB_LISTEN", "127.0.0.1"),
                   public_url=env.get("TRACTOR_WEB_URL", "").rstrip("/"),
                   secret=hashlib.sha256(secret.encode()).digest(), telegram_token=tg,
                   miniapp=env.get("TELEGRAM_MINIAPP", "").strip("/"))
