"""Issue 32: a deploy and a database restart lose nothing and leave no one unanswered.

Worker processes and a database server are real (real time): what is tested is how processes
stop, and how connections behave when the server goes away, which no fake shows. The harness
(`fakes.deploys`) paces people as people are paced and waits on the workers' answers.
"""

from __future__ import annotations

import asyncio

import pytest

from fakes.deploys import run_restarts, run_rolling
from tests.persistence.pg_server import start as start_pg


@pytest.mark.slow(12)
async def test_a_rolling_restart_of_three_workers_under_load(pg_url: str) -> None:
    report = await run_rolling(pg_url, workers=3, tables=4, seed=5)
    print(report.text())
    assert report.terms == 3
    assert report.acknowledged > 20
    assert report.unanswered == [] and report.answered_twice == [] and report.applied_unacked == []
    assert report.lost == [] and report.doubled == [] and report.stuck == []
    # SIGTERM hands the tables over before any drain: another worker holds each within a second
    assert max(report.undriven) < 1.0, report.undriven
    assert report.errors == []


@pytest.mark.slow(15)
async def test_five_database_restarts_under_load_lose_no_press(pg_server: object) -> None:
    server = start_pg()  # its own server: the restarts must not reach other tests' databases
    try:
        url = server.new_database()
        report = await run_restarts(url, lambda: asyncio.to_thread(server.restart), restarts=5, workers=2,
                                    tables=4, seed=7)
    finally:
        server.stop()
    print(report.text())
    assert report.restarts == 5
    assert report.not_ready.get("database unreachable", 0) > 0  # /readyz said so while it was away
    # and /metrics counted the lost connections and the calls made again through them
    assert report.store.get("tractor_store_errors_total", 0) > 0 and report.store.get("tractor_store_retries_total", 0) > 0
    assert report.acknowledged > 20
    assert report.unanswered == [] and report.answered_twice == [] and report.applied_unacked == []
    assert report.lost == [] and report.doubled == [] and report.stuck == []
    assert report.errors == [], report.errors
