"""What a store accepts: plain JSON data, refused before anything is written when it is not."""

from __future__ import annotations

import json
from typing import Any


def plain_json(value: object, what: str) -> str:
    """JSON for a column; refuses what would not come back the same (NaN, sets, objects)."""
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{what} is not plain JSON data: {exc}") from exc


def require_dict(value: object, what: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise TypeError(f"{what} must be a dict, not {type(value).__name__}")
    return value
