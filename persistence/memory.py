"""`MemoryStore`: the `Store` in dicts, for tests and throwaway tables; nothing outlives the process.

It answers every request the way `SqliteStore` does (the same refusals, the
same errors, the same duplicates), which the contract suite in
tests/persistence/test_store_contract.py checks against both.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable, Collection, Mapping
from typing import Any

from persistence.errors import ChatHasTable, MatchClosed, SequenceConflict, UnknownMatch
from persistence.store import BROKEN, AppendResult, Store, StoredMatch
from persistence.values import plain_json, require_dict


class MemoryStore(Store):
    """Keeps everything in dicts; copies on the way in and out like a database would."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self._clock = clock
        self.matches: dict[int, StoredMatch] = {}
        self.keys: dict[str, tuple[int, int]] = {}  # action key -> (match id, seq)
        self.chats: dict[tuple[str, str], dict[str, Any]] = {}
        self.players: dict[tuple[str, str], dict[str, Any]] = {}
        self.closed = False

    @classmethod
    async def open(cls, path: str = ":memory:") -> MemoryStore:
        return cls()

    async def close(self) -> None:
        self.closed = True

    # ------------------------------------------------------------ players, chats

    async def upsert_player(self, platform: str, user_id: str, name: str, language: str | None = None) -> int:
        key = (platform, str(user_id))
        old = self.players.get(key)
        pid = int(old["id"]) if old else len(self.players) + 1
        self.players[key] = {"id": pid, "platform": platform, "user_id": str(user_id), "name": name,
                             "language": language if language is not None else (old or {}).get("language")}
        return pid

    async def get_player(self, platform: str, user_id: str) -> dict[str, Any] | None:
        p = self.players.get((platform, str(user_id)))
        return None if p is None else dict(p)

    async def get_chat(self, platform: str, chat_id: str) -> dict[str, Any]:
        return copy.deepcopy(self.chats.get((platform, str(chat_id)), {}))

    async def set_chat(self, platform: str, chat_id: str, settings: dict[str, Any]) -> None:
        plain_json(require_dict(settings, "chat settings"), "chat settings")
        self.chats[(platform, str(chat_id))] = copy.deepcopy(settings)

    async def update_chat(self, platform: str, chat_id: str,
                          change: Callable[[dict[str, Any]], dict[str, Any]]) -> dict[str, Any]:
        settings = require_dict(change(await self.get_chat(platform, chat_id)), "chat settings")
        await self.set_chat(platform, chat_id, settings)
        return copy.deepcopy(settings)

    # ------------------------------------------------------------------ matches

    async def create_match(self, platform: str, chat_id: str, rules: dict[str, Any], seats: list[dict[str, Any]],
                           seed: int, meta: dict[str, Any], *, status: str = "active",
                           exclusive: bool = False) -> int:
        plain_json(require_dict(rules, "rules"), "rules")
        if not isinstance(seats, list):
            raise TypeError(f"seats must be a list, not {type(seats).__name__}")
        plain_json(seats, "seats")
        plain_json(require_dict(meta, "meta"), "meta")
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise TypeError(f"seed must be an int, not {type(seed).__name__}")
        if status == BROKEN:
            raise ValueError(f"status {BROKEN!r} is reserved for matches whose log cannot be replayed")
        if exclusive:
            for m in self.matches.values():
                if (m.platform, m.chat_id) == (platform, str(chat_id)) and m.finished_at is None and m.status != BROKEN:
                    raise ChatHasTable(platform, str(chat_id), m.id)
        mid = len(self.matches) + 1
        now = self._clock()
        self.matches[mid] = StoredMatch(mid, platform, str(chat_id), copy.deepcopy(rules), copy.deepcopy(seats),
                                        seed, [], copy.deepcopy(meta), status, created_at=now, updated_at=now)
        return mid

    def _match(self, match_id: int) -> StoredMatch:
        m = self.matches.get(match_id)
        if m is None:
            raise UnknownMatch(match_id)
        return m

    async def append_action(self, match_id: int, seq: int, action: dict[str, Any],
                            key: str | None, *, deadlines: Mapping[str, float | None] | None = None,
                            ) -> AppendResult:
        text = plain_json(require_dict(action, "action"), "action")
        if isinstance(seq, bool) or not isinstance(seq, int) or seq < 0:
            raise ValueError(f"seq must be an int >= 0, not {seq!r}")
        key = None if key is None else str(key)
        if key is not None and key in self.keys:
            return "duplicate"
        m = self._match(match_id)
        version = len(m.actions)
        if seq == version and m.finished_at is None:
            m.actions.append(copy.deepcopy(action))
            m.version = version + 1
            m.updated_at = self._clock()
            if key is not None:
                self.keys[key] = (match_id, seq)
            for kind, at in (deadlines or {}).items():
                if at is None:
                    m.deadlines.pop(str(kind), None)
                else:
                    m.deadlines[str(kind)] = float(at)
            return "applied"
        if seq < version:
            if key is None and plain_json(m.actions[seq], "action") == text:
                return "duplicate"
        elif m.finished_at is not None:
            raise MatchClosed(match_id)
        raise SequenceConflict(match_id, seq, version)

    async def update_match(self, match_id: int, *, seats: list[dict[str, Any]] | None = None,
                           meta: dict[str, Any] | None = None, status: str | None = None) -> None:
        if seats is not None:
            if not isinstance(seats, list):
                raise TypeError(f"seats must be a list, not {type(seats).__name__}")
            plain_json(seats, "seats")
        if meta is not None:
            plain_json(require_dict(meta, "meta"), "meta")
        m = self._match(match_id)
        if seats is not None:
            m.seats = copy.deepcopy(seats)
        if meta is not None:
            m.meta = copy.deepcopy(meta)
        if status is not None:
            m.status = status
        m.updated_at = self._clock()

    async def finish_match(self, match_id: int, status: str, result: dict[str, Any]) -> None:
        plain_json(require_dict(result, "result"), "result")
        m = self._match(match_id)
        now = self._clock()
        m.status = status
        m.result = copy.deepcopy(result)
        m.finished_at = m.finished_at if m.finished_at is not None else now
        m.updated_at = now
        m.deadlines.clear()

    async def set_message(self, match_id: int, slot: str, message_id: str | None) -> None:
        if message_id is None:
            if match_id in self.matches:
                self.matches[match_id].messages.pop(slot, None)
            return
        self._match(match_id).messages[slot] = str(message_id)

    async def set_picks(self, match_id: int, seat: int, state: dict[str, Any] | None) -> None:
        if state is None:
            if match_id in self.matches:
                self.matches[match_id].picks.pop(seat, None)
            return
        self._match(match_id).picks[seat] = copy.deepcopy(state)

    async def set_deadline(self, match_id: int, kind: str, at: float | None) -> None:
        if at is None:
            if match_id in self.matches:
                self.matches[match_id].deadlines.pop(kind, None)
            return
        self._match(match_id).deadlines[kind] = float(at)

    # --------------------------------------------------------------- idempotency

    async def seen_key(self, key: str) -> bool:
        return key in self.keys

    # ------------------------------------------------------------------ loading

    async def get_match(self, match_id: int) -> StoredMatch | None:
        m = self.matches.get(match_id)
        return copy.deepcopy(m) if m else None

    async def load_unfinished(
        self, *, include_broken: bool = False, ids: Collection[int] | None = None
    ) -> list[StoredMatch]:
        return [copy.deepcopy(m) for m in self.matches.values()
                if m.finished_at is None and (include_broken or m.status != BROKEN) and (ids is None or m.id in ids)]

    async def mark_broken(self, match_id: int, reason: str) -> None:
        m = self._match(match_id)
        if m.status != BROKEN:
            m.meta["status_before_broken"] = m.status
        m.meta["broken"] = reason
        m.status = BROKEN
        m.updated_at = self._clock()
