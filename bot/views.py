"""Platform-neutral rendering: engine views in, `View` objects out."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class InlineChoice:
    """One answer to an inline query: a legal play the asking player may choose from the group."""

    title: str
    description: str
    token: str
