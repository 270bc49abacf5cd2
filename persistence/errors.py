"""What the store raises; all subclasses of `StoreError`, each saying what to do about it."""

from __future__ import annotations


class StoreError(Exception):
    """A storage request that cannot be carried out as asked."""


class SequenceConflict(StoreError):
    """Another action already holds this seq, or the seq skips ahead: another writer got there first."""

    def __init__(self, match_id: int, seq: int, version: int) -> None:
        super().__init__(
            f"match {match_id}: cannot append seq {seq}: the log is at version {version}"
            f" (the next seq is {version}); reload the match and try again"
        )
        self.match_id = match_id
        self.seq = seq
        self.version = version


class UnknownMatch(StoreError, KeyError):
    """No match has this id."""

    def __init__(self, match_id: int) -> None:
        super().__init__(f"no match with id {match_id}")
        self.match_id = match_id

    def __str__(self) -> str:
        return str(self.args[0])


class MatchClosed(StoreError):
    """The match is finished; its log takes no more actions."""

    def __init__(self, match_id: int) -> None:
        super().__init__(f"match {match_id} is finished; its log takes no more actions")
        self.match_id = match_id


class LeaseLost(StoreError):
    """This worker no longer holds the table's lease (it expired, another worker took it over):
    the write is refused, and the table must stop here and leave it to its new owner."""

    def __init__(self, match_id: int, worker: str) -> None:
        super().__init__(
            f"match {match_id}: worker {worker!r} does not hold its lease; another worker drives it now"
        )
        self.match_id = match_id
        self.worker = worker


class ChatHasTable(StoreError):
    """The chat already has an open table (`create_match(..., exclusive=True)`): two workers that
    took `new` for one chat at the same instant open one table, and the second learns which."""

    def __init__(self, platform: str, chat_id: str, match_id: int) -> None:
        super().__init__(f"{platform} chat {chat_id} already has the open match {match_id}")
        self.platform = platform
        self.chat_id = chat_id
        self.match_id = match_id


class StoreDown(StoreError):
    """The database could not be reached, or kept dropping the connection, for longer than the
    store retries (a server restarting, the network gone). Nothing is known to have changed:
    try again later, and with a platform that redelivers, do not confirm the update."""
