"""Mentions in a channel: the person whose turn it is, and people whose hand could not be shown.

Only a new message notifies (an edit that adds a mention does not), and a channel takes about five
writes per five seconds, shared with the table's edits. So a channel has at most one such message
at a time: a new one replaces (deletes) the one before; they go out at most every `PING_GAP`
seconds, and while one waits it is rewritten from the latest state (a turn that has passed
meanwhile is never announced); nobody is mentioned twice for the same turn. Players who asked to be
left alone (`/tractor ping off`) are never in the host's cue.

People whose hand could not be shown stay named in every message that replaces the one naming them
(a replaced message is deleted, so it cannot carry the names alone) until their hand reaches them;
each is notified once, the later messages show the name without ringing again.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import discord

from adapters.discord.outbox import Coalescer
from adapters.discord.texts import text

log = logging.getLogger(__name__)

PING_GAP = 2.0  # seconds between two mention messages in one channel


@dataclass
class _Channel:
    turn: tuple[str, ...] = ()  # whose turn it is (user ids)
    turn_key: object = None  # which turn (the table's state): a mention once per turn
    deadline: float | None = None  # epoch seconds
    lang: str = "en"
    announced: object = None  # the turn_key last mentioned
    unreached: dict[str, str] = field(default_factory=dict)  # user id -> language: to press My hand
    notified: set[str] = field(default_factory=set)  # of those, the ones already mentioned
    message: int | None = None  # our mention message there now
    told: bool = False  # it names people to press My hand: it stays until a newer one replaces it


class Pinger:
    """One mention message per channel, within its rate limit."""

    def __init__(self, client: discord.Client, *, gap: float = PING_GAP,
                 clock: Callable[[], float] = time.time) -> None:
        self.client = client
        self.outbox = Coalescer(interval=gap)
        self.clock = clock
        self.channels: dict[int, _Channel] = {}
        self.sent = 0

    def turn(self, channel: int, user_ids: tuple[str, ...], turn_key: object, seconds: float | None,
             lang: str) -> None:
        """The table in `channel` now waits for these people (none: for nobody to mention)."""
        c = self.channels.setdefault(channel, _Channel())
        if (user_ids, turn_key) == (c.turn, c.turn_key):
            return
        c.turn, c.turn_key, c.lang = user_ids, turn_key, lang
        c.deadline = None if seconds is None else self.clock() + seconds
        if user_ids and c.announced == turn_key:
            return
        if user_ids or (c.message is not None and not c.told):
            self.outbox.submit(f"ping{channel}", lambda: self._deliver(channel))

    def unreached(self, channel: int, user_id: int, lang: str) -> None:
        """This person's hand could not be shown (no live interaction of theirs in `channel`)."""
        c = self.channels.setdefault(channel, _Channel())
        if str(user_id) in c.unreached:
            return
        c.unreached[str(user_id)] = lang
        self.outbox.submit(f"ping{channel}", lambda: self._deliver(channel))

    def reached(self, channel: int, user_id: int) -> None:
        """This person's hand is shown now: later messages stop naming them."""
        c = self.channels.get(channel)
        if c is not None:
            c.unreached.pop(str(user_id), None)
            c.notified.discard(str(user_id))

    def content(self, channel: int) -> tuple[str, list[int]] | None:
        """What the channel's mention message says now, and whom it mentions; None: nothing to say."""
        c = self.channels.get(channel)
        if c is None:
            return None
        lines: list[str] = []
        ids: list[int] = []
        if c.unreached:
            who = list(c.unreached)
            lines.append(" ".join(f"<@{u}>" for u in who) + " " + text(c.lang, "press_my_hand"))
            ids.extend(int(u) for u in who if u not in c.notified)
        if c.turn and c.announced != c.turn_key:
            mention = " ".join(f"<@{u}>" for u in c.turn)
            if c.deadline is not None:
                lines.append(f"{mention} {text(c.lang, 'your_turn')} <t:{int(c.deadline)}:R>")
            else:
                lines.append(f"{mention} {text(c.lang, 'your_turn_untimed')}")
            ids.extend(int(u) for u in c.turn if u.isdigit())
        return ("\n".join(lines), ids) if lines else None

    async def _deliver(self, channel: int) -> None:
        c = self.channels[channel]
        said = self.content(channel)
        target = self.client.get_partial_messageable(channel)
        old = c.message
        if said is not None:
            body, ids = said
            # what this message says is what was so when it was written: a turn (or a person) that
            # comes while it is on its way is the next message's to say
            named = set(c.unreached)
            turn_key, announces = c.turn_key, bool(c.turn)
            allowed = discord.AllowedMentions(everyone=False, roles=False, replied_user=False,
                                              users=[discord.Object(i) for i in ids])
            try:
                message = await target.send(body, allowed_mentions=allowed)
            except discord.HTTPException as exc:
                log.info("discord: mention in %s not sent: %s", channel, exc)
                return
            self.sent += 1
            c.message = message.id
            c.told = bool(named)
            c.notified.update(named & set(c.unreached))
            if announces:
                c.announced = turn_key
        elif c.told:
            return
        else:
            c.message = None
        if old is not None:
            with contextlib.suppress(discord.HTTPException):
                await target.get_partial_message(old).delete()

    async def flush(self) -> None:
        await self.outbox.flush()

    async def close(self) -> None:
        await self.outbox.close()
