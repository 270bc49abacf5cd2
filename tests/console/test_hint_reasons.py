"""A hint says in one line, in the player's language, what the move keeps back and what it expects of the opponents."""

from __future__ import annotations

import io

import pytest

from app.console import play_console
from bot.i18n import tr
from persistence.memory import MemoryStore


@pytest.mark.slow(4)
async def test_hints_name_kept_cards_and_expectations_in_traditional_chinese() -> None:
    out = io.StringIO()
    inp = io.StringIO("pass\n" + "hint\nauto\n" * 7 + "quit\n")
    await play_console(MemoryStore(), inp=inp, out=out, lang="zh-Hant", seed=5)
    hints = [line for line in out.getvalue().splitlines() if " —— " in line]
    assert len(hints) >= 6, out.getvalue()[-2000:]
    keeps = tr("zh-Hant", "hint.keeps", cards="").strip()
    expects = [tr("zh-Hant", k, who="", card="", suit="").strip() for k in
               ("hint.expect_void", "hint.expect_lacks", "hint.expect_out", "hint.expect_none_higher")]  # fmt: skip
    for line in hints:
        assert "{" not in line and "hint." not in line, line
        assert line.rstrip().endswith("。"), line
    assert any(keeps in line for line in hints)
    assert any(any(e[:2] in line or e[-2:] in line for e in expects) for line in hints)
