"""Where a move is handled: a seated person's button press or typed action, the automatic steps
between them (AI seats, deal steps), and `apply`, the one path every accepted action takes.

Functions of the table they act on; they run inside that table's actor. Past ~400 lines because
a press's whole path (who, which view, which move, the repeat check, `apply`) reads best in one place.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from bot import tokens
from bot.ai import move_seed
from bot.cardtext import cards_text, parse_typed_card
from bot.i18n import catalog, tr
from bot.platform import Incoming
from bot.table import announce, hints, timers
from engine import IllegalAction, Match, Rules
from engine.actions import ACTION_TYPES, Action, Bury, Chao, Declare, Pass, Play, Revolt

if TYPE_CHECKING:
    from bot.table.actor import Table

PLAY_WORDS = {"play", "p", "出", "出牌"}
DECLARE_WORDS = {"declare", "d", "亮", "亮主", "chao", "炒"}
ACTION_WORDS = PLAY_WORDS | {"declare", "d", "亮", "亮主", "bury", "b", "扣", "扣底", "pass", "不要", "不亮",
                             "chao", "炒", "revolt", "革命", "auto", "hint", "提示", "托管"}
#: A table remembers the keys of its last actions this many, to refuse a repeated press in words
#: ("Already done.") before the engine would refuse it for another reason (the turn moved on).
APPLIED_KEYS = 64
LOBBY_BUTTONS = {tokens.JOIN: "join", tokens.LEAVE: "leave", tokens.START: "start", tokens.ADDBOT: "addbot"}


# ----- a person's move -----

async def on_press(table: Table, ev: Incoming, tok: tokens.Token) -> None:
    """A button: who pressed, whether the view is current, then the action it stands for."""
    lang = table.lang
    code = tok.code
    if code in LOBBY_BUTTONS:
        await table.on_command(ev, LOBBY_BUTTONS[code], ())
        return
    s = table.seat_of(ev.user.user_id)
    if s is None:
        await table.answer(ev, tr(lang, "err.not_seated"))
        return
    if code == tokens.BACK:
        await table.on_command(ev, "back", ())
        return
    if table.match is None:
        await table.answer(ev, tr(lang, "err.not_playing"))
        return
    screen = table.screen
    if tok.version > table.game.version:  # never drawn: no state of this match had that version yet
        await table.answer(ev, tr(table.seat_lang(s), "err.stale"))
        return
    if code == tokens.HAND:
        await screen.send_hand(s, force_new=True)
        await table.answer(ev, "✓")
        return
    lang = table.seat_lang(s)
    if table.status == "paused":
        await table.answer(ev, tr(lang, "err.paused"))
        return
    # A declaration names its cards, and a page (↻ on a folded hand) only redraws: both stay good.
    if code not in (tokens.DECLARE, tokens.PAGE) and tok.version < screen.view_version[s]:
        await table.answer(ev, tr(lang, "err.stale"))
        screen.forget(f"hand{s}")
        return
    if (code, table.game.phase) in ((tokens.BURY, "playing"), (tokens.BURY, "declaring"), (tokens.BURY, "dealing"),
                                    (tokens.PLAY, "burying"), (tokens.PLAY, "declaring"), (tokens.PLAY, "dealing")):
        await table.answer(ev, tr(lang, "refuse.wrong_phase"))  # a button of another phase: not now
        return
    sel = screen.selection[s]
    if code == tokens.TOGGLE:
        hand = screen.hand_of(s)
        i = _b36_or(tok.arg, -1)
        if not 0 <= i < len(hand):
            await table.answer(ev, tr(lang, "err.stale"))
            return
        sel.symmetric_difference_update({i})
        await screen.save_drawn()
        await table.answer(ev, cards_text([hand[j] for j in sorted(sel)]) or "–")
    elif code == tokens.CLEAR:
        sel.clear()
        await screen.save_drawn()
        await table.answer(ev, "✓")
    elif code == tokens.PAGE:
        screen.page[s] = _b36_or(tok.arg, 0)
        await table.answer(ev, "✓")
    elif code == tokens.PLAY:
        if not sel:
            await table.answer(ev, tr(lang, "err.select_first"))
            return
        hand = screen.hand_of(s)
        await human_act(table, ev, s, Play(s, tuple(hand[i] for i in sorted(sel))))
    elif code == tokens.PLAY_CARDS:
        hand = screen.hand_of(s)
        idx = [_b36_or(c, -1) for c in tok.arg]
        if not idx or len(set(idx)) != len(idx) or not all(0 <= i < len(hand) for i in idx):
            await table.answer(ev, tr(lang, "err.stale"))
            return
        await human_act(table, ev, s, Play(s, tuple(hand[i] for i in idx)))
    elif code == tokens.BURY:
        if len(sel) != 8:
            await table.answer(ev, tr(lang, "err.bury_count", n=len(sel)))
            return
        hand = screen.hand_of(s)
        await human_act(table, ev, s, Bury(s, tuple(hand[i] for i in sorted(sel))))
    elif code in (tokens.DECLARE, tokens.CHAO):
        cards = [tok.arg[i:i + 2] for i in range(0, len(tok.arg), 2)]
        t = "declare" if code == tokens.DECLARE else "chao"
        await human_act(table, ev, s, Declare(s, tuple(cards)) if t == "declare" else Chao(s, tuple(cards)))
    elif code == tokens.PASS:
        await human_act(table, ev, s, Pass(s))
    elif code == tokens.REVOLT:
        await human_act(table, ev, s, Revolt(s))


async def seat_at_match(table: Table, ev: Incoming) -> int | None:
    """The sender's seat at a match being played; else None, once they were told what is missing.

    Typed actions and a concession both need a seat and a match; one check answers both alike.
    """
    s = table.seat_of(ev.user.user_id)
    if s is None:
        await table.answer(ev, tr(table.lang, "err.not_seated"))
        return None
    if table.match is None:
        await table.answer(ev, tr(table.lang, "err.not_playing"))
        return None
    return s


async def on_typed(table: Table, ev: Incoming, word: str, rest: list[str]) -> None:
    """A typed action ("play AS AS", "pass", "hint", ...): the cards must be words we know and in hand."""
    s = await seat_at_match(table, ev)
    if s is None:
        return
    lang = table.seat_lang(s)
    if table.status == "paused":
        await table.answer(ev, tr(lang, "err.paused"))
        return
    if word in ("pass", "不要", "不亮"):
        await human_act(table, ev, s, Pass(s))
        return
    if word in ("revolt", "革命"):
        await human_act(table, ev, s, Revolt(s))
        return
    if word in ("auto", "hint", "提示", "托管"):
        suggestion = table.game.auto_action(s, rng_seed=move_seed(table.seed, table.game.version, s))
        if suggestion is None:
            await table.answer(ev, tr(lang, "refuse.not_your_turn"))
        elif word in ("hint", "提示"):
            hint = await hints.strongest(table, s, suggestion)
            await table.answer(ev, tr(lang, "hint.text", action=action_text(lang, hint),
                                      why=hints.why(table, s, hint, lang)))
        else:
            await human_act(table, ev, s, suggestion)
        return
    cards: list[str] = []
    for w in rest[:40]:
        c = parse_typed_card(w)
        if c is None:
            joker = w.lower().rstrip("s") in ("joker", "j", "王")
            await table.answer(ev, tr(lang, "err.which_joker") if joker else tr(lang, "err.bad_card", word=w[:20]))
            return
        cards.append(c)
    if not cards:
        await table.answer(ev, tr(lang, "err.select_first"))
        return
    if word in DECLARE_WORDS and len(set(cards)) != 1:  # not "does not beat": it is no declaration at all
        await table.answer(ev, tr(lang, "err.bad_declaration"))
        return
    hand = Counter(table.seat_view(s).get("hand") or [])
    missing = Counter(cards) - hand
    if missing:
        await table.answer(ev, tr(lang, "err.not_in_hand", cards=cards_text(list(missing.elements()))))
        return
    t = ("play" if word in PLAY_WORDS else "declare" if word in ("declare", "d", "亮", "亮主")
         else "chao" if word in ("chao", "炒") else "bury")
    await human_act(table, ev, s, _card_action(t, s, tuple(cards)))


def _card_action(t: str, s: int, cards: tuple[str, ...]) -> Play | Declare | Chao | Bury:
    if t == "play":
        return Play(s, cards)
    if t == "declare":
        return Declare(s, cards)
    return Chao(s, cards) if t == "chao" else Bury(s, cards)


def intent_key(ev: Incoming, action: Action) -> str:
    """The key an action is stored under. A button's press is keyed by who pressed which button
    (its token names the match, the view's version and the move), not by the platform's update: a
    second press of the same button, when the answer to the first was slow, is the same intent
    and is refused by its key instead of being stored twice. Typed actions keep the update's key,
    and so does Pass: the same Pass button is pressed again, rightly, once another seat declared
    (`already_passed` refuses the repeat that would change nothing)."""
    if ev.kind in ("press", "chosen") and ev.token and not isinstance(action, Pass):
        return f"{ev.where.platform}:{ev.user.user_id}:{ev.token}"
    return ev.key


def already_passed(table: Table, s: int, action: Action) -> bool:
    """A Pass in the declaring window from a seat that has passed since the last declaration: the
    engine would take it and change nothing, and it would be one intent stored twice."""
    m = table.game
    return isinstance(action, Pass) and m.phase == "declaring" and s not in m.to_act()


async def human_act(table: Table, ev: Incoming, s: int, action: Action) -> None:
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
    seat = table.seats[s]
    if seat.get("timeouts"):
        seat["timeouts"] = 0
        await table.save_seats()
    table.screen.selection[s].clear()
    if ev.kind == "chosen" and isinstance(action, Play):
        table.screen.may_lag_at = table.game.version  # shown in the group by the player's own message


# ----- the one path of an accepted action -----

async def apply(table: Table, action: Action, key: str | None, *, ended: str | None = None,
                stored: Callable[[], Awaitable[None]] | None = None) -> str:
    """Applies an action and persists it, with the deadlines it ends and sets, in one store
    transaction; only then is anything said. `ended`: the deadline whose firing took this action;
    `stored`: called once it is stored, before the table speaks of it.

    The engine's `apply` is the one check: it raises IllegalAction before it changes anything,
    and that goes to the caller with nothing stored. (This is where the engine's checked apply
    plugs in.) The engine applies before the store writes, since the deadline the match waits on
    next depends on the state after the action; should the store refuse or fail, the match is
    rebuilt from its log without it, so what the table holds never runs ahead of what is stored."""
    m = table.game
    version = m.version
    events = m.apply(action)
    changes: dict[str, float | None] = dict.fromkeys(timers.MOVE_TIMERS)
    if ended is not None:
        changes[ended] = None
    before = dict(table.timers.deadlines)
    changed = table.timers.changes(changes)
    nxt = None if m.phase == "match_over" else timers.next_deadline(table)
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
    if isinstance(action, Play | Bury | Chao):
        table.screen.selection[action.seat].clear()
    table.host.live.publish(table)  # web tables see each committed state, AI moves included
    await announce.action_done(table, action, events)
    return res


def _undo(table: Table, version: int, deadlines: dict[str, float]) -> None:
    """The action was not stored: back to the match and deadlines as they were before it."""
    table.match = Match.replay(Rules.from_dict(table.rules), table.seed, table.game.actions[:version])
    table.timers.deadlines.clear()
    table.timers.deadlines.update(deadlines)


async def apply_ai(table: Table, s: int, act: object) -> None:
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


async def apply_declaration(table: Table, act: object) -> bool:
    """An AI's answer while dealing counts only when it is a declaration the engine takes."""
    if not isinstance(act, Declare):
        return False
    try:
        await apply(table, act, None)
    except IllegalAction:
        return False
    return True


# ----- automatic moves -----

async def advance(table: Table) -> None:
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


async def _step(table: Table) -> bool:
    """One automatic step; False when the match waits (for a person, a timer, a thread) or ended."""
    m = table.game
    await announce.hand_result(table)
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
        kind = timers.SYSTEM_TIMER.get(sys_action.t, "deal")
        if float(getattr(table.settings, kind)) <= 0:
            await apply(table, sys_action, None)
            return True
    # The deadline the match waits on now was set with the action that led here; after a restart,
    # or when no action led here (a lobby's start, an AI's answer while dealing), it is set now.
    nxt = timers.next_deadline(table)
    if nxt is not None:
        await table.timers.set(*nxt)
    return False


def _b36_or(s: str, default: int) -> int:
    try:
        return tokens.from_b36(s)
    except ValueError:
        return default


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
