"""The host's garbage-collector settings (app.collector): rarer collections, still collecting."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from app import collector


@pytest.fixture
def restored() -> Iterator[None]:
    before = gc.get_threshold()
    yield
    gc.unfreeze()
    gc.set_threshold(*before)


def test_tune_freezes_what_start_up_built_and_raises_the_thresholds(
        restored: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TRACTOR_GC", raising=False)
    collector.tune()
    assert gc.get_threshold() == collector.THRESHOLDS
    assert gc.get_freeze_count() > 1000  # modules, classes, everything loaded so far


def test_cycles_made_after_tuning_are_still_collected_on_their_own(
        restored: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TRACTOR_GC", raising=False)
    collector.tune()
    young = gc.get_stats()[0]["collections"]
    collected = gc.get_stats()[0]["collected"]
    for _ in range(3 * collector.THRESHOLDS[0]):
        a: list[object] = []
        a.append(a)  # a cycle reference counting alone never frees
    assert gc.get_stats()[0]["collections"] > young
    assert gc.get_stats()[0]["collected"] > collected


@pytest.mark.parametrize(("spec", "expected"), [("default", None), ("1000,5,5", (1000, 5, 5)),
                                                ("nonsense", collector.THRESHOLDS)])
def test_the_environment_can_keep_cpythons_settings_or_set_others(
        restored: None, monkeypatch: pytest.MonkeyPatch, spec: str, expected: tuple[int, int, int] | None) -> None:
    monkeypatch.setenv("TRACTOR_GC", spec)
    before = gc.get_threshold()
    collector.tune()
    assert gc.get_threshold() == (expected or before)
