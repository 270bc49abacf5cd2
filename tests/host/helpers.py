"""Scripted people: they act only through what a client sees (buttons, text, inline choices)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from app.features import build_host
from bot.cardtext import cards_text
from bot.intents import codec
from bot.intents.types import (
    BurySelection,
    ButtonAct,
    Declare,
    Drawn,
    Page,
    Pass,
    PlaySelection,
    Toggle,
)
from bot.platform import Button, View
from bot.table import Table
from persistence.store import Store
from tests.host.conftest import PACED, Rig


async def send(rig: Rig, ev: Any) -> list[str]:
    """Feeds one event, waits until the host is idle, returns the notices it got.

    A button press (or chosen inline result) is always answered exactly once, as platforms expect.
    """
    rec = ev.reply
    await rig.host.handle(ev)
    await rig.host.settle()
    texts = list(rec.texts) if rec is not None else []
    if ev.kind in ("press", "chosen"):
        assert len(texts) == 1, (ev.intent, texts)
    return texts


def hand_message(rig: Rig, table: Table, s: int) -> View:
    return rig.platform.messages[table.messages[f"hand{s}"]][1]


def buttons(view: View) -> list[tuple[Drawn, ButtonAct, Button]]:
    """The view's callback buttons with what their data says (read by the codec, as a press is)."""
    return [(*codec.parse(b.token), b) for row in view.buttons for b in row if b.kind == "callback"]


def find(view: View, want: ButtonAct | type[ButtonAct]) -> str:
    """The data of the first button standing for `want` (an act, or any act of that kind)."""
    for _, act, b in buttons(view):
        if act == want if not isinstance(want, type) else isinstance(act, want):
            return b.token
    raise AssertionError(f"no {want} button in {view.text!r}")


async def press_cards(rig: Rig, table: Table, uid: str, s: int, cards: list[str]) -> None:
    """Toggles the cards on (paging as needed) like a person would."""
    hand = list(table.match.view(s)["hand"])
    used: set[int] = set()
    for c in cards:
        i = next(j for j, h in enumerate(hand) if h == c and j not in used)
        used.add(i)
        for _ in range(5):
            v = hand_message(rig, table, s)
            if Toggle(i) in {act for _, act, _ in buttons(v)}:
                break
            await send(rig, rig.d.press(uid, find(v, Page)))
        await send(rig, rig.d.press(uid, find(hand_message(rig, table, s), Toggle(i))))


async def act_as_human(rig: Rig, table: Table, uid: str, style: str) -> bool:
    """If this person must act, does what the engine's auto_action would, through the client."""
    m = table.match
    s = table.seat_of(uid)
    if m is None or s is None or s not in m.to_act() or table.status != "active":
        return False
    auto = m.auto_action(s, rng_seed=m.version)
    if auto is None:
        return False
    action = auto.to_json()
    version = m.version
    t = action["t"]
    v = hand_message(rig, table, s)
    if t == "pass":
        notes = await send(rig, rig.d.press(uid, find(v, Pass())))
    elif t == "declare":
        notes = await send(rig, rig.d.press(uid, find(v, Declare(tuple(action["cards"])))))
    elif style == "text":
        word = "play" if t == "play" else "bury"
        notes = await send(rig, rig.d.text(uid, f"{word} {' '.join(action['cards'])}"))
    elif style == "inline" and t == "play":
        choices = await rig.host.inline_choices(rig.d.user(uid), rig.d.event("text", uid).where,
                                                  " ".join(action["cards"]))
        want = cards_text(action["cards"])
        match = [c for c in choices if sorted(c.title.split()) == sorted(want.split())]
        assert match, (want, [c.title for c in choices], table.match.phase)
        choice = match[0]
        notes = await send(rig, rig.d.event("chosen", uid, token=choice.token))
    else:
        await press_cards(rig, table, uid, s, list(action["cards"]))
        act = PlaySelection() if t == "play" else BurySelection()
        notes = await send(rig, rig.d.press(uid, find(hand_message(rig, table, s), act)))
    assert table.match.version > version, (action, notes)
    return True


async def play_out(rig: Rig, table: Table, styles: dict[str, str], max_steps: int = 5000,
                   hands: int | None = None) -> None:
    """Runs the match to its end (or `hands` hands): people act when asked, the clock moves when all wait."""
    for _ in range(max_steps):
        if table.status in ("finished", "abandoned"):
            return
        if hands is not None and int(table.match.public_view().get("hand_no", 0)) > hands:
            return
        acted = False
        for uid, style in styles.items():
            if await act_as_human(rig, table, uid, style):
                acted = True
        if not acted:
            if not table.deadlines:
                raise AssertionError(f"stuck: phase {table.match.phase}, to_act {table.match.to_act()}")
            rig.clock.advance(min(table.deadlines.values()) - rig.clock.now() + 0.001)
            await rig.host.settle()
    raise AssertionError("match did not end")


async def open_table(rig: Rig, humans: list[str], bots: int, *opts: str) -> Table:
    """`new` by the first person (who sits down), the others join, AIs fill, start."""
    await send(rig, rig.d.command(humans[0], "new", *opts))
    for uid in humans[1:]:
        await send(rig, rig.d.command(uid, "join"))
    for _ in range(bots):
        await send(rig, rig.d.command(humans[0], "addbot"))
    await send(rig, rig.d.command(humans[0], "start"))
    table = rig.host.by_chat[("fake", "g1")]
    assert table.status == "active"
    return table


async def restart_mid_hand(rig: Rig, reopen: Callable[[], Awaitable[Store]]) -> None:
    """Two people play into the first tricks, the host stops, a new host on `reopen()`'s store (the
    same database) replays with the same messages and timers, and the match goes on to its end."""
    table = await open_table(rig, ["u1", "u2"], 2, "classic", "target=3")
    for _ in range(200):  # into the first tricks of hand 1
        if table.match.phase == "playing" and table.match.public_view()["tricks_played"] >= 3:
            break
        if not any([await act_as_human(rig, table, u, "text") for u in ("u1", "u2")]):
            rig.clock.advance(min(table.deadlines.values()) - rig.clock.now() + 0.01)
            await rig.host.settle()
    assert table.match.phase == "playing"
    version, messages, deadlines = table.match.version, dict(table.messages), dict(table.deadlines)
    await rig.host.stop()
    await rig.store.close()

    store2 = await reopen()
    host2 = build_host(store2, clock=rig.clock, defaults=PACED, use_ai_threads=False)
    host2.register(rig.platform)
    edits_before = len(rig.platform.log)
    await host2.start()
    await host2.settle()
    t2 = host2.tables[table.id]
    assert t2.match.version == version and t2.messages == messages and t2.deadlines == deadlines
    edited = {s.message_id for s in rig.platform.log[edits_before:] if s.op == "edit"}
    assert messages["table"] in edited
    rig2 = Rig(host2, store2, rig.platform, rig.clock, rig.d)
    await play_out(rig2, t2, {"u1": "buttons", "u2": "text"})
    finished = await store2.get_match(table.id)
    assert finished is not None and finished.status == "finished" and finished.result is not None
    await host2.stop()
    await store2.close()
