"""One table = one asyncio actor: a queue of events, timer expiries and AI moves.

The actor applies them one at a time: check with the engine, persist through
the store, apply, and only then speak (table message, private hands,
announcements).  Nothing else touches a table's state.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from bot import actions, lobby, tokens
from bot.actions import ACTION_WORDS
from bot.ai import find_chooser, move_seed
from bot.cardtext import cards_text, suit_text
from bot.i18n import LANGS, tr, unknown_command_text
from bot.lobby import EMPTY
from bot.platform import Incoming, Platform, PlatformError, Unreachable, View, Where
from bot.settings import DEFAULT_AI_LEVEL, TableSettings
from bot.views import (
    SeatInfo,
    hand_elsewhere_view,
    hand_result_text,
    hand_view,
    lobby_view,
    match_result_text,
    seat_label,
    table_view,
)

if TYPE_CHECKING:
    from bot.host import Host

log = logging.getLogger(__name__)

SYSTEM_TIMER = {"deal": "deal", "close": "declare", "next": "next"}
RENDER_RETRY = 5.0  # seconds before a table whose message could not go out is drawn again
# During a run of AI moves (no person to wait for) the table is drawn at most this often, so that
# spectators see the game move; Telegram allows a group about 20 messages a minute anyway.
AI_REFRESH = 3.0
# A play chosen from the group (inline) shows itself there as the player's own message, naming who
# plays next; the table message then waits for the end of the trick, for anything else to happen,
# or at most this many seconds.
TABLE_LAG = 30.0
# While the cards are dealt, a private hand is redrawn every this many cards, and at once when
# its declare buttons change (not for every card: a deal would cost 25 edits per seat).
DEAL_REDRAW_EVERY = 5
HUMAN_TIMER_PHASES = {"burying": "bury", "chao": "turn", "playing": "turn"}


@dataclass
class Item:
    """One thing for the actor to do."""

    kind: str  # "event", "tick", "ai", "render", "resume", "stop"
    event: Incoming | None = None
    name: str = ""
    seat: int = -1
    version: int = -1
    action: dict[str, Any] | None = None
    done: asyncio.Future[Any] | None = field(default=None, repr=False)


class Table:
    """A match's actor.  Created by the Host for a lobby (`new`) or when resuming."""

    def __init__(self, host: Host, *, match_id: int, platform: str, chat_id: str, rules: dict[str, Any],
                 seats: list[dict[str, Any]], seed: int, meta: dict[str, Any], status: str,
                 messages: dict[str, str] | None = None, deadlines: dict[str, float] | None = None,
                 actions: Sequence[dict[str, Any]] = ()) -> None:
        self.host = host
        self.id = match_id
        self.platform_name = platform
        self.chat_id = chat_id
        self.rules = rules
        self.seats = [dict(s) for s in seats] + [dict(EMPTY) for _ in range(4 - len(seats))]
        self.seed = seed
        self.meta = meta
        self.status = status
        self.messages = dict(messages or {})
        self.deadlines = dict(deadlines or {})
        self.settings = TableSettings.from_dict(meta.get("settings"))
        self.match: Any = None
        if status in ("active", "paused"):
            self.match = host.engine.Match.replay(host.engine.Rules.from_dict(rules), seed, list(actions))
        self.selection: dict[int, set[int]] = {s: set() for s in range(4)}
        self.page: dict[int, int] = dict.fromkeys(range(4), 0)
        self.view_version: dict[int, int] = dict.fromkeys(range(4), 0)
        # What each seat's buttons index into (phase and cards) when view_version was set: while it
        # holds, redrawing the hand (a card selected, say) keeps the buttons' version, so a button
        # on a keyboard whose redraw has not arrived yet still counts.
        self.view_key: dict[int, tuple[Any, ...]] = {}
        self.rendered: dict[str, Any] = {}
        # Seats that play from the group (inline mode): while the hand is being played, their
        # private hand is redrawn lazily (see send_hand), not after each of their plays.
        self.plays_inline: set[int] = set()
        self.hand_phase: dict[int, str] = {}  # the phase each private hand was last drawn in
        self.queue: asyncio.Queue[Item] = asyncio.Queue()
        self.task: asyncio.Task[None] | None = None
        self.timer: asyncio.Task[None] | None = None
        self.timer_for: tuple[str, float] | None = None
        self.ai_pending: asyncio.Future[Any] | None = None
        self.rerender: asyncio.TimerHandle | None = None
        self._public: tuple[Any, int, dict[str, Any]] | None = None  # (match, version, its public view)
        self.burst_since: float | None = None  # host clock time the current run of AI moves began
        self._drawn = False  # drawn since this actor started
        # The version up to which the group's table message may lag behind (see TABLE_LAG), and
        # the timer that bounds how long it lags.
        self.table_may_lag_at: int | None = None
        self.lag_timer: asyncio.TimerHandle | None = None
        self.closed = False
        self._answered = False
        self._deal_asked = -1
        self.announced_hand = int(meta.get("announced_hand", 0))
        self.last_declaration: Any = self.match.public_view().get("declaration") if self.match else None
        self.chooser = find_chooser()

    # ----- plumbing -----

    @property
    def where(self) -> Where:
        return Where(self.platform_name, self.chat_id)

    @property
    def platform(self) -> Platform:
        return self.host.platforms[self.platform_name]

    @property
    def lang(self) -> str:
        return self.host.chat_lang(self.platform_name, self.chat_id)

    @property
    def preset_name(self) -> str:
        return str(self.meta.get("preset", self.rules.get("name", "classic")))

    def start(self) -> None:
        """Starts the actor task."""
        if self.task is None:
            self.task = asyncio.create_task(self._run(), name=f"table-{self.id}")

    def submit(self, item: Item) -> None:
        if not self.closed:
            self.queue.put_nowait(item)

    async def stop(self) -> None:
        """Ends the actor after what is queued; timers and AI threads are left to die."""
        self.closed = True
        if self.timer is not None:
            self.timer.cancel()
        if self.rerender is not None:
            self.rerender.cancel()
        if self.lag_timer is not None:
            self.lag_timer.cancel()
        if self.task is not None:
            self.queue.put_nowait(Item("stop"))
            with contextlib.suppress(asyncio.CancelledError):
                await self.task

    def busy(self) -> bool:
        """Something is queued or an AI is thinking (tests wait for this to end)."""
        # an AI move is in flight until its queue item is processed (which clears ai_pending)
        return (not self.queue.empty() or self.queue._unfinished_tasks > 0  # type: ignore[attr-defined]
                or self.ai_pending is not None)

    async def _run(self) -> None:
        while True:
            item = await self.queue.get()
            try:
                if item.kind == "stop":
                    return
                try:
                    await self._process(item)
                except Exception:
                    log.exception("table %s failed on %s", self.id, item.kind)
                    if item.event is not None:
                        await self.answer(item.event, tr(self.lang, "err.internal"))
                if self.queue.empty() and not self.closed:
                    try:
                        if self.ai_pending is None or self.ai_pending.done():
                            await self._render()  # a burst of AI moves ends in one edit
                        else:
                            await self._refresh_if_due()  # an AI thread is thinking mid-burst
                    finally:
                        self._rearm()  # a failed render must not leave the table without its timers
            except Exception:
                log.exception("table %s could not render", self.id)
            finally:
                if item.done is not None and not item.done.done():
                    item.done.set_result(None)
                self.queue.task_done()

    async def _process(self, item: Item) -> None:
        self.table_may_lag_at = None  # set again by an inline play that leaves the trick open
        if item.kind == "event" and item.event is not None:
            await self._on_event(item.event)
        elif item.kind == "tick":
            await self._on_tick(item.name)
        elif item.kind == "ai":
            self.ai_pending = None
            if self._running() and item.version == self.match.version:
                # seat -1: the declarations asked while dealing
                act = (self._legal_declare(item.action) if item.seat < 0
                       else self._legal_or_fallback(item.seat, item.action))
                if act is not None:
                    await self.apply_action(act, None)
        elif item.kind == "resume":
            self.rendered.clear()
        await self._advance()

    # ----- seats -----

    def seat_of(self, user_id: str) -> int | None:
        """The seat of this person; None for strangers and for people kicked out (an AI keeps their seat)."""
        for s, seat in enumerate(self.seats):
            if seat.get("kind") == "human" and seat.get("user_id") == user_id and not seat.get("kicked"):
                return s
        return None

    def seat_infos(self) -> list[SeatInfo | None]:
        out: list[SeatInfo | None] = []
        for seat in self.seats:
            if seat.get("kind") == "empty":
                out.append(None)
            else:
                out.append(SeatInfo(str(seat.get("name", "?")), is_ai=seat.get("kind") == "ai",
                                    away=bool(seat.get("away"))))
        return out

    def humans(self) -> list[int]:
        return [s for s, seat in enumerate(self.seats) if seat.get("kind") == "human"]

    def ai_driven(self, s: int) -> bool:
        seat = self.seats[s]
        return seat.get("kind") == "ai" or bool(seat.get("away"))

    def seat_lang(self, s: int) -> str:
        lang = self.seats[s].get("lang")
        return lang if isinstance(lang, str) and lang in LANGS else self.lang

    def private_where(self, s: int) -> Where:
        return Where(self.platform_name, str(self.seats[s]["user_id"]), private=True)

    async def save_seats(self) -> None:
        await self.host.store.update_match(self.id, seats=self.seats)

    async def save_meta(self) -> None:
        self.meta["settings"] = self.settings.to_dict()
        await self.host.store.update_match(self.id, meta=self.meta)

    def public(self) -> dict[str, Any]:
        """The match's public view, built once per state version (read it, never change it)."""
        m = self.match
        if self._public is None or self._public[0] is not m or self._public[1] != m.version:
            self._public = (m, m.version, m.public_view())
        return self._public[2]

    def seat_view(self, s: int) -> dict[str, Any]:
        """What seat `s` sees now, built on the cached public view."""
        view: dict[str, Any] = self.match.view(s, self.public())
        return view

    def _running(self) -> bool:
        return self.status == "active" and self.match is not None

    # ----- events -----

    async def answer(self, ev: Incoming, text: str) -> None:
        """Answers this event (once per event is what platforms expect)."""
        self._answered = True
        await self.host.answer(ev, text)

    async def _on_event(self, ev: Incoming) -> None:
        self._answered = False
        s = self.seat_of(ev.user.user_id)
        if s is not None:
            if ev.kind == "chosen":
                self.plays_inline.add(s)
            elif ev.kind in ("press", "text"):
                self.plays_inline.discard(s)  # they are looking at their private hand again
        await self._dispatch(ev)
        if not self._answered and ev.kind in ("press", "chosen"):
            await self.host.answer(ev, "✓")  # a button press is always answered

    async def _dispatch(self, ev: Incoming) -> None:
        if ev.kind == "command":
            await self.on_command(ev, ev.name.lower(), ev.args)
        elif ev.kind in ("press", "chosen"):
            await actions.on_press(self, ev, tokens.parse(ev.token))
        elif ev.kind == "text":
            words = ev.text.split()
            if words and words[0].lower() in ACTION_WORDS:
                await actions.on_typed(self, ev, words[0].lower(), words[1:])
            elif words:
                await self.on_command(ev, words[0].lower(), tuple(words[1:]))

    async def say(self, text: str) -> None:
        """A short announcement in the group."""
        try:
            await self.platform.send(self.where, View(text))
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
        elif name == "back":
            if s is None:
                await self.answer(ev, tr(lang, "err.not_seated"))
            elif not self.seats[s].get("away"):
                await self.answer(ev, tr(lang, "back.not_away"))
            else:
                self.seats[s]["away"] = False
                self.seats[s]["timeouts"] = 0
                await self.save_seats()
                await self.say(tr(lang, "back.ok", name=self.seats[s]["name"]))
        elif name in ("hand", "table"):
            if name == "hand" and s is not None and self.match is not None:
                await self.send_hand(s, force_new=True)
            else:
                self.rendered.pop("table", None)
                self.rendered.pop("lobby", None)
        else:
            await self.answer(ev, unknown_command_text(lang, name))

    # ----- applying -----

    async def apply_action(self, action: dict[str, Any], key: str | None) -> str:
        """Persist, then apply.  The caller checked the action."""
        m = self.match
        res: str = await self.host.store.append_action(self.id, m.version, action, key)
        if res == "duplicate":
            return res
        events = m.apply(action)
        await self._announce_events(events)
        for kind in ("turn", "bury"):
            if kind in self.deadlines:
                await self.set_deadline(kind, None)
        t = action.get("t")
        if t in ("play", "bury", "chao", "next", "deal"):
            seat = action.get("seat")
            if isinstance(seat, int):
                self.selection[seat].clear()
        if t == "bury":
            await self.say(tr(self.lang, "announce.buried", who=seat_label(int(action["seat"]),
                                                                           self.seat_infos(), self.lang)))
        elif t == "revolt":
            await self.say(tr(self.lang, "announce.revolt", who=seat_label(int(action["seat"]),
                                                                           self.seat_infos(), self.lang)))
        decl = self.public().get("declaration")
        if decl and decl != self.last_declaration:
            await self.say(tr(self.lang, "announce.declared", who=seat_label(int(decl["seat"]), self.seat_infos(),
                                                                             self.lang),
                              cards=cards_text(list(decl.get("cards", [])))))
        self.last_declaration = decl
        return res

    async def _announce_events(self, events: list[dict[str, Any]]) -> None:
        """Short group messages for the events that matter (never a card that is still in a hand)."""
        lang = self.lang
        for e in events:
            kind = e.get("e")
            if kind == "throw_failed":
                await self.say(tr(lang, "announce.throw_failed", who=seat_label(int(e["seat"]), self.seat_infos(), lang),
                                  cards=cards_text(list(e.get("played", []))), penalty=e.get("penalty", 0)))
            elif kind == "trump" and e.get("from_kitty"):
                trump = e.get("trump")
                shown = tr(lang, "table.no_trump") if trump == "NT" else suit_text(trump)
                await self.say(tr(lang, "announce.trump_kitty", trump=shown))
            elif kind == "chao":
                await self.say(tr(lang, "announce.chao", who=seat_label(int(e["seat"]), self.seat_infos(), lang),
                                  cards=cards_text(list(e.get("cards", [])))))
            elif kind == "time_up":
                await self.say(tr(lang, "announce.time_up"))

    async def _advance(self) -> None:
        """Moves the match on until it waits for a person, a timer or an AI thread.

        Each automatic step (an AI move, a deal step) holds one of the host's `move_slots`: with
        many tables of AIs at full speed only that many are in the middle of a step at once, so
        one turn of the event loop stays short and the adapters' messages are not held up behind
        every table's next move."""
        for _ in range(10_000):
            if not self._running() or self.closed:
                return
            async with self.host.move_slots:
                moved = await self._step()
            if not moved:
                return
            await self._refresh_if_due()
            await asyncio.sleep(0)  # let other tables and adapters run between moves

    async def _step(self) -> bool:
        """One automatic step; False when the match waits (for a person, a timer, a thread) or ended."""
        m = self.match
        await self._announce_hand_result()
        if m.phase == "match_over":
            await self._finish()
            return False
        to_act = list(m.to_act())
        movers = [s for s in to_act if self.ai_driven(s)]
        if movers:
            if self.ai_pending is not None:
                return False
            action = self._ai_move(movers[0])
            if action is None:
                return False  # a thread is thinking; its move comes back through the queue
            await self.apply_action(action, None)
            return True
        if m.phase == "dealing":
            asked, declaration = self._ai_declares_while_dealing()
            if asked:
                return False  # the deal goes on once the AI seats have answered
            if declaration is not None:
                await self.apply_action(declaration, None)
                return True
        sys_action = m.system_action()
        humans = [s for s in to_act if not self.ai_driven(s)]
        if sys_action is not None:
            kind = SYSTEM_TIMER.get(str(sys_action.get("t")), "deal")
            delay = float(getattr(self.settings, kind))
            if delay <= 0 and not humans:
                await self.apply_action(sys_action, None)
                return True
            if kind not in self.deadlines:
                await self.set_deadline(kind, self.host.clock.now() + delay)
            return False
        if humans:
            hkind = HUMAN_TIMER_PHASES.get(m.phase)
            if hkind is not None:
                delay = float(getattr(self.settings, hkind))
                if delay > 0 and hkind not in self.deadlines:
                    await self.set_deadline(hkind, self.host.clock.now() + delay)
        return False

    def _ai_declares_while_dealing(self) -> tuple[bool, dict[str, Any] | None]:
        """After each deal step the AI seats may show a level card.

        Asked on the loop when `basic` is a quick level for the host (it decides in well under a
        millisecond), else in a worker thread. Returns (True, None) when a question is in flight
        (the deal waits for the answer), or (False, a legal declaration or None).
        """
        m = self.match
        if self.chooser is None or not self.host.use_ai_threads or self._deal_asked == m.version:
            return False, None
        self._deal_asked = m.version
        # only seats that hold a legal declaration now (about half of them while dealing): building
        # a seat's view and asking costs about 15 times as much as the engine's list of its options
        asks = [(s, self.seat_view(s), move_seed(self.seed, m.version, s)) for s in range(4)
                if self.ai_driven(s) and m.can_declare(s)]
        if not asks:
            return False, None
        if "basic" in self.host.inline_levels:
            return False, self._legal_declare(_first_declare(self.chooser, asks))
        self._launch(lambda: _first_declare(self.chooser, asks), seat=-1, version=m.version)
        return True, None

    def _ai_move(self, s: int) -> dict[str, Any] | None:
        """A move for an AI-driven seat: at once (auto_action, or a quick level on the loop),
        or later from a worker thread."""
        m = self.match
        seat = self.seats[s]
        level = str(seat.get("level", DEFAULT_AI_LEVEL)) if seat.get("kind") == "ai" else DEFAULT_AI_LEVEL
        seed = move_seed(self.seed, m.version, s)
        if self.chooser is None or not self.host.use_ai_threads:
            action: dict[str, Any] = m.auto_action(s, rng_seed=seed)
            return action
        view = self.seat_view(s)
        chooser = self.chooser
        budget = self.settings.ai_budget
        if level in self.host.inline_levels:
            try:
                act = chooser(view, level, seed, budget)
            except Exception:
                log.exception("AI failed at table %s", self.id)
                act = None
            return self._legal_or_fallback(s, act)
        self._launch(lambda: chooser(view, level, seed, budget), seat=s, version=m.version)
        return None

    def _legal_or_fallback(self, s: int, act: Any) -> dict[str, Any]:
        """An AI's answer when it is legal now; for a failed or illegal answer, the engine's auto_action."""
        m = self.match
        if isinstance(act, dict) and m.check(act) is None:
            return act
        fallback: dict[str, Any] = m.auto_action(s, rng_seed=m.version)
        return fallback

    def _legal_declare(self, act: Any) -> dict[str, Any] | None:
        """An AI's answer while dealing counts only when it is a legal declaration."""
        if isinstance(act, dict) and act.get("t") == "declare" and self.match.check(act) is None:
            return act
        return None

    def _launch(self, job: Any, *, seat: int, version: int) -> None:
        """Runs an AI job in the host's worker threads; its answer comes back as an "ai" queue item."""
        fut = asyncio.get_running_loop().run_in_executor(self.host.executor, job)
        self.ai_pending = fut

        def back(f: asyncio.Future[Any]) -> None:
            if f.cancelled():  # the host is stopping
                return
            try:
                act = f.result()
            except Exception:
                log.exception("AI failed at table %s", self.id)
                act = None
            self.submit(Item("ai", seat=seat, version=version, action=act if isinstance(act, dict) else None))

        fut.add_done_callback(back)

    async def _on_tick(self, kind: str) -> None:
        at = self.deadlines.get(kind)
        if at is None or at > self.host.clock.now():
            return
        await self.set_deadline(kind, None)
        if kind == "lobby":
            if self.status == "lobby":
                await self.close("abandoned", {"reason": "lobby_expired"})
                await self.say(tr(self.lang, "lobby.expired"))
            return
        if not self._running():
            return
        m = self.match
        if kind == "time_limit":
            if m.check({"t": "time_up"}) is None:
                await self.apply_action({"t": "time_up"}, None)
            return
        if kind in ("deal", "declare", "next"):
            sys_action = m.system_action()
            if sys_action is None or SYSTEM_TIMER.get(str(sys_action.get("t"))) != kind:
                return
            await self.apply_action(sys_action, None)
            return
        # a person ran out of time: the basic AI moves for them
        for s in [s for s in m.to_act() if not self.ai_driven(s)]:
            action = m.auto_action(s, rng_seed=move_seed(self.seed, m.version, s))
            await self.apply_action(action, None)
            seat = self.seats[s]
            seat["timeouts"] = int(seat.get("timeouts", 0)) + 1
            name = str(seat.get("name", "?"))
            if seat["timeouts"] >= self.settings.away_after > 0:
                seat["away"] = True
                await self.say(tr(self.lang, "timeout.away", name=name, n=seat["timeouts"]))
            else:
                await self.say(tr(self.lang, "timeout.moved", name=name))
            await self.save_seats()
            self.rendered.pop(f"note{s}", None)
            self.meta.setdefault("notes", {})[str(s)] = "timeout.you"

    async def set_deadline(self, kind: str, at: float | None) -> None:
        if at is None:
            if kind not in self.deadlines:
                return
            self.deadlines.pop(kind, None)
        else:
            self.deadlines[kind] = at
        await self.host.store.set_deadline(self.id, kind, at)

    def _rearm(self) -> None:
        """One timer task sleeps until the earliest deadline, then queues a tick."""
        if self.status not in ("active", "lobby") or not self.deadlines:
            target = None
        else:
            kind = min(self.deadlines, key=lambda k: self.deadlines[k])
            target = (kind, self.deadlines[kind])
        if target == self.timer_for and self.timer is not None and not self.timer.done():
            return
        if self.timer is not None:
            self.timer.cancel()
        self.timer_for = target
        self.timer = None
        if target is not None:
            self.timer = asyncio.create_task(self._sleep_then_tick(*target))

    async def _sleep_then_tick(self, kind: str, at: float) -> None:
        await self.host.clock.sleep_until(at)
        self.timer_for = None
        self.submit(Item("tick", name=kind))

    # ----- endings -----

    async def _announce_hand_result(self) -> None:
        m = self.match
        pub = self.public()
        res = pub.get("last_result")
        hand_no = int(pub.get("hand_no", 0))
        finished = hand_no if m.phase in ("hand_over", "match_over") else hand_no - 1
        if res and finished > self.announced_hand:
            self.announced_hand = finished
            self.meta["announced_hand"] = finished
            await self.save_meta()
            await self.say(hand_result_text(dict(res, hand_no=finished), self.seat_infos(), self.lang))

    async def _finish(self) -> None:
        result = dict(self.match.result or {})
        await self._render()
        await self.close("finished", result)
        await self.say(match_result_text(result, self.seat_infos(), self.lang))
        await self.host.record_league(self, result)
        await self.host.next_in_series(self, result)

    async def close(self, status: str, result: dict[str, Any]) -> None:
        self.status = status
        await self.host.store.finish_match(self.id, status, result)
        for kind in list(self.deadlines):
            self.deadlines.pop(kind, None)
        self.closed = True
        if self.timer is not None:
            self.timer.cancel()
        self.host.forget(self)
        self.queue.put_nowait(Item("stop"))  # the actor ends once this item is done

    # ----- speaking -----

    async def _refresh_if_due(self) -> None:
        """Mid-burst of AI moves: once the burst has run `host.refresh_interval()` (`ai_refresh`, 3 s,
        longer with very many tables) seconds since it began (or
        since the table was last drawn), draw the table, so a table of AIs playing at full speed
        still shows its progress. A short burst (three AIs answering a person) costs nothing extra:
        it ends in the usual single render."""
        now = self.host.clock.now()
        interval = self.host.refresh_interval()
        if self.burst_since is None:
            self.burst_since = now
            if not self._drawn:  # tables resumed together must not all draw at the same moments
                self.burst_since -= interval * ((self.id * 0.6180339887) % 1.0)
        elif now - self.burst_since >= interval:
            await self._render()

    async def _render(self) -> None:
        """Edits the table message and every private hand whose content changed."""
        self.burst_since = None
        self._drawn = True
        if self.status == "lobby":
            v = lobby_view(self.seat_infos(), self.lang, match_id=self.id, preset=self.preset_name,
                           creator=str(self.meta.get("creator_name", "?")), options=str(self.meta.get("options", "")),
                           join_url=self.platform.join_link(f"join-{self.id}"))
            await self._show("lobby", self.where, v)
            return
        if self.match is None or self.status not in ("active", "paused", "finished"):
            return
        m = self.match
        pub = self.public()
        slot = "table"
        time_left = None
        for kind in ("turn", "bury", "declare"):
            if kind in self.deadlines:
                time_left = self.deadlines[kind] - self.host.clock.now()
        hand_no = int(pub.get("hand_no", 1))
        if self.meta.get("table_hand") != hand_no:  # one table message per hand
            if self.meta.get("table_hand") is not None:
                self.messages.pop("table", None)
            self.meta["table_hand"] = hand_no
            await self.save_meta()
        if (self.table_may_lag_at == m.version and self.status == "active" and pub.get("trick")
                and "table" in self.messages):
            # the play shows itself in the group (inline); the table catches up at the trick's end
            if self.lag_timer is None and not self.closed:
                self.lag_timer = asyncio.get_running_loop().call_later(TABLE_LAG, self._lagged_too_long)
            await self._render_hands()
            return
        if self.lag_timer is not None:
            self.lag_timer.cancel()
            self.lag_timer = None
        v = table_view(pub, self.seat_infos(), self.lang, match_id=self.id, version=m.version,
                       preset=self.preset_name, time_left=time_left, paused=self.status == "paused")
        bare = table_view(pub, self.seat_infos(), self.lang, match_id=self.id, version=m.version,
                          preset=self.preset_name, paused=self.status == "paused")
        await self._show(slot, self.where, v, compare=_strip_versions(bare))
        await self._render_hands()

    async def _render_hands(self) -> None:
        for s in self.humans():
            if self.seats[s].get("kicked"):
                continue
            try:
                await self.send_hand(s)
            except Unreachable as exc:
                await self.say(tr(self.lang, "err.unreachable", name=self.seats[s]["name"], how=exc.how_to_fix))

    def hand_view_for(self, s: int, version: int, seen: dict[str, Any] | None = None) -> View:
        note_key = self.meta.get("notes", {}).get(str(s))
        note = tr(self.seat_lang(s), note_key) if note_key else ""
        v = self.seat_view(s) if seen is None else seen
        return hand_view(v, self.seat_infos(), self.seat_lang(s), match_id=self.id, version=version,
                         legal=self._button_actions(s, v), selection=self.selection[s], page=self.page[s],
                         page_size=self.host.page_size(self.platform_name), note=note)

    def _button_actions(self, s: int, v: dict[str, Any]) -> list[dict[str, Any]]:
        """The actions a hand shows as buttons: bids and passes while declaring, a revolution when allowed."""
        m = self.match
        if m.phase in ("dealing", "declaring", "chao"):
            return list(m.legal_actions(s))
        return [{"t": "revolt", "seat": s}] if v.get("can_revolt") else []

    async def send_hand(self, s: int, *, force_new: bool = False) -> None:
        """Shows seat s its hand; a new message when asked (or none yet), else an edit when it changed.

        A seat that plays from the group (inline) is not sent an edit after each of its own plays
        while the hand is being played: its private hand is folded away once (no card in it) and
        drawn in full again when the hand moves to another phase, or when its owner presses ↻,
        any old button of it (refused as out of date if the cards changed), *My hand*, or types in
        the private chat. While cards are dealt, a hand is redrawn every DEAL_REDRAW_EVERY cards
        and whenever its buttons (what may be declared) change.
        """
        m = self.match
        seen = self.seat_view(s)
        key = (m.phase, tuple(seen.get("hand") or ()))
        version = self.view_version[s] if self.view_key.get(s) == key else m.version
        slot = f"hand{s}"
        if (not force_new and s in self.plays_inline and m.phase == "playing"
                and self.hand_phase.get(s) == "playing" and slot in self.messages):
            # Folded away once (no card in it, so no edit after the next plays); its old buttons
            # are refused from now on if the cards changed, ↻ shows the hand again.
            self.view_version[s], self.view_key[s] = version, key
            folded = hand_elsewhere_view(seen, self.seat_infos(), self.seat_lang(s), match_id=self.id,
                                         version=version, page=self.page[s])
            await self._show(slot, self.private_where(s), folded, compare=_strip_versions(folded))
            return
        v = self.hand_view_for(s, version, seen)
        sig = _strip_versions(v)
        if not force_new and self.rendered.get(slot) == sig and slot in self.messages:
            return  # same content: the buttons already shown (older version) stay valid
        shown = self.rendered.get(slot)
        if (not force_new and m.phase == "dealing" and shown is not None and shown[1] == sig[1]
                and len(key[1]) % DEAL_REDRAW_EVERY and slot in self.messages):
            return  # cards arriving: every few cards, or at once when what may be declared changes
        self.view_version[s], self.view_key[s] = version, key
        self.hand_phase[s] = str(m.phase)
        if self.meta.get("notes", {}).pop(str(s), None):
            await self.save_meta()
        await self._show(slot, self.private_where(s), v, compare=sig, force_new=force_new)

    async def _show(self, slot: str, where: Where, v: View, *, compare: Any = None,
                    force_new: bool = False) -> None:
        sig = compare if compare is not None else v
        if not force_new and self.rendered.get(slot) == sig and slot in self.messages:
            return
        mid: str | None = self.messages.get(slot)
        try:
            if mid is not None and not force_new:
                await self.platform.edit(where, mid, v)
            else:
                mid = await self.platform.send(where, v)
                self.messages[slot] = mid
                await self.host.store.set_message(self.id, slot, mid)
            self.rendered[slot] = sig
        except PlatformError:
            log.warning("table %s: could not show %s", self.id, slot)
            self._render_again_later()

    def _lagged_too_long(self) -> None:
        self.lag_timer = None
        self.submit(Item("render"))

    def _render_again_later(self) -> None:
        """A message could not go out (the platform is down): draw the table again in a while,
        so people see the current state once it recovers even if nobody acts meanwhile."""
        if self.rerender is not None or self.closed:
            return

        def again() -> None:
            self.rerender = None
            self.submit(Item("render"))

        self.rerender = asyncio.get_running_loop().call_later(RENDER_RETRY, again)


def _first_declare(chooser: Any, asks: list[tuple[int, dict[str, Any], int]]) -> dict[str, Any] | None:
    """In a worker thread: the first AI seat that wants to declare now, if any (quick `basic` rules)."""
    for _, view, seed in asks:
        action = chooser(view, "basic", seed, 0.0)
        if isinstance(action, dict) and action.get("t") == "declare":
            return action
    return None




def _strip_versions(v: View) -> tuple[Any, ...]:
    """A view's content without its token versions: a new version alone is no reason to edit."""
    text = v.text
    rows = tuple(tuple((b.label, b.style, b.kind, _token_sans_version(b.token)) for b in row) for row in v.buttons)
    return (text, rows)


def _token_sans_version(tok: str) -> str:
    try:
        t = tokens.parse(tok)
    except tokens.BadToken:
        return tok
    return f"{t.code}.{t.arg}"

