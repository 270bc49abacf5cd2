"""Where a move is handled: a seated person's button press or typed action, the automatic steps
between them (AI seats, deal steps), and `apply`, the one path every accepted action takes.

Functions of the table they act on; they run inside that table's actor. Past 400 lines because
a press's whole path (who, which view, which move, the repeat check, `apply`) reads best in one place.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import replace

from bot.ai import move_seed
from bot.cardtext import cards_text
from bot.i18n import N_, catalog, tr
from bot.intents import types as it
from bot.platform import Incoming
from bot.table.announce import hand_result
from bot.table.commit import By, Committed
from bot.table.hints import strongest, why
from bot.table.ops import TableOps
from bot.table.timers import HUMAN_TIMER_PHASES, MOVE_TIMERS, SYSTEM_TIMER
from engine import IllegalAction, Match, Rules
from engine.actions import ACTION_TYPES, Action, Bury, Chao, Declare, Pass, Play, Revolt, SeatAction

#: A table remembers the keys of its last actions this many, to refuse a repeated press in words
#: ("Already done.") before the engine would refuse it for another reason (the turn moved on).
APPLIED_KEYS = 64


# ----- a person's move -----

LOBBY_COMMANDS: dict[type[it.LobbyAct], str] = {
    it.LobbyJoin: "join", it.LobbyLeave: "leave", it.LobbyStart: "start", it.LobbyAddBot: "addbot"}
# What is said to input that is no intent, by its reason.
UNREADABLE: dict[it.UnreadableReason, str] = {
    "bad_token": N_("err.bad_token"), "garbage": N_("err.garbage"), "bad_card": N_("err.bad_card"),
    "which_joker": N_("err.which_joker"), "bad_declaration": N_("err.bad_declaration"),
    "select_first": N_("err.select_first")}
# Acts that name a whole move and so are bound to the turn they were drawn for.
TURN_BOUND = (it.PlayCards, it.BuryCards, it.Auto)
# Acts that stay good on a hand whose cards have not changed: a declaration names its cards, a page
# (↻ on a folded hand) only redraws, a hint changes nothing.
ALWAYS_GOOD = (it.Declare, it.Page, it.Hint)


async def on_intent(table: TableOps, ev: Incoming, intent: it.Intent) -> None:
    """A person's intent: who asked, whether it was drawn for this turn, then the action it stands for.

    A typed move (kind "text") was bound by the host to the version it arrived at: a move that names
    cards is refused as out of date when anything happened since, so it never lands on a later turn.
    A button or an inline choice carries the version it was drawn for: a named move drawn before the
    person's own last move was drawn for an earlier turn; a button that points into the hand (a card,
    Play the selection) counts while the hand it was drawn on is unchanged."""
    act, drawn = intent.act, intent.drawn
    assert drawn is not None  # the host binds every intent it hands a table
    lang = table.lang_for(ev)
    if isinstance(act, it.LobbyJoin | it.LobbyLeave | it.LobbyStart | it.LobbyAddBot):
        await table.on_command(ev, LOBBY_COMMANDS[type(act)], ())
        return
    if isinstance(act, it.Command):
        await table.on_command(ev, act.name, act.args)
        return
    s = table.seat_of(ev.user.user_id)
    if s is None:
        await table.answer(ev, tr(lang, "err.not_seated"))
        return
    if isinstance(act, it.TakeSeatBack):
        await table.on_command(ev, "back", ())
        return
    if table.match is None:
        await table.answer(ev, tr(lang, "err.not_playing"))
        return
    screen = table.screen
    m = table.game
    if drawn.version > m.version:  # never drawn: no state of this match had that version yet
        await table.answer(ev, tr(table.seat_lang(s), "err.stale"))
        return
    if isinstance(act, it.ShowHand):
        await screen.send_hand(s, force_new=True)
        await table.answer(ev, "✓")
        return
    lang = table.seat_lang(s)
    if table.status == "paused":
        await table.answer(ev, tr(lang, "err.paused"))
        return
    if isinstance(act, it.Unreadable):
        await table.answer(ev, tr(lang, UNREADABLE[act.reason], word=act.word))
        return
    if isinstance(act, TURN_BOUND) and drawn.version < (m.version if ev.kind == "text" else turn_began(table, s)):
        await table.answer(ev, tr(lang, "err.old_turn"))
        return
    if ev.kind != "text" and not isinstance(act, ALWAYS_GOOD + TURN_BOUND) and drawn.version < screen.view_version[s]:
        await table.answer(ev, tr(lang, "err.stale"))
        screen.forget(f"hand{s}")
        return
    phase = str(m.phase)
    if ((isinstance(act, it.BurySelection) and phase in ("playing", "declaring", "dealing"))
            or (isinstance(act, it.PlaySelection) and phase in ("burying", "declaring", "dealing"))):
        await table.answer(ev, tr(lang, "refuse.wrong_phase"))  # a button of another phase: not now
        return
    await _act(table, ev, s, act)


async def _act(table: TableOps, ev: Incoming, s: int, act: it.HandAct) -> None:
    """The move an intent stands for, once it was found to be drawn for now."""
    lang = table.seat_lang(s)
    screen = table.screen
    sel = screen.selection[s]
    if isinstance(act, it.Toggle):
        hand = screen.hand_of(s)
        if not 0 <= act.index < len(hand):
            await table.answer(ev, tr(lang, "err.stale"))
            return
        sel.symmetric_difference_update({act.index})
        screen.picks_only.add(s)
        await screen.save_drawn()
        await table.answer(ev, cards_text([hand[j] for j in sorted(sel)]) or "–")
    elif isinstance(act, it.ClearSelection):
        if not sel:  # else the press would change nothing and say nothing
            await table.answer(ev, tr(lang, "err.nothing_chosen"))
            return
        sel.clear()
        screen.picks_only.add(s)
        await screen.save_drawn()
        await table.answer(ev, "✓")
    elif isinstance(act, it.Page):
        screen.page[s] = act.n
        await table.answer(ev, "✓")
    elif isinstance(act, it.PlaySelection | it.BurySelection):
        need = 8 if isinstance(act, it.BurySelection) else 0
        if not sel or (need and len(sel) != need):
            await table.answer(ev, tr(lang, "err.bury_count", n=len(sel)) if need else tr(lang, "err.select_first"))
            return
        hand = screen.hand_of(s)
        cards = tuple(hand[i] for i in sorted(sel))
        await human_act(table, ev, s, Bury(s, cards) if need else Play(s, cards))
    elif isinstance(act, it.PlayCards | it.BuryCards | it.Declare | it.Chao):
        missing = Counter(act.cards) - Counter(table.seat_view(s).get("hand") or [])
        if missing and ev.kind != "text":  # drawn from a hand that held them: drawn for another turn
            await table.answer(ev, tr(lang, "err.old_turn"))
            return
        if missing:
            await table.answer(ev, tr(lang, "err.not_in_hand", cards=cards_text(list(missing.elements()))))
            return
        await human_act(table, ev, s, _card_action(act, s))
    elif isinstance(act, it.Pass):
        await human_act(table, ev, s, Pass(s))
    elif isinstance(act, it.Revolt):
        await human_act(table, ev, s, Revolt(s))
    elif isinstance(act, it.Hint | it.Auto):
        suggestion = table.game.auto_action(s, rng_seed=move_seed(table.seed, table.game.version, s))
        if suggestion is None:
            await table.answer(ev, tr(lang, "refuse.not_your_turn"))
        elif isinstance(act, it.Hint):
            hint = await strongest(table, s, suggestion)
            await table.answer(ev, tr(lang, "hint.text", action=action_text(lang, hint),
                                      why=why(table, s, hint, lang)))
        else:
            await human_act(table, ev, s, suggestion)


def turn_began(table: TableOps, s: int) -> int:
    """The version after seat s's own last move (0: none yet). A move named by its cards that was
    drawn before it was drawn for an earlier turn: the person has moved since (or a timer for them)."""
    actions = table.game.actions
    for i in range(len(actions) - 1, -1, -1):
        a = actions[i]
        if isinstance(a, SEAT_ACTIONS) and a.seat == s:
            return i + 1
    return 0


async def seat_at_match(table: TableOps, ev: Incoming) -> int | None:
    """The sender's seat at a match being played; else None, once they were told what is missing.

    A concession needs a seat and a match; the check answers like the one for moves.
    """
    s = table.seat_of(ev.user.user_id)
    if s is None:
        await table.answer(ev, tr(table.lang_for(ev), "err.not_seated"))
        return None
    if table.match is None:
        await table.answer(ev, tr(table.lang_for(ev), "err.not_playing"))
        return None
    return s


def _card_action(act: it.PlayCards | it.BuryCards | it.Declare | it.Chao, s: int) -> Play | Declare | Chao | Bury:
    if isinstance(act, it.PlayCards):
        return Play(s, act.cards)
    if isinstance(act, it.Declare):
        return Declare(s, act.cards)
    return Chao(s, act.cards) if isinstance(act, it.Chao) else Bury(s, act.cards)


SEAT_ACTIONS: tuple[type[SeatAction], ...] = (Declare, Pass, Bury, Chao, Revolt, Play)


def intent_key(ev: Incoming, action: Action) -> str:
    """The key an action is stored under. A button's press is keyed by who pressed which button
    (the match and view version it was drawn for, and its act), not by the platform's update: a
    second press of the same button, when the answer to the first was slow, is the same intent
    and is refused by its key instead of being stored twice. Typed actions keep the update's key,
    and so does Pass: the same Pass button is pressed again, rightly, once another seat declared
    (`already_passed` refuses the repeat that would change nothing)."""
    intent = ev.intent
    if ev.kind in ("press", "chosen") and intent is not None and intent.drawn is not None \
            and not isinstance(action, Pass):
        drawn = intent.drawn
        return f"{ev.where.platform}:{ev.user.user_id}:{drawn.match_id}.{drawn.version}:{intent.act!r}"
    return ev.key


def already_passed(table: TableOps, s: int, action: Action) -> bool:
    """A Pass in the declaring window from a seat that has passed since the last declaration: the
    engine would take it and change nothing, and it would be one intent stored twice."""
    m = table.game
    return isinstance(action, Pass) and m.phase == "declaring" and s not in m.to_act()


async def human_act(table: TableOps, ev: Incoming, s: int, action: Action) -> None:
    """Applies and persists a person's action, or says in words why the engine refused it.

    The person hears "✓" as soon as the action is stored, before the table says anything (a
    flood limit may hold the table's messages back for seconds); the update's receipt is settled then."""
    lang = table.seat_lang(s)

    async def stored() -> None:
        if ev.receipt is not None:
            ev.receipt.stored()
        await table.answer(ev, "✓")

    key = intent_key(ev, action)
    if already_passed(table, s, action) or key in table.applied_keys:  # the same press again
        await table.answer(ev, tr(lang, "err.duplicate"))
        return
    try:
        res = await apply(table, action, key, stored=stored)
    except IllegalAction as err:
        await table.answer(ev, refusal_text(lang, err))
        return
    if res == "duplicate":
        await table.answer(ev, tr(lang, "err.duplicate"))
        return
    table.applied_keys[key] = None
    while len(table.applied_keys) > APPLIED_KEYS:
        table.applied_keys.popitem(last=False)
    if table.seats[s].timeouts:
        table.seats[s] = replace(table.seats[s], timeouts=0)
        await table.save_seats()
    table.screen.selection[s].clear()
    if ev.kind == "chosen" and isinstance(action, Play):
        table.screen.may_lag_at = table.game.version  # shown in the group by the player's own message


# ----- the one path of an accepted action -----

async def apply(table: TableOps, action: Action, key: str | None, *, ended: str | None = None,
                stored: Callable[[], Awaitable[None]] | None = None) -> str:
    """Applies an action and persists it, with the deadlines it ends and sets, in one store
    transaction; only then is it published (`bot.table.commit.Committed`), and anything said.
    `ended`: the deadline whose firing took this action; `stored`: called once it is stored, before
    the table speaks of it.

    The engine's `apply` is the one check: it raises IllegalAction before it changes anything,
    and that goes to the caller with nothing stored. (This is where the engine's checked apply
    plugs in.) The engine applies before the store writes, since the deadline the match waits on
    next depends on the state after the action; should the store refuse or fail, the match is
    rebuilt from its log without it, so what the table holds never runs ahead of what is stored."""
    m = table.game
    version = m.version
    events = m.apply(action)
    changes: dict[str, float | None] = dict.fromkeys(MOVE_TIMERS)
    if ended is not None:
        changes[ended] = None
    before = dict(table.timers.deadlines)
    changed = table.timers.changes(changes)
    nxt = None if m.phase == "match_over" else next_deadline(table)
    if nxt is not None:
        changed.update(table.timers.changes({nxt[0]: nxt[1]}))
    try:
        res: str = await table.host.store.append_action(table.id, version, action.to_json(), key, deadlines=changed)
    except BaseException:
        _undo(table, version, before)
        raise
    if res == "duplicate":
        _undo(table, version, before)
        return res
    if stored is not None:
        await stored()
    # what was committed is the one event: the screen, the web hub and the announcements hear it
    await table.events.publish(Committed(table.id, m.version, action, _by(action, key, ended), tuple(events),
                                         table.public()))
    return res


def _by(action: Action, key: str | None, ended: str | None) -> By:
    """Who took an action, from how it came: a deadline's, a person's (an event's key), an AI seat's."""
    if ended is not None:
        return "timer"
    if key is not None:
        return "person"
    return "ai" if isinstance(action, SEAT_ACTIONS) else "table"


def _undo(table: TableOps, version: int, deadlines: dict[str, float]) -> None:
    """The action was not stored: back to the match and deadlines as they were before it."""
    table.match = Match.replay(Rules.from_dict(table.rules), table.seed, table.game.actions[:version])
    table.timers.deadlines.clear()
    table.timers.deadlines.update(deadlines)


async def apply_ai(table: TableOps, s: int, act: object) -> None:
    """An AI's answer for seat s when the engine takes it; for a failed or refused one, the
    engine's auto_action."""
    if isinstance(act, ACTION_TYPES):
        try:
            await apply(table, act, None)
            return
        except IllegalAction:
            pass
    m = table.game
    fallback = m.auto_action(s, rng_seed=m.version)
    if fallback is not None:
        await apply(table, fallback, None)


async def apply_declaration(table: TableOps, act: object) -> bool:
    """An AI's answer while dealing counts only when it is a declaration the engine takes."""
    if not isinstance(act, Declare):
        return False
    try:
        await apply(table, act, None)
    except IllegalAction:
        return False
    return True


# ----- automatic moves -----

async def advance(table: TableOps) -> None:
    """Moves the match on until it waits for a person, a timer or an AI thread.

    Each automatic step (an AI move, a deal step) holds one of the host's move slots: with
    many tables of AIs at full speed only that many are in the middle of a step at once, so
    one turn of the event loop stays short and the adapters' messages are not held up behind
    every table's next move."""
    for _ in range(10_000):
        if not table.running() or table.closed:
            return
        async with table.host.move_slot():
            moved = await _step(table)
        if not moved:
            return
        await table.screen.refresh_if_due()
        await asyncio.sleep(0)  # let other tables and adapters run between moves


async def _step(table: TableOps) -> bool:
    """One automatic step; False when the match waits (for a person, a timer, a thread) or ended."""
    m = table.game
    await hand_result(table)
    if m.phase == "match_over":
        await table.finish()
        return False
    to_act = list(m.to_act())
    movers = [s for s in to_act if table.seats.ai_driven(s)]
    ai = table.ai
    if movers:
        if ai.thinking():
            return False
        s = movers[0]
        action = ai.move(s)
        if action is None:
            return False  # a thread is thinking; its move comes back through the queue
        await apply_ai(table, s, action)
        return True
    if m.phase == "dealing":
        asked, declaration = ai.declares_while_dealing()
        if asked:
            return False  # the deal goes on once the AI seats have answered
        if declaration is not None and ai.too_soon_to_declare():
            declaration = None  # asked again at the next deal step
        if declaration is not None and await apply_declaration(table, declaration):
            return True
    sys_action = m.system_action()
    if sys_action is not None and not to_act:
        kind = SYSTEM_TIMER.get(sys_action.t, "deal")
        if float(getattr(table.settings, kind)) <= 0:
            await apply(table, sys_action, None)
            return True
    # The deadline the match waits on now was set with the action that led here; after a restart,
    # or when no action led here (a lobby's start, an AI's answer while dealing), it is set now.
    nxt = next_deadline(table)
    if nxt is not None:
        await table.timers.set(*nxt)
    return False


def next_deadline(table: TableOps) -> tuple[str, float] | None:
    """The deadline the match waits on now, when none of that kind is armed yet: a system step's
    pause (deal, close, next) or a person's time to move. None when an AI or nobody moves next."""
    m = table.game
    to_act = list(m.to_act())
    if any(table.seats.ai_driven(s) for s in to_act):
        return None  # an AI moves next
    if m.phase == "dealing" and table.ai.will_ask_while_dealing():
        return None  # the deal's pause starts once the AI seats have answered
    humans = bool(to_act)
    sys_action = m.system_action()
    now = table.host.clock.now()
    if sys_action is not None:
        kind = SYSTEM_TIMER.get(sys_action.t, "deal")
        delay = float(getattr(table.settings, kind))
        if (delay <= 0 and not humans) or kind in table.timers:
            return None
        return kind, now + delay
    if humans:
        hkind = HUMAN_TIMER_PHASES.get(m.phase)
        if hkind is not None:
            delay = float(getattr(table.settings, hkind))
            if delay > 0 and hkind not in table.timers:
                return hkind, now + delay
    return None


def action_text(lang: str, action: Action) -> str:
    """An action as a person would type it ("play ♠A ♠A")."""
    word = tr(lang, f"word.{action.t}")
    if isinstance(action, Play | Declare | Chao | Bury):
        return f"{word} {cards_text(list(action.cards))}".strip()
    return word


def refusal_text(lang: str, err: IllegalAction) -> str:
    """The engine's reason, in words."""
    code = str(err.code)
    params = dict(err.params)
    key = f"refuse.{code}"
    if key not in catalog("en"):
        return tr(lang, "refuse.unknown", code=code)
    text = tr(lang, key, **{k: (cards_text(v) if isinstance(v, list) else v) for k, v in params.items()})
    return text
