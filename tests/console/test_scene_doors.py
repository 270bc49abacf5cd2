"""One scene, every door draws it: the chat's views, the web page's frame and the terminal, drawn from the
same scene of a real match, agree on whose turn it is, the trick, and the end of the hand; none shows
another seat's cards; and the terminal speaks its own words (what to type), never the chats' buttons."""

from __future__ import annotations

import io
import json
from typing import Any

from rich.console import Console

from adapters.console.platform import Panels
from adapters.console.screen import FullScreen, PlainScreen, end_lines, hand_text, table_text
from bot.cardtext import cards_text
from bot.i18n import LANGS, tr
from bot.platform import View
from bot.scene import text as scene_text
from bot.scene.build import choices, hand_scene, table_scene
from bot.scene.types import Clock, Scene, SeatInfo, TableScene
from bot.scene.wire import scene_json
from bot.views import hand_view, table_view
from engine import Match, Phase, preset
from tests.host.leaks import cards_in, mentioned
from tests.host.test_scene_build import until

SEATS = [SeatInfo("Ann"), SeatInfo("Bob", is_ai=True), SeatInfo("Cy"), SeatInfo("Di")]


def scenes(m: Match, lang: str = "en") -> tuple[TableScene, list[Scene]]:
    sc = table_scene(m.public_view(), match_id=3, status="active", preset="classic", seats=SEATS,
                     clock=Clock("turn", 20.0), next_dealer=m.next_dealer())
    seats = []
    for s in range(4):
        v = m.view(s)
        seats.append(Scene(sc, s, lang, hand_scene(v, choices(m, s, v, bury_seed=m.version))))
    return sc, seats


def doors(sc: TableScene, lang: str = "en") -> dict[str, Any]:
    """What each door shows of the table: the chat's text, the web frame, the terminal's lines."""
    scene = Scene(sc, None, lang)
    return {"chat": table_view(scene).text, "web": json.loads(json.dumps(scene_json(scene))),
            "terminal": table_text(View("", scene=scene))}


def test_whose_turn_and_the_trick_agree_at_every_door() -> None:
    m = Match.new(preset("classic"), 11)
    until(m, lambda x: x.phase == Phase.PLAYING and len(x.public_view()["trick"]) == 2)
    sc, _ = scenes(m)
    turn = m.public_view()["turn"]
    assert turn is not None
    seen = doors(sc)
    waiting = tr("en", "table.turn_timed", who=scene_text.seat_label(sc.seats[turn], "en"), seconds=20)
    trick = tr("en", "table.trick", trick=scene_text.plays_text(sc.trick, sc.seats, "en"))
    for door in ("chat", "terminal"):
        assert waiting in seen[door].splitlines() and trick in seen[door].splitlines(), door
    web = seen["web"]["table"]
    assert web["turn"]["seats"] == [turn] and web["turn"]["clock"] == {"kind": "turn", "seconds": 20.0}
    assert [(p["seat"], p["cards"]) for p in web["trick"]] == [(s, list(c)) for s, c in m.public_view()["trick"]]
    for s, cards in m.public_view()["trick"]:
        assert f"{scene_text.seat_label(sc.seats[s], 'en')} {cards_text(cards)}" in seen["chat"]


def test_the_end_of_a_hand_agrees_at_every_door_in_every_language() -> None:
    m = Match.new(preset("classic"), 11)
    until(m, lambda x: x.phase == Phase.HAND_OVER)
    sc, _ = scenes(m)
    s = sc.summary
    assert s is not None and s.next_dealer is not None and s.final_trick is not None
    for lang in LANGS:
        said = scene_text.summary_lines(s, sc.seats, lang)  # what the group is told (announce.hand_result)
        assert tr(lang, "result.next_dealer", who=scene_text.seat_label(sc.seats[s.next_dealer], lang)) in said
        shown = end_lines(sc, lang)  # the terminal
        assert shown[:len(said)] == said
        assert tr(lang, "console.final_trick", trick=scene_text.trick_text(s.final_trick, sc.seats, lang)) in shown
    web = doors(sc)["web"]["table"]["summary"]  # the page draws these lines from the same fields
    assert web["defender_points"] == s.defender_points and web["kitty"] == list(s.kitty)
    assert web["kitty_multiplier"] == s.kitty_multiplier and web["next_dealer"] == s.next_dealer
    assert web["levels_up"] == s.levels_up and web["winner"] == s.winner


def test_no_door_shows_another_seats_cards() -> None:
    m = Match.new(preset("classic"), 11)
    for phase in (Phase.BURYING, Phase.PLAYING):
        until(m, lambda x, p=phase: x.phase == p)
        sc, seats = scenes(m)
        public = cards_in(m.public_view())
        seen = doors(sc)
        assert not mentioned(View(seen["chat"])) - public and not mentioned(View(seen["terminal"])) - public
        assert not cards_in(seen["web"]) - public
        for s, scene in enumerate(seats):
            v = m.view(s)
            own = set(v["hand"]) | set(v.get("kitty") or ()) | set(v.get("buried") or ())  # what it may know
            chat = hand_view(scene, version=m.version)
            assert set(mentioned(chat)) - set(public) <= own, s
            assert set(mentioned(View(hand_text(chat) or ""))) - set(public) <= own, s
            assert set(cards_in(scene_json(scene))) <= own | set(public), s


def test_the_terminal_says_what_to_type_not_which_button_to_press() -> None:
    m = Match.new(preset("classic"), 11)
    for phase in (Phase.DEALING, Phase.BURYING, Phase.PLAYING):
        until(m, lambda x, p=phase: x.phase == p)
        _, seats = scenes(m)
        burier = m.to_act()[0] if phase == Phase.BURYING else 0
        for lang in LANGS:
            scene = Scene(seats[burier].table, burier, lang, seats[burier].hand)
            chat = scene_text.hand_text(scene)
            terminal = hand_text(View(chat, scene=scene)) or ""
            assert terminal != chat
            for word in ("press", "Play", "Bury", "按「", "arrive privately"):
                assert word not in terminal.split("\n")[-1], (lang, phase, terminal)
    assert "arrive privately" not in tr("en", "start.ok_here") and "arrive privately" in tr("en", "start.ok")


def test_the_full_screen_keeps_the_end_of_a_hand_until_the_person_goes_on() -> None:
    m = Match.new(preset("classic"), 11)
    console = Console(file=io.StringIO(), width=80, height=24, force_terminal=True, record=True)
    screen = FullScreen(console)
    until(m, lambda x: x.phase == Phase.PLAYING)
    sc, seats = scenes(m)
    screen.draw(Panels(View("", scene=Scene(sc, None, "en")), View("", scene=seats[0])))
    until(m, lambda x: x.phase == Phase.HAND_OVER)
    ended, _ = scenes(m)
    final = ended.summary.final_trick if ended.summary else None
    m.apply(m.system_action())  # type: ignore[arg-type]  # the next hand is dealt at once
    sc2 = table_scene(m.public_view(), match_id=3, status="active", preset="classic", seats=SEATS,
                      final_trick=final)
    for _ in range(2):  # drawn again and again while the cards arrive: the end stays
        console.file = io.StringIO()
        screen.draw(Panels(View("", scene=Scene(sc2, None, "en")), None))
        shown = console.export_text(styles=False)
        assert "Hand 1 is over" in shown and "Final trick:" in shown and "Next dealer:" in shown, shown
        assert "⏎ goes on to the next hand." in shown and "Press" not in shown
    screen.go_on()
    screen.draw(Panels(View("", scene=Scene(sc2, None, "en")), None))
    shown = console.export_text(styles=False)
    assert "Hand 1 is over" not in shown and "hand 2" in shown


def test_plain_lines_draw_the_scene_in_the_terminals_words() -> None:
    m = Match.new(preset("classic"), 11)
    until(m, lambda x: x.phase == Phase.PLAYING)
    sc, seats = scenes(m)
    out = io.StringIO()
    PlainScreen(out).draw(Panels(View("", scene=Scene(sc, None, "en")), View("", scene=seats[0])))
    text = out.getvalue()
    assert scene_text.table_text(sc, "en") in text and tr("en", "console.prompt_play") in text
    assert "press Play" not in text
