"""Suite-wide settings: under CI, hypothesis draws the same examples every run, so a landing never hinges on luck;
the long tests start first, so that the parallel run ends together; the garbage collector runs less often.

A test process lives for hundreds of tests that each build a host, clients and fakes, and at Python's
default thresholds the collector's passes over that heap took 7-9 % of the CPU of the busiest tests
(docs/testing.md). Here it runs after 10,000 new objects instead of 700, and the modules and
functions loaded before the first test are left out of its passes (`gc.freeze`). Cycles are still
collected and finalizers still run, only less often; the bot's own processes keep the defaults.
"""

from __future__ import annotations

import gc
import os
import sys
import threading
from collections.abc import Iterator

import pytest
from hypothesis import settings

settings.register_profile("ci", derandomize=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

gc.set_threshold(10_000, 10, 10)


def pytest_collection_finish(session: pytest.Session) -> None:
    gc.freeze()


@pytest.fixture(autouse=True)
def _uncaught_hooks() -> Iterator[None]:
    """`tractor-host`'s main, which a few tests run in-process, routes uncaught exceptions (the main
    thread's and any other's) through its scrubbed logs (app/logs.py). Each test hands pytest's own
    hooks back, so that a thread's exception in a later test is still reported by pytest."""
    hooks = sys.excepthook, threading.excepthook
    yield
    sys.excepthook, threading.excepthook = hooks


def pytest_unconfigure(config: object) -> None:
    """Stops the worker thread of any SQLite connection a failed test left open.

    aiosqlite's thread is not a daemon: one store left open by a test that failed before closing it
    would keep this process (and so the whole parallel run) from ever exiting.
    """
    import aiosqlite.core

    for obj in gc.get_objects():
        if isinstance(obj, aiosqlite.core.Connection) and obj._thread.is_alive():
            obj._tx.put_nowait((None, lambda: aiosqlite.core._STOP_RUNNING_SENTINEL))


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Longest first (`@pytest.mark.slow(seconds)`, about how long the test takes on a quiet machine),
    after pytest-randomly has shuffled: the workers take tests one at a time (`--dist load
    --maxschedchunk 1` in the Makefile), so a minute-long test started last would leave the other
    processes idle while it runs. Tests of the same weight keep the random order."""

    def weight(item: pytest.Item) -> float:
        mark = item.get_closest_marker("slow")
        if mark is None:
            return 0.0
        return float(mark.args[0]) if mark.args else 5.0

    items.sort(key=weight, reverse=True)
