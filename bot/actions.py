"""What a seated person does: button presses and typed actions, checked, then handed to the table.

Functions of the table they act on; they run inside that table's actor.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

from bot import tokens
from bot.ai import move_seed
from bot.cardtext import cards_text, parse_typed_card
from bot.i18n import catalog, tr
from bot.platform import Incoming

if TYPE_CHECKING:
    from bot.table import Table

PLAY_WORDS = {"play", "p", "出", "出牌"}
ACTION_WORDS = PLAY_WORDS | {"declare", "d", "亮", "亮主", "bury", "b", "扣", "扣底", "pass", "不要", "不亮",
                             "chao", "炒", "revolt", "革命", "auto", "hint", "提示", "托管"}

async def on_press(table: Table, ev: Incoming, tok: tokens.Token) -> None:
    """A button: who pressed, whether the view is current, then the action it stands for."""
    lang = table.lang
    code = tok.code
    if code in (tokens.JOIN, tokens.LEAVE, tokens.START, tokens.ADDBOT):
        name = {tokens.JOIN: "join", tokens.LEAVE: "leave", tokens.START: "start", tokens.ADDBOT: "addbot"}[code]
        await table.on_command(ev, name, ())
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
    if code == tokens.HAND:
        await table.send_hand(s, force_new=True)
        await table.answer(ev, "✓")
        return
    lang = table.seat_lang(s)
    if table.status == "paused":
        await table.answer(ev, tr(lang, "err.paused"))
        return
    # A declaration names its cards, and a page (↻ on a folded hand) only redraws: both stay good.
    if code not in (tokens.DECLARE, tokens.PAGE) and tok.version < table.view_version[s]:
        await table.answer(ev, tr(lang, "err.stale"))
        table.rendered.pop(f"hand{s}", None)
        return
    hand = list(table.seat_view(s).get("hand") or [])
    sel = table.selection[s]
    if code == tokens.TOGGLE:
        i = _b36_or(tok.arg, -1)
        if not 0 <= i < len(hand):
            await table.answer(ev, tr(lang, "err.stale"))
            return
        sel.symmetric_difference_update({i})
        await table.answer(ev, cards_text([hand[j] for j in sorted(sel)]) or "–")
    elif code == tokens.CLEAR:
        sel.clear()
        await table.answer(ev, "✓")
    elif code == tokens.PAGE:
        table.page[s] = _b36_or(tok.arg, 0)
        await table.answer(ev, "✓")
    elif code == tokens.PLAY:
        if not sel:
            await table.answer(ev, tr(lang, "err.select_first"))
            return
        await human_act(table, ev, s, {"t": "play", "seat": s, "cards": [hand[i] for i in sorted(sel)]})
    elif code == tokens.PLAY_CARDS:
        idx = [_b36_or(c, -1) for c in tok.arg]
        if not idx or len(set(idx)) != len(idx) or not all(0 <= i < len(hand) for i in idx):
            await table.answer(ev, tr(lang, "err.stale"))
            return
        await human_act(table, ev, s, {"t": "play", "seat": s, "cards": [hand[i] for i in idx]})
    elif code == tokens.BURY:
        if len(sel) != 8:
            await table.answer(ev, tr(lang, "err.bury_count", n=len(sel)))
            return
        await human_act(table, ev, s, {"t": "bury", "seat": s, "cards": [hand[i] for i in sorted(sel)]})
    elif code in (tokens.DECLARE, tokens.CHAO):
        cards = [tok.arg[i:i + 2] for i in range(0, len(tok.arg), 2)]
        t = "declare" if code == tokens.DECLARE else "chao"
        await human_act(table, ev, s, {"t": t, "seat": s, "cards": cards})
    elif code == tokens.PASS:
        await human_act(table, ev, s, {"t": "pass", "seat": s})
    elif code == tokens.REVOLT:
        await human_act(table, ev, s, {"t": "revolt", "seat": s})

async def on_typed(table: Table, ev: Incoming, word: str, rest: list[str]) -> None:
    """A typed action ("play AS AS", "pass", "hint", ...): the cards must be words we know and in hand."""
    lang = table.lang
    s = table.seat_of(ev.user.user_id)
    if s is None:
        await table.answer(ev, tr(lang, "err.not_seated"))
        return
    if table.match is None:
        await table.answer(ev, tr(lang, "err.not_playing"))
        return
    lang = table.seat_lang(s)
    if table.status == "paused":
        await table.answer(ev, tr(lang, "err.paused"))
        return
    if word in ("pass", "不要", "不亮"):
        await human_act(table, ev, s, {"t": "pass", "seat": s})
        return
    if word in ("revolt", "革命"):
        await human_act(table, ev, s, {"t": "revolt", "seat": s})
        return
    if word in ("auto", "hint", "提示", "托管"):
        suggestion = table.match.auto_action(s, rng_seed=move_seed(table.seed, table.match.version, s))
        if suggestion is None:
            await table.answer(ev, tr(lang, "refuse.not_your_turn"))
        elif word in ("hint", "提示"):
            await table.answer(ev, tr(lang, "hint.text", action=action_text(lang, suggestion)))
        else:
            await human_act(table, ev, s, suggestion)
        return
    cards: list[str] = []
    for w in rest[:40]:
        c = parse_typed_card(w)
        if c is None:
            await table.answer(ev, tr(lang, "err.bad_card", word=w[:20]))
            return
        cards.append(c)
    if not cards:
        await table.answer(ev, tr(lang, "err.select_first"))
        return
    hand = Counter(table.seat_view(s).get("hand") or [])
    missing = Counter(cards) - hand
    if missing:
        await table.answer(ev, tr(lang, "err.not_in_hand", cards=cards_text(list(missing.elements()))))
        return
    t = ("play" if word in PLAY_WORDS else "declare" if word in ("declare", "d", "亮", "亮主")
         else "chao" if word in ("chao", "炒") else "bury")
    await human_act(table, ev, s, {"t": t, "seat": s, "cards": cards})

async def human_act(table: Table, ev: Incoming, s: int, action: dict[str, Any]) -> None:
    """Checks with the engine (the reason in words if refused), then persists and applies."""
    lang = table.seat_lang(s)
    err = table.match.check(action)
    if err is not None:
        await table.answer(ev, refusal_text(lang, err))
        return
    if await table.apply_action(action, ev.key) == "duplicate":
        await table.answer(ev, tr(lang, "err.duplicate"))
        return
    seat = table.seats[s]
    if seat.get("timeouts"):
        seat["timeouts"] = 0
        await table.save_seats()
    table.selection[s].clear()
    if ev.kind == "chosen" and action.get("t") == "play":
        table.table_may_lag_at = table.match.version  # shown in the group by the player's own message
    await table.answer(ev, "✓")


def _b36_or(s: str, default: int) -> int:
    try:
        return tokens.from_b36(s)
    except ValueError:
        return default


def action_text(lang: str, action: dict[str, Any]) -> str:
    """An action as a person would type it ("play ♠A ♠A")."""
    t = str(action.get("t", ""))
    cards = action.get("cards")
    word = tr(lang, f"word.{t}")
    return f"{word} {cards_text(cards)}".strip() if isinstance(cards, list) else word


def refusal_text(lang: str, err: Any) -> str:
    """The engine's reason, in words."""
    code = str(getattr(err, "code", "bad_action"))
    params = dict(getattr(err, "params", {}) or {})
    key = f"refuse.{code}"
    if key not in catalog("en"):
        return tr(lang, "refuse.unknown", code=code)
    text = tr(lang, key, **{k: (cards_text(v) if isinstance(v, list) else v) for k, v in params.items()})
    return text
