"""The store port: `Store`, the protocol the host and the leagues talk to, and the values it
hands back (`StoredMatch`). Adapters: `SqliteStore` (persistence/store.py), `PostgresStore`
(persistence/postgres.py), `MemoryStore` (persistence/memory.py).

Sequence numbers: the action at index i of `Match.actions` has seq i, i.e.
seq == the match version *before* the action is applied (0, 1, 2, ...).
`append_action` accepts only the next seq, so the log can never have a gap.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

AppendResult = Literal["applied", "duplicate"]
Synchronous = Literal["OFF", "NORMAL", "FULL", "EXTRA"]

#: The status `replay` gives a match whose log cannot be replayed; such a match is set aside.
BROKEN = "broken"

@dataclass
class StoredMatch:
    """Everything the host needs to resume one match.

    `error` is set instead of raising when a row of this match cannot be read
    (bad JSON, a gap in the log): `replay_all` then sets the match aside.
    """

    id: int
    platform: str
    chat_id: str
    rules: dict[str, Any]
    seats: list[dict[str, Any]]
    seed: int
    actions: list[dict[str, Any]]
    meta: dict[str, Any]
    status: str
    messages: dict[str, str] = field(default_factory=dict)
    picks: dict[int, dict[str, Any]] = field(default_factory=dict)  # per seat: its drawn hand and picks
    deadlines: dict[str, float] = field(default_factory=dict)
    version: int = 0
    created_at: float = 0.0
    updated_at: float = 0.0
    finished_at: float | None = None
    result: dict[str, Any] | None = None
    error: str | None = None


class Store(Protocol):
    """What the host and the leagues may ask of storage; one adapter per backend."""

    async def close(self) -> None: ...

    async def upsert_player(
        self, platform: str, user_id: str, name: str, language: str | None = None
    ) -> int: ...

    async def get_player(self, platform: str, user_id: str) -> dict[str, Any] | None: ...

    async def get_chat(self, platform: str, chat_id: str) -> dict[str, Any]: ...

    async def set_chat(self, platform: str, chat_id: str, settings: dict[str, Any]) -> None: ...

    async def update_chat(self, platform: str, chat_id: str,
                          change: Callable[[dict[str, Any]], dict[str, Any]]) -> dict[str, Any]: ...

    async def create_match(
        self,
        platform: str,
        chat_id: str,
        rules: dict[str, Any],
        seats: list[dict[str, Any]],
        seed: int,
        meta: dict[str, Any],
        *,
        status: str = "active",
        exclusive: bool = False,
    ) -> int: ...

    async def append_action(
        self, match_id: int, seq: int, action: dict[str, Any], key: str | None,
        *, deadlines: Mapping[str, float | None] | None = None,
    ) -> AppendResult: ...

    async def update_match(
        self,
        match_id: int,
        *,
        seats: list[dict[str, Any]] | None = None,
        meta: dict[str, Any] | None = None,
        status: str | None = None,
    ) -> None: ...

    async def load_unfinished(
        self, *, include_broken: bool = False, ids: Collection[int] | None = None
    ) -> list[StoredMatch]: ...

    async def set_message(self, match_id: int, slot: str, message_id: str | None) -> None: ...

    async def set_picks(self, match_id: int, seat: int, state: dict[str, Any] | None) -> None:
        """Keep (or with None, forget) one seat's drawn hand and picked cards: that seat's row only."""
        ...

    async def set_deadline(self, match_id: int, kind: str, at: float | None) -> None: ...

    async def finish_match(self, match_id: int, status: str, result: dict[str, Any]) -> None: ...

    async def get_match(self, match_id: int) -> StoredMatch | None: ...

    async def seen_key(self, key: str) -> bool: ...

    async def mark_broken(self, match_id: int, reason: str) -> None: ...
