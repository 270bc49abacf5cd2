"""Fake platform servers, and the rigs that drive the real bot against them.

Shared by `tests/` and `benchmarks/`; not installed with the bot. The real
client libraries (python-telegram-bot, discord.py) talk to these servers
unpatched, so what is measured or checked is the adapter as it runs.
"""
