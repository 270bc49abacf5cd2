"""Where a table is drawn: the group's table (or lobby) message and each person's private hand,
edited only when their content changed, and what the buttons shown index into.

It runs past 400 lines because one Screen keeps what every message of the table last showed (the
door's change cache, where each hand lives, who watches on the web, the AI refresh pacing) and all
its drawing reads and writes that; the scene it draws is built in `bot.table.scenes`."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING

from bot.choices import quick_choices
from bot.i18n import tr
from bot.live import WEB_GRACE
from bot.platform import Button, Cue, PlatformError, Unreachable, View, Where
from bot.scene.build import card_indices
from bot.scene.diff import Signature, signature
from bot.scene.text import table_text
from bot.scene.types import Scene
from bot.table.commit import Committed, TableEvent
from bot.table.drawn import DrawnHands
from bot.table.messages import Redraw
from bot.table.notices import TurnNotices
from bot.table.scenes import Scenes
from bot.views import hand_elsewhere_view, hand_on_web_view, hand_view, lobby_view, table_view
from engine.actions import Bury, Chao, Play
from engine.views import Phase, PublicView

if TYPE_CHECKING:
    from bot.table.context import TableCore

log = logging.getLogger(__name__)

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


class Screen:
    """What a table has shown: its messages, their content, and each seat's buttons."""

    def __init__(self, table: TableCore, messages: dict[str, str] | None = None,
                 picks: Mapping[int, object] | None = None) -> None:
        self.table = table
        self.messages: dict[str, str] = dict(messages or {})  # slot -> platform message id (persisted)
        # What each message shows is the door's to know (`platform.shown`); the screen keeps none.
        self.web_key: tuple[object, ...] | None = None  # what the table showed last while all play on the web
        self.dealt_buttons: dict[int, object] = {}  # the buttons each hand showed last while the cards arrive
        # What each seat's buttons were drawn for (version, phase, cards) and the cards picked on
        # them, one stored row a seat: while a hand's phase and cards hold, redrawing it (a card
        # selected, say, or after a restart) keeps its buttons' version, so a button on a message
        # drawn earlier still counts.
        self.scenes = Scenes(table)  # the scenes every door draws, the public part built once per change
        self.drawn_hands = DrawnHands(picks, table.meta.extra)
        self.selection: dict[int, set[int]] = self.drawn_hands.selection
        self.page: dict[int, int] = dict.fromkeys(range(4), 0)
        # Seats that play from the group (inline mode): while the hand is being played, their
        # private hand is redrawn lazily (see send_hand), not after each of their plays.
        self.plays_inline: set[int] = set()
        # Seats whose picks (only) changed since their hand was drawn: a tap, or Clear (see send_hand).
        self.picks_only: set[int] = set()
        self.hand_phase: dict[int, str] = {}  # the phase each private hand was last drawn in
        self.rerender: asyncio.TimerHandle | None = None
        self.burst_since: float | None = None  # host clock time the current run of AI moves began
        self.drawn = False  # drawn since this actor started
        # The version up to which the group's table message may lag behind (see TABLE_LAG), and
        # the timer that bounds how long it lags.
        self.may_lag_at: int | None = None
        self.lag_timer: asyncio.TimerHandle | None = None
        self.notices = TurnNotices(table, self)
        self.table_trick: TrickKey | None = None  # the hand, phase and trick the table last showed
        # Host clock time until which a seat whose web table closed still counts as on the web.
        self.web_until: dict[int, float] = {}
        self.web_timers: list[asyncio.Task[None]] = []
        # While the table is drawn: that someone cannot be reached is said after it, so that the
        # group's table showing their turn goes first (within Telegram's 20 a minute).
        self.drawing = False
        self.cut_off_news: list[str] = []

    async def heard(self, event: TableEvent) -> None:
        """A committed play, burial or chao took the cards its seat had picked: nothing is picked now."""
        if isinstance(event, Committed) and isinstance(event.action, Play | Bury | Chao):
            self.selection[event.action.seat].clear()

    @property
    def view_version(self) -> dict[int, int]:
        """Per seat, the oldest version whose hand buttons still count."""
        return {s: self.drawn_hands.version(s) for s in range(4)}

    async def save_drawn(self) -> None:
        """Writes what the hands' buttons stand for to the store, when it changed."""
        for s, state in self.drawn_hands.changed():
            await self.table.host.store.set_picks(self.table.id, s, state)

    def _where(self, slot: str) -> Where:
        t = self.table
        return t.private_where(int(slot[4:])) if slot.startswith("hand") else t.where

    def shown(self, slot: str) -> Signature | None:
        """What the slot's message shows now, as the door knows it (None: nothing, or not since a restart)."""
        mid = self.messages.get(slot)
        return None if mid is None else self.table.platform.shown.get(self._where(slot).chat_id, mid)

    def forget(self, slot: str) -> None:
        """Draw this slot again next time, even if its content looks the same."""
        mid = self.messages.get(slot)
        if mid is not None and (slot in ("table", "lobby") or slot.startswith("hand")):
            self.table.platform.shown.forget(self._where(slot).chat_id, mid)
        if slot == "table":
            self.web_key = None

    def forget_all(self) -> None:
        for slot in list(self.messages):
            self.forget(slot)

    def cancel(self) -> None:
        if self.rerender is not None:
            self.rerender.cancel()
        for h in self.web_timers:
            h.cancel()
        if self.lag_timer is not None:
            self.lag_timer.cancel()

    # ----- seats that play on the web table -----

    def on_web(self, s: int) -> bool:
        """Seat s plays on the web table (a page of its seat is open, or closed a moment ago): its
        private hand in the chat is folded away and not edited after each play."""
        t = self.table
        return s in t.host.live.seats_watched(t.id) or t.host.clock.now() < self.web_until.get(s, 0.0)

    def web_left(self, seats: set[int]) -> None:
        """These seats' last web page closed or was hidden: after WEB_GRACE (on the host's clock)
        their hands are drawn in the chat again, and their turn notices go there."""
        if not seats:
            return
        t = self.table
        until = t.host.clock.now() + WEB_GRACE
        for s in seats:
            self.web_until[s] = until

        async def then() -> None:
            await t.host.clock.sleep_until(until + 0.1)
            t.submit(Redraw())
        self.web_timers = [h for h in self.web_timers if not h.done()]
        self.web_timers.append(asyncio.get_running_loop().create_task(then()))

    def all_on_web(self) -> bool:
        """Every person seated plays on the web: the group's table message waits for what matters."""
        t = self.table
        people = [s for s in t.seats.humans() if not t.seats[s].kicked and not t.seats[s].away]
        return bool(people) and all(self.on_web(s) for s in people)

    def web_button(self, s: int | None, lang: str) -> Button | None:
        """The button that opens the web table: a seat's own (private), or the group's."""
        t = self.table
        links = t.host.live.links
        if links is None:
            return None
        link = (links.table_link(t.platform_name, t.id) if s is None
                else links.seat_link(t.platform_name, t.id, str(t.seats[s].user_id)))
        if link is None:
            return None
        return Button(tr(lang, "btn.web_table"), link[0], kind=link[1])

    async def refresh_if_due(self) -> None:
        """Mid-burst of AI moves: once the burst has run `host.refresh_interval()` (`ai_refresh`, 3 s,
        longer with very many tables) seconds since it began (or
        since the table was last drawn), draw the table, so a table of AIs playing at full speed
        still shows its progress. A short burst (three AIs answering a person) costs nothing extra:
        it ends in the usual single render."""
        t = self.table
        now = t.host.clock.now()
        interval = t.host.refresh_interval()
        if self.burst_since is None:
            self.burst_since = now
            if not self.drawn:  # tables resumed together must not all draw at the same moments
                self.burst_since -= interval * ((t.id * 0.6180339887) % 1.0)
        elif now - self.burst_since >= interval:
            await self.render()

    async def render(self) -> None:
        """Edits the table message and every private hand whose content changed; then says who could
        not be reached (`unreachable`)."""
        self.drawing = True
        try:
            await self._render()
        finally:
            self.drawing = False
            news, self.cut_off_news = self.cut_off_news, []
            for text in news:
                await self.table.say(text)

    async def _render(self) -> None:
        t = self.table
        self.burst_since = None
        self.drawn = True
        if t.status == "lobby":
            v = lobby_view(self.scenes.onlooker(), join_url=t.platform.join_link(f"join-{t.id}"))
            await self.show("lobby", t.where, v)
            return
        if t.match is None or t.status not in ("active", "paused", "finished"):
            return
        m = t.game
        pub = t.public()
        hand_no = int(pub.get("hand_no", 1))
        if t.meta.table_hand != hand_no:  # one table message per hand
            if t.meta.table_hand is not None:
                self.messages.pop("table", None)
            t.meta.table_hand = hand_no
            await t.save_meta()
        told = False
        if self._table_waits(pub):
            # the next player is told privately (turn notices); the group sees the table once a
            # trick, and once as the cards are dealt, inside its 20 messages a minute
            await self.render_hands()
            await self.notices.update()
            if not self.notices.unnoticed():
                return
            told = True  # a person the bot cannot reach privately learns it from the group's table
        if (self.may_lag_at == m.version and t.status == "active" and pub.get("trick")
                and "table" in self.messages):
            # the play shows itself in the group (inline); the table catches up at the trick's end
            if self.lag_timer is None and not t.closed:
                self.lag_timer = asyncio.get_running_loop().call_later(TABLE_LAG, self._lagged_too_long)
            await self.render_hands()
            return
        if self.lag_timer is not None:
            self.lag_timer.cancel()
            self.lag_timer = None
        scene = self.scenes.onlooker()
        web = self.web_button(None, t.lang)
        live = t.platform.live_countdown
        # drawn once a trick where turns are told privately: a newer edit may replace one the group
        # never saw, so the table lists every trick of the hand
        history = t.platform.turn_notices
        v = table_view(scene, countdown=not live, web=web, history=history)
        if t.platform.turn_notices and self.notices.unnoticed():  # someone sees their turn only here
            v = replace(v, urgent=True)
        if live:
            clock = scene.table.turn.clock
            v = replace(v, cue=self._cue(pub, clock.seconds if clock is not None else None))
        if not live and scene.table.turn.clock is not None:  # the seconds left are no reason to edit
            v = replace(v, still=table_text(scene.table, scene.lang, countdown=False, history=history))
        web_key = (pub.get("phase"), pub.get("hand_no"), pub.get("trump"))
        if (t.status == "active" and self.shown("table") is not None and self.all_on_web()
                and self.web_key == web_key):
            pass  # Everyone plays on the web table: no edit per play, only when the hand moves on.
        else:
            self.web_key = web_key if await self.show("table", t.where, v) else None
        self.table_trick = _trick_key(pub)
        if not told:
            await self.render_hands()
            await self.notices.update()

    def lobby_started(self, note: str) -> View | None:
        """The lobby message as it will read once the match begins (built while the table is still a
        lobby): the seats and `note`, no buttons. None when there is no lobby message."""
        if "lobby" not in self.messages:
            return None
        return lobby_view(self.scenes.onlooker(), started=note)

    async def close_lobby(self, v: View) -> None:
        """The match began: the lobby message says so, without buttons, and is drawn no more."""
        t = self.table
        await self.show("lobby", t.where, v)
        self.messages.pop("lobby", None)
        await t.host.store.set_message(t.id, "lobby", None)

    def _table_waits(self, pub: PublicView) -> bool:
        """Whether the group's table is left as it is for now (platforms with turn notices only):
        in the middle of a trick, and while the cards are dealt (declarations are announced)."""
        t = self.table
        if not t.platform.turn_notices or t.status != "active" or "table" not in self.messages:
            return False
        if self.shown("table") is None or self.table_trick != _trick_key(pub):
            return False  # not drawn yet in this trick (or deal), or since a restart or a language change
        phase = pub.get("phase")
        return bool(phase == "playing" and pub.get("trick")) or phase == "dealing"

    async def render_hands(self) -> None:
        t = self.table
        for s in t.seats.humans():
            if t.seats[s].kicked:
                continue
            try:
                await self.send_hand(s)
            except Unreachable as exc:
                await self.unreachable(s, exc)

    async def unreachable(self, s: int, exc: Unreachable) -> None:
        """A person the bot cannot write to (never opened it, blocked it): the group is told once,
        with the link to press, until they can be reached again."""
        t = self.table
        cut_off = t.meta.unreachable
        if s in cut_off:
            return
        cut_off.append(s)
        await t.save_meta()
        text = tr(t.lang, "err.unreachable", name=t.seats[s].name, how=exc.how_to_fix)
        if self.drawing:
            self.cut_off_news.append(text)  # said once the table is drawn (`render`)
        else:
            await t.say(text)

    def reachable(self, s: int) -> None:
        """A message reached them again: next time they are cut off, the group is told again."""
        self.notices.failed.pop(s, None)
        cut_off = self.table.meta.unreachable
        if cut_off and s in cut_off:
            cut_off.remove(s)

    def _cue(self, pub: PublicView, time_left: float | None) -> Cue:
        """Whom the table waits for, to be notified: one person to play or bury, who has not opted out."""
        t = self.table
        to_act = [int(s) for s in pub.get("to_act") or []]
        ids: tuple[str, ...] = ()
        if t.status == "active" and pub.get("phase") in (Phase.PLAYING, Phase.BURYING) and len(to_act) == 1:
            seat = t.seats[to_act[0]]
            if (seat.human and not seat.away and not seat.kicked
                    and str(seat.user_id) not in t.meta.quiet):
                ids = (str(seat.user_id),)
        return Cue(ids, time_left if time_left is not None and time_left < 86_400 else None, t.lang, t.game.version)

    def hand_scene(self, s: int) -> Scene:
        """What seat s sees, with the cards it picked and why it was last refused."""
        t = self.table
        note = t.meta.notes.get(s)
        if t.platform.play_menu:
            self._suggest_bury(s)
        return self.scenes.seat(s, picked=self.selection[s], refusal=note)

    def hand_view_for(self, s: int, version: int) -> View:
        t = self.table
        scene = self.hand_scene(s)
        out = hand_view(scene, version=version, page=self.page[s], page_size=t.host.page_size(t.platform_name),
                        web=self.web_button(s, scene.lang))
        if t.platform.play_menu:
            out = replace(out, choices=quick_choices(t.game, s, t.seat_view(s), scene.lang, match_id=t.id,
                                                     version=version))
        return out

    def _suggest_bury(self, s: int) -> None:
        """The burier starts from the AI's pick of 8 (shown selected): Bury accepts it, the menu adjusts it."""
        m = self.table.game
        if m.phase != Phase.BURYING or s not in m.to_act() or self.selection[s]:
            return
        if self.drawn_hands.cards(s) is not None and self.drawn_hands.version_for(
                s, str(m.phase), tuple(self.table.seat_view(s).get("hand") or ()), -1) != -1:
            return  # already drawn for this bury: an empty selection is the person's own choice
        hand = self.scenes.seat(s).hand
        if hand is not None and hand.choices.bury_pick:
            idx = card_indices(hand.cards, hand.choices.bury_pick)
            if idx is not None:
                self.selection[s].update(idx)

    async def send_hand(self, s: int, *, force_new: bool = False) -> None:
        """Shows seat s its hand; a new message when asked (or none yet), else an edit when it changed.

        A seat that plays from the group (inline) is not sent an edit after each of its own plays
        while the hand is being played: its private hand is folded away once (no card in it) and
        drawn in full again when the hand moves to another phase, or when its owner presses ↻,
        any old button of it (refused as out of date if the cards changed), *My hand*, or types in
        the private chat. While cards are dealt, a hand is redrawn every DEAL_REDRAW_EVERY cards
        and whenever its buttons (what may be declared) change.
        """
        t = self.table
        m = t.game
        seen = t.seat_view(s)
        hand = list(seen.get("hand") or ())
        key = (str(m.phase), tuple(hand))
        version = self.drawn_hands.version_for(s, *key, m.version)
        slot = f"hand{s}"
        if not force_new and self.on_web(s) and m.phase != "match_over":
            # Played on the web table: folded away once (no card in it), never edited per play.
            if slot in self.messages:
                # Its old buttons go stale at once here; not written to the store per play (the
                # folded message has no card button, and the next full redraw records its own).
                self.drawn_hands.draw(s, version, *key)
                lang = t.seat_lang(s)
                folded = hand_on_web_view(Scene(self.scenes.public(), s, lang), version=version,
                                          web=self.web_button(s, lang))
                await self.show(slot, t.private_where(s), folded)
            return
        if (not force_new and s in self.plays_inline and m.phase == "playing"
                and self.hand_phase.get(s) == "playing" and slot in self.messages):
            # Folded away once (no card in it, so no edit after the next plays); its old buttons
            # are refused from now on if the cards changed, ↻ shows the hand again.
            await self._buttons_index(s, version, key)
            folded = hand_elsewhere_view(Scene(self.scenes.public(), s, t.seat_lang(s)), version=version,
                                         page=self.page[s])
            await self.show(slot, t.private_where(s), folded)
            return
        v = self.hand_view_for(s, version)
        sig = signature(v)
        shown = self.shown(slot)
        if not force_new and shown == sig:
            return  # same content: the buttons already shown (older version) stay valid
        same_buttons = m.phase == "dealing" and shown is not None and self.dealt_buttons.get(s) == sig[1]
        if not force_new and same_buttons and len(key[1]) % DEAL_REDRAW_EVERY:
            return  # cards arriving: every few cards, or at once when what may be declared changes
        picks_only = s in self.picks_only and self.drawn_hands.same(s, *key)
        self.picks_only.discard(s)
        if not force_new and shown is not None and (same_buttons or picks_only):
            # nothing to act on: the cards a tap picked (its answer named them), or cards arriving
            # with the same buttons; it may wait while the bot's messages are busy, and merge
            v = replace(v, lazy=True)
        self.dealt_buttons[s] = sig[1]
        self.hand_phase[s] = str(m.phase)
        self.drawn_hands.draw(s, version, *key)
        noted = t.meta.notes.pop(s, None)
        await self.save_drawn()  # before the message goes out: see _buttons_index
        if noted:
            await t.save_meta()
        await self.show(slot, t.private_where(s), v, force_new=force_new)

    async def _buttons_index(self, s: int, version: int, key: tuple[str, tuple[str, ...]]) -> None:
        """Records what seat s's buttons stand for, in the store before the message goes out: should
        the process die after the send, the buttons drawn still count after the restart."""
        self.drawn_hands.draw(s, version, *key)
        await self.save_drawn()

    async def take_back_hands(self) -> None:
        """A start that did not happen: the hand messages it sent go again (they showed no card)."""
        t = self.table
        for s in range(4):
            self.forget(f"hand{s}")
            mid = self.messages.pop(f"hand{s}", None)
            if mid is not None and t.seats[s].user_id:
                await t.host.store.set_message(t.id, f"hand{s}", None)
                await self._delete_quietly(t.private_where(s), mid)

    def hand_of(self, s: int) -> list[str]:
        """The cards seat s's buttons index into: those of its hand when its buttons' version was set
        (a press with an older version is refused before this is asked), else its hand now."""
        cards = self.drawn_hands.cards(s)
        if cards is not None:
            return list(cards)
        return list(self.table.seat_view(s).get("hand") or [])

    async def show(self, slot: str, where: Where, v: View, *, force_new: bool = False) -> bool:
        """Sends or edits the slot's message, unless the door shows this very content there already;
        False when the platform failed (it is drawn again later)."""
        t = self.table
        mid: str | None = self.messages.get(slot)
        if not force_new and mid is not None and t.platform.shown.get(where.chat_id, mid) == signature(v):
            return True
        try:
            if mid is not None and not force_new:
                await t.platform.edit(where, mid, v)
            else:
                old, mid = mid, await t.platform.send(where, v)
                self.messages[slot] = mid
                await t.host.store.set_message(t.id, slot, mid)
                if old is not None and where.private and t.platform.turn_notices:
                    # its buttons are out of date: gone, not refused (where the newest private
                    # message is the one people look at; Discord keeps its DM history as it was)
                    await self._delete_quietly(where, old)
        except PlatformError:
            log.warning("table %s: could not show %s", t.id, slot)
            self._render_again_later()
            return False
        return True

    async def _delete_quietly(self, where: Where, message_id: str) -> None:
        try:
            await self.table.platform.delete(where, message_id)
        except PlatformError:
            log.info("table %s: old message %s stays", self.table.id, message_id)

    def _lagged_too_long(self) -> None:
        self.lag_timer = None
        self.table.submit(Redraw())

    def _render_again_later(self) -> None:
        """A message could not go out (the platform is down): draw the table again in a while,
        so people see the current state once it recovers even if nobody acts meanwhile."""
        if self.rerender is not None or self.table.closed:
            return

        def again() -> None:
            self.rerender = None
            self.table.submit(Redraw())

        self.rerender = asyncio.get_running_loop().call_later(RENDER_RETRY, again)


TrickKey = tuple[int, Phase, int]


def _trick_key(pub: PublicView) -> TrickKey:
    return (pub["hand_no"], pub["phase"], pub["tricks_played"])
