"""The web table: a page and a WebSocket served by the bot's own process (aiohttp), for Telegram's
Mini Apps, Discord links and any browser. See docs/web.md."""
