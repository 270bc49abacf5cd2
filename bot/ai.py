"""AI moves for the host: the AI engineer's `engine.ai.choose` when present, else the engine's auto_action.

`choose` sees only the seat's own view (what that seat may know); it runs in
a worker thread so it never blocks the event loop.  Whatever it returns is
checked by the engine again before it is applied.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

Chooser = Callable[[dict[str, Any], str, int, float], dict[str, Any]]


def find_chooser() -> Chooser | None:
    """`engine.ai.choose(view, level, seed, budget_s)` if that module exists, else None."""
    try:
        mod = importlib.import_module("engine.ai")
    except ImportError:
        return None
    fn = getattr(mod, "choose", None)
    return fn if callable(fn) else None


def move_seed(match_seed: int, version: int, seat: int) -> int:
    """A deterministic seed per decision, so a replayed simulation makes the same choices."""
    return (match_seed * 1_000_003 + version * 31 + seat) & 0x7FFFFFFF
