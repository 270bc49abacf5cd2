"""Refusals with a machine-readable reason."""

from __future__ import annotations

from typing import Any


class IllegalAction(Exception):
    """An action the rules refuse. ``code`` is stable; ``params`` fill the message."""

    def __init__(self, code: str, **params: Any) -> None:
        super().__init__(code if not params else f"{code} {params}")
        self.code = code
        self.params = params
