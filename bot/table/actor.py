"""One table = one asyncio actor: a queue of messages (`bot.table.messages`), taken one at a time.

The actor is the only code that writes a table's state; the host and the table's timers and
AI threads send it messages. An accepted action is checked with the engine, applied, stored
with the deadlines it sets (one transaction), and only then spoken of.

The table's concerns live in modules named for them:

- `actor`      this loop, the routing of each message, commands, the table's plumbing
- `messages`   the messages the actor takes, one frozen dataclass per kind
- `context`    the narrow interface to the host (`TableHost`)
- `seats`      who sits where; `lobby` the lobby commands and votes
- `moves`      where a press or a typed action is handled, the automatic steps, `apply`
- `ai_moves`   what the AI seats choose, on the loop or in worker threads
- `context`    what the table's modules see of it (`TableCore`); `ops` adds its screen and steps (`TableOps`)
- `timers`     the deadlines; `ticks` what happens when one fires (`on_tick`)
- `render`     where the table and the private hands are drawn
- `announce`   what the table says in the group as the match moves

Past 400 lines because the loop's handling of a store that went away (a lease lost, the database
down: the update goes on elsewhere or is tried again) sits with the routing it interrupts.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import bot.table.lobby as lobby
from bot.i18n import tr, unknown_command_text
from bot.intents.types import Command
from bot.platform import Incoming, Platform, PlatformError, Poster, Unreachable, View, Where
from bot.scene.types import LeagueLine, Scene
from bot.table.ai_moves import AiSeats
from bot.table.announce import Announcer, choice_not_played
from bot.table.commit import Committed, Ended, Publisher, TableEvent
from bot.table.context import TableHost
from bot.table.forfeit import award, concede
from bot.table.messages import (
    AiAnswer,
    ChatLanguage,
    Event,
    Message,
    Redraw,
    Resume,
    Ruling,
    SeatLanguage,
    SeenLive,
    Stop,
    Tick,
    UnwatchLive,
    WatchLive,
    WebSeats,
)
from bot.table.moves import advance, apply_ai, apply_declaration, on_intent
from bot.table.render import Screen
from bot.table.seats import Seats
from bot.table.state import TableMeta
from bot.table.ticks import on_tick
from bot.table.timers import Timers
from engine import Match
from engine.views import PublicView, SeatView
from persistence.errors import LeaseLost, StoreDown

log = logging.getLogger(__name__)

#: Seconds after the store gave up on a step before the table tries to move on again.
AGAIN_AFTER_STORE_DOWN = 1.0


class Table:
    """A match's actor.  Created by the Host for a lobby (`new`) or when resuming."""

    def __init__(self, host: TableHost, *, match_id: int, platform: str, chat_id: str, rules: dict[str, Any],
                 seats: list[dict[str, Any]], seed: int, meta: Mapping[str, object] | TableMeta, status: str,
                 messages: dict[str, str] | None = None, deadlines: dict[str, float] | None = None,
                 match: Match | None = None, picks: dict[int, dict[str, Any]] | None = None) -> None:
        self.host = host
        self.id = match_id
        self.platform_name = platform
        self.chat_id = chat_id
        self.rules = rules
        self.seats = Seats.of(seats)
        self.seed = seed
        # typed here, from the stored JSON (old rows included); written back as it by save_meta
        self.meta = meta if isinstance(meta, TableMeta) else TableMeta.from_json(meta)
        self.status = status
        self.settings = self.meta.settings
        self.match: Match | None = match  # rebuilt from its log when resumed (see Host.start), else dealt at `start`
        self.queue: asyncio.Queue[Message] = asyncio.Queue()
        self.task: asyncio.Task[None] | None = None
        self.closed = False
        #: The league's line once the match counted there (`finish`): its result shows it.
        self.league_line: LeagueLine | None = None
        self.timers = Timers(match_id, host.store, host.clock, self.submit, deadlines)
        self.screen = Screen(self, messages, picks)
        self.ai = AiSeats(self)
        self._public: tuple[Match, int, PublicView] | None = None  # (match, version, its public view)
        self._answered = False
        #: The keys of the last actions applied here (bot.table.moves.human_act).
        self.applied_keys: OrderedDict[str, None] = OrderedDict()
        # The one subscription point for what this table commits (bot.table.commit), in this order:
        # the screen (what its buttons index into), the web hub, the group's announcements, the
        # host's features (a match that ended).
        self.events = Publisher()
        self.events.subscribe(self.screen.heard)
        self.events.subscribe(self._to_web)
        self.events.subscribe(Announcer(self))
        self.events.subscribe(self._to_host)

    @property
    def game(self) -> Match:
        """The match, for code that runs only at a table that has one (active, paused or just finished)."""
        assert self.match is not None, "a table without a match"
        return self.match

    # ----- plumbing -----

    @property
    def where(self) -> Where:
        return Where(self.platform_name, self.chat_id)

    @property
    def platform(self) -> Platform:
        return self.host.platform(self.platform_name)

    @property
    def lang(self) -> str:
        return self.host.chat_lang(self.platform_name, self.chat_id)

    @property
    def preset_name(self) -> str:
        return self.meta.preset or str(self.rules.get("name", "classic"))

    @property
    def messages(self) -> dict[str, str]:
        """The platform messages this table edits, by slot (read it; the screen keeps it)."""
        return self.screen.messages

    @property
    def deadlines(self) -> dict[str, float]:
        """The armed deadlines, by kind (read it; the timers keep it)."""
        return self.timers.deadlines

    def start(self) -> None:
        """Starts the actor task."""
        if self.task is None:
            self.task = asyncio.create_task(self._run(), name=f"table-{self.id}")

    def submit(self, message: Message) -> None:
        event = message.event if isinstance(message, Event) else None
        if not self.closed:
            self.queue.put_nowait(message)
            if event is not None and event.receipt is not None:
                event.receipt.handed = True  # settled by the actor, once it served the event
        elif event is not None:  # the table is stopping: the update is not taken here
            self.host.not_taken(event)

    def refuse_new_work(self) -> None:
        """From now on the actor takes no message and starts no step (the host is stopping)."""
        self.closed = True

    async def stop(self) -> None:
        """Ends the actor after what is queued; timers and AI threads are left to die."""
        self.closed = True
        self.timers.cancel()
        self.screen.cancel()
        if self.task is not None:
            self.queue.put_nowait(Stop())
            with contextlib.suppress(asyncio.CancelledError):
                await self.task

    def abandon(self) -> None:
        """Ends the actor without another word or write: another worker drives this table now.
        What is still queued finds the table closed (an append would be refused by the store)."""
        self.closed = True
        self.timers.cancel()
        self.screen.cancel()
        self.queue.put_nowait(Stop())

    def busy(self) -> bool:
        """Something is queued or an AI is thinking (tests wait for this to end)."""
        # an AI move is in flight until its answer is processed (which clears ai.pending)
        return (not self.queue.empty() or self.queue._unfinished_tasks > 0  # type: ignore[attr-defined]
                or self.ai.thinking())

    async def _run(self) -> None:
        # A lobby nobody touches still has its clock: a tournament match whose people never come is
        # forfeited when it runs out (the timers were armed only after a first message).
        self.timers.rearm(self.status in ("active", "lobby"))
        while True:
            message = await self.queue.get()
            try:
                if isinstance(message, Stop):
                    return
                receipt = message.event.receipt if isinstance(message, Event) else None
                try:
                    await self._process(message)
                except LeaseLost:
                    log.warning("table %s: lease lost serving %s; another worker drives it now", self.id,
                                message.event.key if isinstance(message, Event) else type(message).__name__)
                    if receipt is not None and receipt.settled:
                        self.host.lost(self, None)  # its action was stored and answered: it goes no further
                    else:
                        self.host.lost(self, message)
                        receipt = None  # settled where the update goes on to
                except StoreDown as exc:  # the database is away: nothing was stored
                    log.warning("table %s: serving %s: %s", self.id,
                                message.event.key if isinstance(message, Event) else type(message).__name__, exc)
                    # an automatic step (a deal, the next hand) may be what failed: nobody would ask
                    # for it again, so the table tries to move on by itself a moment later
                    asyncio.get_running_loop().call_later(AGAIN_AFTER_STORE_DOWN, self.submit, Redraw())
                    if isinstance(message, Event) and not (receipt is not None and receipt.settled):
                        self.host.not_taken(message.event)
                        if receipt is None or not receipt.redelivers:  # else the next delivery is answered
                            await self.answer(message.event, tr(self.lang, "err.internal"))
                except Exception:
                    log.exception("table %s failed on %s", self.id, type(message).__name__)
                    if isinstance(message, Event):
                        await self.answer(message.event, tr(self.lang, "err.internal"))
                finally:
                    if receipt is not None:
                        receipt.stored()  # served (no-op when settled already)
                if self.queue.empty() and not self.closed:
                    try:
                        pending = self.ai.pending
                        if pending is None or pending.done():
                            await self.screen.render()  # a burst of AI moves ends in one edit
                        else:
                            await self.screen.refresh_if_due()  # an AI thread is thinking mid-burst
                    finally:
                        # a failed render must not leave the table without its timers
                        self.timers.rearm(self.status in ("active", "lobby"))
            except LeaseLost:  # drawing writes too (turn notices): another worker drives the table now
                log.warning("table %s: lease lost while drawing", self.id)
            except Exception as exc:
                log.exception("table %s could not render: %r", self.id, exc)
            finally:
                self.queue.task_done()

    async def _process(self, message: Message) -> None:
        self.screen.may_lag_at = None  # set again by an inline play that leaves the trick open
        if isinstance(message, Event):
            await self._on_event(message)
        elif isinstance(message, Tick):
            await on_tick(self, message.kind)
        elif isinstance(message, AiAnswer):
            self.ai.answered()
            if self.running() and message.version == self.game.version:
                if message.seat < 0:  # the declarations asked while dealing
                    await apply_declaration(self, message.action)
                else:
                    await apply_ai(self, message.seat, message.action)
        elif isinstance(message, Resume | ChatLanguage):
            self.screen.forget_all()
        elif isinstance(message, SeatLanguage):
            s = self.seat_of(message.user_id)
            if s is not None:
                self.seats[s] = replace(self.seats[s], lang=message.lang)
                self.screen.forget(f"hand{s}")
        elif isinstance(message, WatchLive):
            self.host.live.add(self, message.watch)
            return
        elif isinstance(message, UnwatchLive):
            self.screen.web_left(self.host.live.remove(self.id, message.fn))
            return
        elif isinstance(message, SeenLive):
            hidden, shown = self.host.live.seen(self.id, message.fn, message.hidden)
            self.screen.web_left(hidden)
            if not shown:
                return
            # a page is shown again: drawn at once (its hand folded, its turn notice gone)
        elif isinstance(message, WebSeats):
            self.screen.web_left(self.host.live.set_remote(self.id, message.worker, message.seats))
            return
        elif isinstance(message, Ruling):
            if not self.closed:
                await award(self, message.team, message.why)
                self.host.live.publish(self)  # an open page sees the match end
            return
        await advance(self)
        self.host.live.publish(self)

    # ----- seats -----

    def seat_of(self, user_id: str) -> int | None:
        """The seat of this person; None for strangers and for people kicked out (an AI keeps their seat)."""
        return self.seats.seat_of(user_id)

    def seat_lang(self, s: int) -> str:
        return self.seats.lang(s, self.lang)

    def lang_for(self, ev: Incoming) -> str:
        """The language to answer `ev` in: the person's own in their private chat or where the answer
        reaches them alone (`Incoming.alone`), else the table's."""
        if ev.where.private or ev.alone:
            return self.host.user_lang(ev.user) or self.lang
        return self.lang

    def private_where(self, s: int) -> Where:
        return Where(self.platform_name, str(self.seats[s].user_id), private=True, about=self.chat_id)

    async def save_seats(self) -> None:
        await self.host.store.update_match(self.id, seats=self.seats.to_json())

    async def save_meta(self) -> None:
        await self.host.store.update_match(self.id, meta=self.meta.to_json())

    def public(self) -> PublicView:
        """The match's public view, built once per state version (read it, never change it)."""
        m = self.game
        if self._public is None or self._public[0] is not m or self._public[1] != m.version:
            self._public = (m, m.version, m.public_view())
        return self._public[2]

    def seat_view(self, s: int) -> SeatView:
        """What seat `s` sees now, built on the cached public view."""
        return self.game.view(s, self.public())

    def running(self) -> bool:
        return self.status == "active" and self.match is not None

    def live_scene(self, seat: int | None) -> Scene:
        """What `seat` sees now (None: an onlooker), with why it was last refused (the web hub's frames)."""
        scenes = self.screen.scenes
        if seat is None:
            return scenes.onlooker()
        return scenes.seat(seat, refusal=self.meta.notes.get(seat))

    # ----- events -----

    async def answer(self, ev: Incoming, text: str) -> None:
        """Answers this event (once per event is what platforms expect)."""
        self._answered = True
        await self.host.answer(ev, text)
        if (ev.kind == "chosen" and (not ev.where.private or ev.extra.get("posted") == "group")
                and len(text.strip()) > 2):
            await choice_not_played(self, ev)  # a refusal: the group saw the choice posted

    async def _on_event(self, message: Event) -> None:
        ev = message.event
        self._answered = False
        s = self.seat_of(ev.user.user_id)
        if s is not None:
            if ev.kind == "chosen":
                self.screen.plays_inline.add(s)
            elif ev.kind in ("press", "text"):
                self.screen.plays_inline.discard(s)  # they are looking at their private hand again
        if message.intent is not None:
            # a choice posted in the group mentions who plays next (the notices' `posted_at`; the table
            # is drawn once the queue is empty, and the version says whether that play was the last move)
            posted = ev.kind == "chosen" and (not ev.where.private or ev.extra.get("posted") == "group")
            notices = self.screen.notices
            notices.posted_at = self.match.version if posted and self.match is not None else None
            notices.posted_by = s
            await on_intent(self, ev, message.intent)
        elif ev.intent is not None and isinstance(ev.intent.act, Command):  # a command typed as a line
            await self.on_command(ev, ev.intent.act.name, ev.intent.act.args)
        else:
            await self.on_command(ev, ev.name.lower(), ev.args)
        if not self._answered and ev.kind in ("press", "chosen"):
            await self.host.answer(ev, "✓")  # a button press is always answered

    async def say(self, text: str, answering: Incoming | None = None) -> None:
        """A short announcement in the group; `answering`: the command it answers (a vote, a kick),
        whose own public answer it is where the platform ties one to it (`bot.platform.Poster`)."""
        view = View(text, said=True)
        reply = answering.reply if answering is not None and answering.where == self.where else None
        try:
            if isinstance(reply, Poster) and await reply.post(view):
                return
            await self.platform.send(self.where, view)
        except (PlatformError, Unreachable):
            log.warning("table %s: announcement not delivered", self.id)

    async def on_command(self, ev: Incoming, name: str, args: tuple[str, ...]) -> None:
        lang = self.lang
        s = self.seat_of(ev.user.user_id)
        if name == "join":
            await lobby.join(self, ev, args)
        elif name == "leave":
            await lobby.leave(self, ev)
        elif name == "addbot":
            await lobby.addbot(self, ev, args)
        elif name == "kick":
            await lobby.kick(self, ev, args)
        elif name == "start":
            await lobby.start(self, ev)
        elif name in ("pause", "resume", "abandon"):
            await lobby.vote(self, ev, name)
        elif name == "forfeit":
            await concede(self, ev)
        elif name == "back":
            if s is None:
                await self.answer(ev, tr(lang, "err.not_seated"))
            elif not self.seats[s].away:
                await self.answer(ev, tr(lang, "back.not_away"))
            else:
                self.seats[s] = replace(self.seats[s], away=False, timeouts=0)
                await self.save_seats()
                await self.say(tr(lang, "back.ok", name=self.seats[s].name), ev)
        elif name == "ping":  # whether a platform that can mention this person does so when it is their turn
            if s is None:
                await self.answer(ev, tr(lang, "err.not_seated"))
                return
            quiet = bool(args) and args[0].lower() in ("off", "0", "no", "关", "關")
            uid = str(ev.user.user_id)
            others = [u for u in self.meta.quiet if u != uid]
            self.meta.quiet = [*others, uid] if quiet else others  # a preference, not the seat itself
            await self.save_meta()
            self.screen.forget("table")
            await self.answer(ev, tr(self.seat_lang(s), "ping.off") if quiet else tr(self.seat_lang(s), "ping.on"))
        elif name in ("hand", "table"):
            if name == "hand" and s is not None and self.match is not None:
                try:
                    await self.screen.send_hand(s, force_new=True)
                except Unreachable as exc:
                    await self.screen.unreachable(s, exc)
                    await self.answer(ev, tr(self.seat_lang(s), "err.open_bot_first", how=exc.how_to_fix))
                    return
                self.screen.reachable(s)
                if not ev.where.private:  # the hand went to their private chat: say where it is
                    await self.answer(ev, tr(self.seat_lang(s), "hand.sent_private"))
            else:
                self.screen.forget("table")
                self.screen.forget("lobby")
                if ev.alone:  # where only the asker reads the answer (Discord), they are told what came of it
                    await self.answer(ev, tr(self.lang_for(ev), "table.posted_again"))
        else:
            await self.answer(ev, unknown_command_text(lang, name))

    # ----- endings -----

    async def finish(self) -> None:
        result = dict(self.game.result or {})
        # the league counts it before its end is shown, so the end says where the winners stand now
        self.league_line = await self.host.match_counted(self, result)
        await self.screen.render()
        await self.close("finished", result)
        await self.events.publish(Ended(self.id, self.status, result, played=True))

    async def _to_web(self, event: TableEvent) -> None:
        """Web tables see each committed state, AI moves included."""
        if isinstance(event, Committed):
            self.host.live.publish(self)

    async def _to_host(self, event: TableEvent) -> None:
        """A match that ended goes to the host's features (the league records it, a tournament moves on)."""
        if isinstance(event, Ended):
            await self.host.match_ended(self, dict(event.result))

    async def close(self, status: str, result: dict[str, object]) -> None:
        self.status = status
        await self.host.store.finish_match(self.id, status, result)
        self.timers.clear()
        self.closed = True
        self.timers.cancel()
        self.host.forget(self)
        self.queue.put_nowait(Stop())  # the actor ends once this message is done
