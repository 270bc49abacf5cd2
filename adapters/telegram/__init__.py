"""Telegram adapter: python-telegram-bot in, `bot.platform.Platform` out.

config.py (environment), flood.py (Telegram's limits), outbox.py (per-chat
queues: ordered sends, coalesced edits), render.py (views to keyboards),
platform.py (what the host calls), inbound.py (updates to host events),
run.py (start/stop inside a running loop).
"""
