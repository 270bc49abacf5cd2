"""The duplicate tests' rig and chats: the host rig of tests/host, and drivers for the other rooms.

An event plays in several chats at once; every test here needs a driver per chat whose update
keys never meet the rig's own, and the texts sent to one chat. They were copied into each file.
"""

from __future__ import annotations

import itertools

from tests.host.conftest import Rig, rig
from tests.host.fakes import Driver

__all__ = ["chat", "rig", "texts_to"]


def chat(rig: Rig, chat_id: str) -> Driver:
    """A driver for another chat, its update keys apart from the rig's (an adapter's keys never repeat)."""
    d = Driver(rig.platform, chat_id)
    d.keys = itertools.count(100_000 * int(chat_id[1:]))
    return d


def texts_to(rig: Rig, chat_id: str, since: int = 0) -> list[str]:
    """What the host sent to `chat_id`, after the first `since` entries of the log."""
    return [s.view.text for s in rig.platform.log[since:] if s.where.chat_id == chat_id]
