"""Discord settings, read from the environment."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

DEFAULT_API_BASE = "https://discord.com/api/v10"
DEFAULT_GATEWAY = "wss://gateway.discord.gg/"


@dataclass(frozen=True)
class DiscordConfig:
    """Everything the adapter needs to connect; `from_env` reads the DISCORD_* variables.

    `api_base` and `gateway_url` exist so tests (and a local proxy) can point
    the real client at another server; `guild_ids` registers the slash
    commands in those guilds at once instead of globally (global commands
    take a while to appear). `edit_interval` is the pause between two edits
    of the same message: edits in between are coalesced into the latest.
    `scale` is how many real seconds one Discord second lasts: 1 against
    Discord; tests run a fake Discord's clock faster, and the adapter's own
    pauses (the edit interval, the gap between mention messages, the wait
    before identifying again) with it, in step with that clock's windows.
    """

    token: str
    api_base: str = DEFAULT_API_BASE
    gateway_url: str = DEFAULT_GATEWAY
    guild_ids: tuple[int, ...] = ()
    sync_commands: bool = True
    edit_interval: float = 0.5
    shard_count: int = 0  # 0: Discord's recommendation (GET /gateway/bot) when workers share shards
    scale: float = 1.0

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> DiscordConfig | None:
        """The configuration, or None when DISCORD_BOT_TOKEN is not set (Discord stays off).

        DISCORD_API_BASE and DISCORD_GATEWAY_URL point at another server;
        DISCORD_GUILD_IDS (comma separated) registers commands per guild;
        DISCORD_SYNC_COMMANDS=0 skips registering them at start-up; DISCORD_SHARD_COUNT fixes the
        number of shards that workers on PostgreSQL share (every worker must say the same).
        """
        env = os.environ if env is None else env
        token = env.get("DISCORD_BOT_TOKEN", "").strip()
        if not token:
            return None
        guilds = tuple(int(g) for g in env.get("DISCORD_GUILD_IDS", "").replace(" ", "").split(",") if g)
        return cls(
            token=token,
            api_base=env.get("DISCORD_API_BASE", "").strip() or DEFAULT_API_BASE,
            gateway_url=env.get("DISCORD_GATEWAY_URL", "").strip() or DEFAULT_GATEWAY,
            guild_ids=guilds,
            sync_commands=env.get("DISCORD_SYNC_COMMANDS", "1").strip() not in ("0", "no", "false"),
            edit_interval=float(env.get("DISCORD_EDIT_INTERVAL", "0.5")),
            shard_count=int(env.get("DISCORD_SHARD_COUNT", "0") or 0),
        )
