"""Structured logs: with TRACTOR_LOG_FORMAT=json every line is one JSON object naming the worker."""

from __future__ import annotations

import json
import logging

import pytest

from app import logs


def test_json_lines_carry_level_logger_message_and_worker(monkeypatch: pytest.MonkeyPatch,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("TRACTOR_LOG_FORMAT", "json")
    monkeypatch.setenv("TRACTOR_LOG", "INFO")
    monkeypatch.setenv("TRACTOR_WORKER", "w7")
    root = logging.getLogger()
    before = list(root.handlers), root.level
    try:
        logs.configure()
        logging.getLogger("bot.cluster").warning("worker %s lost table %s", "w7", 12)
        line = capsys.readouterr().err.strip().splitlines()[-1]
    finally:
        root.handlers[:], root.level = before
    record = json.loads(line)
    assert record["level"] == "WARNING" and record["logger"] == "bot.cluster" and record["worker"] == "w7"
    assert record["message"] == "worker w7 lost table 12" and "timestamp" in record
