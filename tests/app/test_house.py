"""The house rules of issue 28, item 5, that a reader of bot/ and adapters/ sees first.

- `bot/` names `Any` on at most 30 lines: values between modules have precise types (frozen
  dataclasses, the engine's TypedDicts, protocols), `object` where a value is opaque; `Any` is left
  where JSON read from the store or the wire is taken apart field by field.
- A module of bot/ or adapters/ past 400 lines says why in its docstring ("... past 400 lines
  because ..."), so that a long file is a choice someone made and not a drift."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MAX_ANY_LINES = 30
MAX_LINES = 400
ANY = re.compile(r"\bAny\b")
SAYS_WHY = re.compile(r"past 400 lines because", re.IGNORECASE)


def _modules(*dirs: str) -> list[Path]:
    return sorted(p for d in dirs for p in (ROOT / d).rglob("*.py"))


def test_bot_names_any_on_at_most_30_lines() -> None:
    found = [f"{p.relative_to(ROOT)}:{n}" for p in _modules("bot")
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if ANY.search(line)]
    assert len(found) <= MAX_ANY_LINES, f"{len(found)} lines of bot/ name Any:\n" + "\n".join(found)


def test_a_long_module_says_why() -> None:
    long = []
    for p in _modules("bot", "adapters"):
        text = p.read_text(encoding="utf-8")
        if len(text.splitlines()) > MAX_LINES and not SAYS_WHY.search(ast.get_docstring(ast.parse(text)) or ""):
            long.append(f"{p.relative_to(ROOT)} ({len(text.splitlines())} lines)")
    assert long == [], "split these, or say in the module docstring why each runs past 400 lines: " + ", ".join(long)


def test_the_checks_see_what_they_look_for() -> None:
    assert ANY.search("def f(x: Any) -> None:") and not ANY.search("Anyone, ManyAny")
    assert SAYS_WHY.search("It runs past 400 lines because it is the one place ...")
