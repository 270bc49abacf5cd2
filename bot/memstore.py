"""An in-memory Store with the persistence interface, for tests and throwaway tables."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any, Literal

from persistence.errors import SequenceConflict
from persistence.store import BROKEN, StoredMatch

FINISHED = {"finished", "abandoned"}


class MemoryStore:
    """Keeps everything in dicts; copies on the way in and out like a database would."""

    def __init__(self) -> None:
        self.matches: dict[int, StoredMatch] = {}
        self.keys: dict[str, tuple[int, int]] = {}
        self.event_keys: set[str] = set()
        self.chats: dict[tuple[str, str], dict[str, Any]] = {}
        self.players: dict[tuple[str, str], tuple[int, str, str | None]] = {}
        self.closed = False

    @classmethod
    async def open(cls, path: str = ":memory:") -> MemoryStore:
        return cls()

    async def close(self) -> None:
        self.closed = True

    async def upsert_player(self, platform: str, user_id: str, name: str, language: str | None = None) -> int:
        old = self.players.get((platform, user_id))
        pid = old[0] if old else len(self.players) + 1
        self.players[(platform, user_id)] = (pid, name, language or (old[2] if old else None))
        return pid

    async def get_player(self, platform: str, user_id: str) -> dict[str, Any] | None:
        p = self.players.get((platform, user_id))
        return None if p is None else {"id": p[0], "name": p[1], "language": p[2]}

    async def get_chat(self, platform: str, chat_id: str) -> dict[str, Any]:
        return copy.deepcopy(self.chats.get((platform, chat_id), {}))

    async def set_chat(self, platform: str, chat_id: str, settings: dict[str, Any]) -> None:
        self.chats[(platform, chat_id)] = copy.deepcopy(settings)

    async def create_match(self, platform: str, chat_id: str, rules: dict[str, Any], seats: list[dict[str, Any]],
                           seed: int, meta: dict[str, Any], status: str = "active") -> int:
        mid = len(self.matches) + 1
        self.matches[mid] = StoredMatch(mid, platform, chat_id, copy.deepcopy(rules), copy.deepcopy(seats), seed,
                                        [], copy.deepcopy(meta), status)
        return mid

    async def append_action(self, match_id: int, seq: int, action: dict[str, Any],
                            key: str | None, *, deadlines: Mapping[str, float | None] | None = None,
                            ) -> Literal["applied", "duplicate"]:
        m = self.matches[match_id]
        if key is not None and key in self.keys:
            return "duplicate"
        if seq < len(m.actions):
            if m.actions[seq] == action:
                return "duplicate"
            raise SequenceConflict(match_id, seq, len(m.actions))
        if seq != len(m.actions):
            raise SequenceConflict(match_id, seq, len(m.actions))
        m.actions.append(copy.deepcopy(action))
        if key is not None:
            self.keys[key] = (match_id, seq)
        for kind, at in (deadlines or {}).items():
            if at is None:
                m.deadlines.pop(kind, None)
            else:
                m.deadlines[kind] = at
        return "applied"

    async def update_match(self, match_id: int, *, seats: list[dict[str, Any]] | None = None,
                           meta: dict[str, Any] | None = None, status: str | None = None) -> None:
        m = self.matches[match_id]
        if seats is not None:
            m.seats = copy.deepcopy(seats)
        if meta is not None:
            m.meta = copy.deepcopy(meta)
        if status is not None:
            m.status = status

    async def load_unfinished(self, *, include_broken: bool = False) -> list[StoredMatch]:
        return [copy.deepcopy(m) for m in self.matches.values()
                if m.status not in FINISHED and (include_broken or m.status != BROKEN)]

    async def mark_broken(self, match_id: int, reason: str) -> None:
        m = self.matches[match_id]
        if m.status != BROKEN:
            m.meta["status_before_broken"] = m.status
        m.meta["broken"] = reason
        m.status = BROKEN

    async def set_message(self, match_id: int, slot: str, message_id: str | None) -> None:
        if message_id is None:
            self.matches[match_id].messages.pop(slot, None)
        else:
            self.matches[match_id].messages[slot] = message_id

    async def set_deadline(self, match_id: int, kind: str, at: float | None) -> None:
        d = self.matches[match_id].deadlines
        if at is None:
            d.pop(kind, None)
        else:
            d[kind] = at

    async def finish_match(self, match_id: int, status: str, result: dict[str, Any]) -> None:
        m = self.matches[match_id]
        m.status = status
        m.result = copy.deepcopy(result)
        m.deadlines.clear()

    async def get_match(self, match_id: int) -> StoredMatch | None:
        m = self.matches.get(match_id)
        return copy.deepcopy(m) if m else None

    async def seen_key(self, key: str) -> bool:
        return key in self.keys or key in self.event_keys

    async def remember_key(self, key: str) -> bool:
        if key in self.keys or key in self.event_keys:
            return False
        self.event_keys.add(key)
        return True
