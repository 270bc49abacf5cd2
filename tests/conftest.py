"""Suite-wide settings: under CI, hypothesis draws the same examples every run, so a landing never hinges on luck."""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True)
if os.environ.get("CI"):
    settings.load_profile("ci")


def pytest_unconfigure(config: object) -> None:
    """Stops the worker thread of any SQLite connection a failed test left open.

    aiosqlite's thread is not a daemon: one store left open by a test that failed before closing it
    would keep this process (and so the whole parallel run) from ever exiting.
    """
    import gc

    import aiosqlite.core

    for obj in gc.get_objects():
        if isinstance(obj, aiosqlite.core.Connection) and obj._thread.is_alive():
            obj._tx.put_nowait((None, lambda: aiosqlite.core._STOP_RUNNING_SENTINEL))
