"""The web table in a real browser: headless Chromium (Debian's chromium and chromium-driver, driven by
Selenium) plays a whole hand with four pages against the host. Two seats open it as a Telegram Mini
App (the local stand-in for Telegram's script hands the page signed initData), two with signed links.
They tap cards and press the buttons (one play is made with the keyboard); one play is refused in words; one page loses its socket and
catches up; the bot restarts mid-hand and every page goes on. A hostile client inside one page floods
a socket, sends nested JSON and opens 40 sockets at once; the pages play on, and nothing the pages
load is blocked by their Content-Security-Policy. Screenshots of the phone layout (360 px,
33 cards while burying; a trick; the end of a hand and of a match in zh, zh-Hant and en) are kept in
test-artifacts/web/ and checked: every card inside the hand's area, nothing wider than the screen,
every tap target 44 px. The end of a match (a series' game, a board, a forfeit) is drawn by a fifth
tab from real finished scenes; the pages' own timelines give the play-to-screen latency.

It runs past 400 lines because it is one browser session (starting Chromium is the costly part), so
every check of the page a person would make shares it; the scripts run inside the pages sit here too.

Real time, because the browser is a process of its own: the test looks at the pages every few
hundredths of a second until they show what it waits for (the host's timers still run on its fake clock)."""

from __future__ import annotations

import asyncio
import json
import math
import os
import random
import shutil
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any
from urllib.parse import quote

import pytest
from aiohttp import web

from adapters.web.config import WebConfig
from adapters.web.server import WebTable
from app.features import build_host
from bot.cardtext import card_text
from bot.host import Host
from bot.scene.build import table_scene
from bot.scene.text import result_lines, summary_lines
from bot.scene.types import BoardScore, LeagueLine, LeaguePlace, Result, Scene, SeatInfo, SeriesScore, Stopped
from bot.scene.wire import scene_json
from bot.settings import TableSettings
from bot.table.scenes import board_summary
from engine import Match, Phase, preset
from engine.boards import declarers_score
from tests.web.conftest import TOKEN, WebRig, init_data, leaks, make_web_rig, open_table

CHROMIUM, DRIVER = shutil.which("chromium"), shutil.which("chromedriver")
if not (CHROMIUM and DRIVER):
    if os.environ.get("CI"):
        raise RuntimeError("CI needs Debian's chromium and chromium-driver (.ci/run installs them)")
    pytest.skip("chromium or chromedriver missing", allow_module_level=True)

webdriver = pytest.importorskip("selenium.webdriver")
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402

ARTIFACTS = Path(os.environ.get("TRACTOR_ARTIFACTS", "test-artifacts")) / "web"
STUB = Path(__file__).parent / "stub"
# The declaration window stays open while the pages look (the fake clock moves only when nobody is asked).
SETTINGS = TableSettings(deal=0, declare=30, next=0, turn=60, bury=120, lobby=0)
PRESET = "chaodipi"  # with 炒底 after the bury, from the second hand on
SEED = 1  # a deal whose second hand offers a 炒底 (most do not: a pair of the level's rank or of jokers)
PEOPLE = ["11", "12", "13", "14"]
LANGS = ("en", "zh", "zh-Hant")

LAYOUT = """
const hand = document.getElementById('hand').getBoundingClientRect();
const out = [];
for (const c of document.querySelectorAll('#hand .card')) {
  const r = c.getBoundingClientRect();
  if (r.left < hand.left - 0.5 || r.right > hand.right + 0.5 || r.top < hand.top - 0.5 || r.bottom > hand.bottom + 0.5)
    out.push(c.getAttribute('aria-label'));
}
for (const b of document.querySelectorAll('#actions button, #bar, #bar *'))
  { const r = b.getBoundingClientRect(); if (r.right > innerWidth + 0.5) out.push('overflow: ' + (b.id || b.textContent)); }
// every tap target shown is at least 44x44 px; a card counts only where the next one does not cover it
const small = [];
for (const b of document.querySelectorAll('button')) {
  const r = b.getBoundingClientRect();
  if (!r.width || !r.height) continue;
  let w = r.width;
  const n = b.classList.contains('card') && b.nextElementSibling;
  if (n) { const q = n.getBoundingClientRect(); if (Math.abs(q.top - r.top) < 1 && q.left > r.left) w = Math.min(w, q.left - r.left); }
  if (w < 43.5 || r.height < 43.5) small.push((b.id || b.className || b.textContent) + ' ' + Math.round(w) + 'x' + Math.round(r.height));
}
const act = document.querySelector('#actions button[data-a]');
return {outside: out, small, cards: document.querySelectorAll('#hand .card').length, scroll: document.documentElement.scrollWidth,
        width: innerWidth, actionsVisible: !!act && act.getBoundingClientRect().bottom <= innerHeight,
        info: document.getElementById('info').textContent};
"""


# A hostile client in a page's own context: one socket floods acts, one sends nested JSON, then 40
# onlookers' sockets open at once, each closing after its first frame.
HOSTILE = """
const [link, group, match] = arguments, done = arguments[arguments.length - 1];
const url = (location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws";
const sock = (auth, opened) => new Promise((resolve) => {
  const ws = new WebSocket(url), got = [];
  ws.onopen = () => { ws.send(JSON.stringify({t: "hello", auth, match})); opened(ws, got); };
  ws.onmessage = (e) => { got.push(JSON.parse(e.data)); if (ws.onframe) ws.onframe(got); };
  ws.onclose = (e) => resolve({code: e.code, got, closed: performance.now()});
});
const said = (r) => r.got.filter((m) => m.type !== "state");
(async () => {
  let t0 = 0;
  const flood = await sock({link}, (ws) => {
    t0 = performance.now();
    for (let i = 0; i < 5000; i++) ws.send(JSON.stringify({t: "act", a: "play", cards: ["XX"], key: "f" + i}));
  });
  const floodMs = flood.closed - t0;
  const nested = await sock({link}, (ws) => {
    ws.send("[".repeat(10000));
    ws.onframe = (got) => { if (got.some((m) => m.type === "notice")) ws.close(); };
  });
  const burst = await Promise.all(Array.from({length: 40}, () => sock({link: group}, (ws) => {
    ws.onframe = () => ws.close();
  })));
  done({flood: {code: flood.code, refused: said(flood).filter((m) => m.type === "refused").map((m) => m.reason),
                answered: said(flood).filter((m) => m.type === "notice").length, ms: floodMs},
        nested: said(nested).filter((m) => m.type === "notice").map((m) => m.code),
        burst: burst.map((r) => r.got.filter((m) => m.type === "state").length)});
})();
"""
# Where a finger taps the element `css` selects: its middle, scrolled into the middle of the screen
# when it is not in view; a reason instead when it is not shown or something else is drawn there.
TAP_POINT = """
const el = document.querySelector(arguments[0]);
if (!el) return "no such element";
const at = () => { const r = el.getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2, r]; };
let [x, y, r] = at();
if (!r.width || !r.height || getComputedStyle(el).visibility !== "visible") return "not shown";
const hit = () => { const e = document.elementFromPoint(x, y); return e && (e === el || el.contains(e)) ? null : e; };
if (y < 0 || y > innerHeight || x < 0 || x > innerWidth || hit()) { el.scrollIntoView({block: "center"}); [x, y] = at(); }
const other = hit();
if (other) return "covered by " + other.outerHTML.slice(0, 80);
return [x, y];
"""
# Records what the Content-Security-Policy blocked, from the first line of each page on.
CSP_WATCH = ("window.__csp = []; document.addEventListener('securitypolicyviolation', "
             "(e) => window.__csp.push(e.violatedDirective + ' ' + e.blockedURI));")


#: Chromium's own background work off: a window preloads the address bar's popup as a page of its
#: own (a renderer drawing nothing the test looks at, about a fifth of the browser's CPU), and the
#: browser fetches components and updates nobody here uses.
QUIET = ("--disable-features=WebUIOmniboxPopup,WebUIOmniboxAimPopup,WebUIOmniboxFullPopup,PreloadTopChromeWebUI",
         "--disable-background-networking", "--disable-component-update")


def chrome() -> Any:
    o = webdriver.ChromeOptions()
    o.binary_location = CHROMIUM
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--lang=en", *QUIET):
        o.add_argument(a)
    o.add_experimental_option("mobileEmulation", {"deviceMetrics": {"width": 360, "height": 740, "pixelRatio": 2}})
    return webdriver.Chrome(service=Service(DRIVER), options=o)


class Pages:
    """Four windows of one browser, one per seat, each shown as a person's own phone shows its page
    (tabs would hide three, and a hidden page's timers are slowed and each switch redraws it); every
    Selenium call runs off the event loop."""

    def __init__(self, driver: Any) -> None:
        self.d = driver
        self.tabs: dict[int, str] = {}
        self.at: str | None = None  # the window the driver is in: every switch goes through `to`

    def to(self, seat: int) -> None:
        """Into seat's window, from a worker thread (asking the driver where it is costs a call each time)."""
        if self.at != self.tabs[seat]:
            self.d.switch_to.window(self.tabs[seat])
            self.at = self.tabs[seat]

    async def run(self, fn: Callable[..., Any], *args: Any) -> Any:
        return await asyncio.to_thread(fn, *args)

    async def open(self, seat: int, url: str) -> None:
        def go() -> None:
            if self.tabs:
                self.d.switch_to.new_window("window")
            self.d.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": CSP_WATCH})
            self.d.get(url)
            self.tabs[seat] = self.at = self.d.current_window_handle
        await self.run(go)

    async def js(self, seat: int, script: str, *args: Any) -> Any:
        def go() -> Any:
            self.to(seat)
            return self.d.execute_script(script, *args)
        return await self.run(go)

    async def version(self, seat: int) -> int:
        return int(await self.js(seat, "const t = window.tractor, s = t && t.state(); return s && t.online() ? s.version : -1;"))

    async def speaks(self, seat: int, lang: str, timeout: float = 5.0) -> None:
        """Waits until the page is drawn in `lang` (its words come from the server's catalogs)."""
        for _ in range(int(timeout / 0.05)):
            if await self.js(seat, "return document.documentElement.lang;") == lang:
                return
            await asyncio.sleep(0.05)
        raise AssertionError(f"seat {seat}'s page never spoke {lang}")

    async def shows(self, seat: int, version: int, timeout: float = 15.0) -> None:
        for _ in range(int(timeout / 0.05)):
            if await self.version(seat) >= version:
                return
            await asyncio.sleep(0.05)
        raise AssertionError(f"seat {seat}'s page never showed version {version} (it shows {await self.version(seat)})")

    async def tap(self, seat: int, css: str) -> None:
        """A finger's tap, as a phone's touch screen delivers it (touch start and end at the button's
        middle), on what is drawn there: a button out of view (a card of the last row under the
        actions, which stay at the bottom of the screen) is first scrolled up into the middle, as a
        person would, and one that another element covers, or that is not shown, fails the test.
        (ChromeDriver's own click, a mouse's under emulation, cost Chromium several times more.)"""
        def go() -> None:
            self.to(seat)
            where = self.d.execute_script(TAP_POINT, css)
            assert isinstance(where, list), f"seat {seat} cannot tap {css}: {where}"
            for kind, points in (("touchStart", [{"x": where[0], "y": where[1]}]), ("touchEnd", [])):
                self.d.execute_cdp_cmd("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})
        await self.run(go)

    async def tap_cards(self, seat: int, cards: list[str]) -> None:
        idx = await self.js(seat, """
            const hand = window.tractor.state().scene.hand.cards, used = new Set(), out = [];
            for (const c of arguments[0]) { const i = hand.findIndex((h, j) => h === c && !used.has(j)); used.add(i); out.push(i); }
            return out;""", cards)
        for i in idx:
            await self.tap(seat, f'#hand .card[data-i="{i}"]')

    async def keys(self, seat: int, cards: list[str]) -> None:
        """The same with the keyboard: Space on each card's button, then `p` to play."""
        idx = await self.js(seat, """
            const hand = window.tractor.state().scene.hand.cards, used = new Set(), out = [];
            for (const c of arguments[0]) { const i = hand.findIndex((h, j) => h === c && !used.has(j)); used.add(i); out.push(i); }
            return out;""", cards)

        def go() -> None:
            for i in idx:
                self.d.find_element(By.CSS_SELECTOR, f'#hand .card[data-i="{i}"]').send_keys(Keys.SPACE)
            assert sorted(self.d.execute_script("return window.tractor.selected();")) == sorted(idx)
            self.d.switch_to.active_element.send_keys("p")
        await self.run(go)

    async def shot(self, seat: int, name: str) -> dict[str, Any]:
        layout = await self.js(seat, "window.scrollTo(0, 0);" + LAYOUT)  # the screen as the page opens
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        await self.run(self.d.save_screenshot, str(ARTIFACTS / name))
        return dict(layout)


async def serve(rig: WebRig, port: int) -> web.AppRunner:
    app = web.Application()
    rig.web.add_routes(app)
    app.router.add_static("/test/", str(STUB))
    runner = web.AppRunner(app, shutdown_timeout=0.5)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    return runner


async def hostile(rig: WebRig, pages: Pages, match_id: int, uid: str) -> dict[str, Any]:
    """From inside seat 3's page, with its person's link: a flood of 5,000 acts (cut off at the
    socket's burst), nested JSON (refused in words, the socket kept), then a burst of 40 onlookers'
    sockets. The four pages play on."""
    link = rig.web.signer.sign("telegram", match_id, uid)
    group = rig.web.signer.sign("telegram", match_id, None)

    def go() -> Any:
        pages.to(3)
        return pages.d.execute_async_script(HOSTILE, link, group, match_id)
    got = await pages.run(go)
    limits = rig.web.limits
    assert got["flood"]["code"] == 4429 and got["flood"]["refused"] == ["flood"], got["flood"]
    # the burst less the hello, and what the bucket refilled while the flood lasted (a busy machine
    # reads the frames slowly)
    allowed = limits.socket_burst - 1 + math.ceil(limits.socket_rate * got["flood"]["ms"] / 1000)
    assert got["flood"]["answered"] <= allowed, got["flood"]
    assert got["nested"] == ["bad_frame"] and got["burst"] == [1] * 40, got
    for _ in range(250):  # the hostile sockets are gone: the four pages are left
        if len(rig.web.connections) == 4:
            break
        await asyncio.sleep(0.02)
    assert sorted(c.seat for c in rig.web.connections) == [0, 1, 2, 3]
    return dict(got["flood"])


async def play_to_screen(pages: Pages, plays: list[tuple[int, int]]) -> dict[str, float]:
    """Play-to-screen latency over the hand, from the pages' own timelines: from a play leaving its
    page (the tap's send) to each of the four pages having drawn the first state after it (4 receipts
    a play, on one clock: the pages share the machine's). Every play must have reached every page."""
    lines = {s: await pages.js(s, "return window.tractor.timeline();") for s in range(4)}
    got: list[float] = []
    for s, v in plays:
        sent = [t for a, at, t in lines[s]["sent"] if a == "play" and at == v]
        assert sent, (s, v)
        for other in range(4):
            shown = [t for at, t in lines[other]["shown"] if at > v]
            assert shown, (other, v)
            got.append(min(shown) - sent[-1])
    got.sort()
    pick = lambda q: round(got[min(len(got) - 1, int(q * len(got)))], 1)  # noqa: E731
    return {"plays": len(plays), "receipts": len(got), "median": pick(0.5), "p99": pick(0.99), "max": round(got[-1], 1)}


# A stand-in for the page's socket: it opens at once and answers the hello with the frame given
# (the page's own code draws it, as it would draw one from the server).
FAKE_SOCKET = """
window.__frames = %s;
window.__hellos = [];
window.WebSocket = class {
  constructor() { this.readyState = 0; setTimeout(() => { this.readyState = 1; this.onopen && this.onopen(); }, 0); }
  send(data) {
    const hello = JSON.parse(data);
    if (hello.t !== "hello") return;
    window.__hellos.push(hello);
    let frame = window.__frames[Number(new URLSearchParams(location.search).get("f"))];
    if (hello.match === 100) frame = {...window.__frames[1], match: 100, status: "active"};  // the next game
    else if (window.__hellos.length > 1) frame = {type: "moved", match: 100, link: "next"};  // the game has ended
    setTimeout(() => this.onmessage({data: JSON.stringify(frame)}), 0);
    if (frame.type === "moved") setTimeout(() => this.onclose({code: 4302}), 0);
  }
  close() {}
};
"""


async def match_end(pages: Pages, port: int) -> None:
    """The end of a match on the page: a real finished match's scene (first game of a best of
    three, with the league's line), then the same end for a duplicate board, as a forfeit and abandoned by vote; its lines those
    the scene gives the chats (`result_lines`), screenshot at 360 px."""
    m = Match.new(preset("classic", target="3"), 2)
    for _ in range(3000):
        if m.phase == Phase.MATCH_OVER:
            break
        act = m.system_action()
        if act is None:
            act = m.auto_action(m.to_act()[0], rng_seed=m.version)
        assert act is not None
        m.apply(act)
    seats = [SeatInfo(f"P{s + 11}") for s in range(4)]
    sc = table_scene(m.public_view(), match_id=99, status="finished", preset="classic", seats=seats)
    assert sc.result is not None
    # the first game of a best of three, counted in the group's league (the league's line comes last)
    winners = [s for s in range(4) if s % 2 == sc.result.winner]
    league = LeagueLine(2, tuple(LeaguePlace(seats[s].name, 1 + i, 3, 1) for i, s in enumerate(winners)))
    game = replace(sc.result, series=SeriesScore((1, 0) if sc.result.winner == 0 else (0, 1), False), league=league)
    board = replace(sc.result, board=BoardScore(3, 1, 45, declarers_score(45)))
    assert sc.summary is not None
    forfeit = Result(1 - sc.result.winner, sc.levels, "forfeit")
    abandoned = Result(None, sc.levels, "abandoned", stopped=Stopped(sc.hand_no, sc.defenders, sc.defender_points))
    scenes = [replace(sc, result=game), replace(sc, result=board, summary=board_summary(sc.summary)),
              replace(sc, result=forfeit), replace(sc, status="abandoned", summary=None, result=abandoned)]
    frames = [{"type": "state", "match": 99, "version": x.version, "status": x.status, "seat": 0, "lang": "en",
               "scene": scene_json(Scene(x, 0, "en"))} for x in scenes]

    def go() -> None:
        pages.d.switch_to.new_window("tab")
        pages.d.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": FAKE_SOCKET % json.dumps(frames)})
        pages.d.get(f"http://127.0.0.1:{port}/static/table.css")  # the origin, for its storage
        pages.tabs[4] = pages.at = pages.d.current_window_handle
    await pages.run(go)
    for f, x in enumerate(scenes):
        await pages.js(4, "localStorage.setItem('tractor.lang', 'en');")
        await pages.run(pages.d.get, f"http://127.0.0.1:{port}/?m=99&f={f}")
        for lang in LANGS if f == 0 else ("en",):  # a board's line, a forfeit: the chats' words, in English here
            if lang != "en":
                await pages.tap(4, "#lang")
            await pages.speaks(4, lang)
            for _ in range(100):
                if await pages.js(4, "return window.tractor.summary();"):
                    break
                await asyncio.sleep(0.05)
            assert x.result is not None
            more = result_lines(x.result, x.seats, lang)  # a line the hand's end said already, once
            said = summary_lines(x.summary, x.seats, lang) if x.summary is not None else []
            want = [line for line in said if line not in more] + more
            lines = await pages.js(4, "return [...document.querySelectorAll('#summary div')].map(d => d.textContent);")
            assert lines == want, (lines, want)
            layout = await pages.shot(4, f"phone-{('match', 'board', 'forfeit', 'abandoned')[f]}-over-{lang}.png")
            assert layout["outside"] == [] and layout["small"] == [] and layout["scroll"] <= layout["width"], layout
    # a best of three's game over: the page follows the series to its next game (a tap here; by itself
    # after a few seconds), on the link the server gives, and says the series' count there
    await pages.run(pages.d.get, f"http://127.0.0.1:{port}/?m=99&f=0")
    await pages.speaks(4, "en")
    await pages.tap(4, "#next-game")
    for _ in range(100):
        if await pages.js(4, "return window.tractor.state().match;") == 100:
            break
        await asyncio.sleep(0.05)
    hellos = await pages.js(4, "return window.__hellos;")
    assert [(h["match"], h["auth"]) for h in hellos[1:]] == [(99, {"link": ""}), (100, {"link": "next"})], hellos
    assert game.series is not None
    said = await pages.js(4, "return [location.search, document.getElementById('notice').textContent];")
    assert said == ["?m=100", result_lines(replace(game, league=None), sc.seats, "en")[-1]], said  # the series' line
    await pages.js(4, "localStorage.removeItem('tractor.lang');")


def free_port() -> int:
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.slow(35)
async def test_a_whole_hand_in_four_browser_pages() -> None:
    rig = await make_web_rig(settings=SETTINGS, seed=SEED)
    sent: dict[int | None, list[str]] = {}

    def tap(seat: int | None, text: str) -> None:
        sent.setdefault(seat, []).append(text)

    def webtable(host: Host) -> WebTable:
        config = WebConfig(port=0, public_url="https://cards.test", secret=b"k" * 32, telegram_token=TOKEN,
                           telegram_script="/test/telegram-web-app.js")
        w = WebTable(host, config)
        w.tap = tap
        host.live.links = w
        return w

    rig.web = webtable(rig.host)
    port = free_port()
    runner = await serve(rig, port)
    driver = await asyncio.to_thread(chrome)
    pages = Pages(driver)
    try:
        table = await open_table(rig, PEOPLE, new=(PRESET,))
        match_id = table.id
        base = f"http://127.0.0.1:{port}/?m={match_id}"
        for s in range(4):
            uid = str(table.seats[s].user_id)
            if s < 2:  # a Mini App: Telegram puts its signed launch data in the fragment
                url = f"{base}#tgWebAppData={quote(init_data(uid, start=f'm{match_id}'))}"
            else:  # the signed link the bot sends privately
                url = f"{base}#k={quote(rig.web.signer.sign('telegram', match_id, uid))}"
            await pages.open(s, url)
        for s in range(4):
            await pages.shows(s, table.match.version)
        tg = await pages.js(0, "return window.__tg;")
        assert tg["ready"] and tg["expanded"]

        refused = reconnected = restarted = shot = keyboard = laid_out = declared = chaoed = False
        flooded: dict[str, Any] = {}
        actions = 0
        plays: list[tuple[int, int]] = []  # (seat, version it played at): the latency's plays
        for _ in range(600):
            table = rig.host.tables[match_id]
            m = table.match
            pub = m.public_view()
            if pub["hand_no"] > 1 and (chaoed or pub["phase"] == "playing"):
                break  # the next hand: dealt, declared, buried and 炒'd by tap (its play is not needed)
            to_act = m.to_act()
            if not to_act:
                rig.clock.advance(min(table.deadlines.values()) - rig.clock.now() + 0.01)
                await rig.host.settle()
                continue
            s = to_act[0]
            act = m.auto_action(s, rng_seed=m.version)
            assert act is not None
            version = m.version
            await pages.shows(s, version)
            cards = list(getattr(act, "cards", ()))
            if act.t in ("declare", "chao"):
                await pages.tap(s, f'#actions button[data-a="{act.t}"][data-cards="{"".join(cards)}"]')
            elif act.t == "pass":
                # by tap: a declaration when the page offers one and nobody has declared in this hand
                # (a hand nobody declares takes its trump from the kitty, and has no 炒底), the first
                # 炒底 bid offered; else pass
                kind = "declare" if m.phase == "declaring" else "chao"
                offered = await pages.js(s, f"const h = window.tractor.state().scene.hand; return h ? h.choices.{kind} : [];")
                if offered and not (pub["declaration"] if kind == "declare" else chaoed):
                    cards = list(offered[0])
                    await pages.tap(s, f'#actions button[data-a="{kind}"][data-cards="{"".join(cards)}"]')
                    act = SimpleNamespace(t=kind)
                else:
                    await pages.tap(s, '#actions button[data-a="pass"]')
            elif act.t == "bury":
                # the AI's suggestion comes preselected: one tap buries it
                picked = await pages.js(s, "const h = window.tractor.state().scene.hand; return window.tractor.selected().map(i => h.cards[i]);")
                assert sorted(picked) == sorted(cards)
                if not shot:
                    shot = True
                    for lang in LANGS:  # English, then 简体 and 繁體 from the same catalogs as the chats
                        if lang != "en":
                            await pages.tap(s, "#lang")
                        await pages.speaks(s, lang)
                        layout = await pages.shot(s, f"phone-bury-{lang}.png")
                        assert layout["cards"] == 33 and layout["outside"] == [] and layout["small"] == [], layout
                        assert layout["scroll"] <= layout["width"] and layout["actionsVisible"], layout
                        assert ("Hand 1" in layout["info"]) == (lang == "en") and ("第1局" in layout["info"]) == (lang != "en")
                        assert ("庄家" in layout["info"]) == (lang == "zh") and ("莊家" in layout["info"]) == (lang == "zh-Hant")
                    await pages.tap(s, "#lang")
                await pages.tap(s, '#actions button[data-a="bury"]')
            else:
                if not refused and not pub["trick"]:
                    # a lead of two unrelated cards: the page says why at once, nothing changes
                    hand = list(m.view(s)["hand"])
                    odd = [hand[0], hand[-1]]
                    await pages.tap_cards(s, odd)
                    await pages.tap(s, '#actions button[data-a="play"]')
                    for _ in range(200):
                        text = await pages.js(s, "const n = document.getElementById('notice'); return n.className === 'bad' ? n.textContent : '';")
                        if text:
                            break
                        await asyncio.sleep(0.05)
                    assert text and rig.host.tables[match_id].match.version == version, text
                    haptics = await pages.js(s, "return window.__tg ? window.__tg.haptics : [];") if s < 2 else ["notification:error"]
                    assert "notification:error" in haptics
                    await pages.tap(s, '#actions button[data-a="clear"]')
                    refused = True
                    layout = await pages.shot(s, "phone-play-en.png")
                    assert layout["outside"] == [] and layout["small"] == [] and layout["scroll"] <= layout["width"], layout
                    flooded = await hostile(rig, pages, match_id, str(table.seats[3].user_id))
                if refused and not keyboard:
                    keyboard = True
                    await pages.keys(s, cards)
                else:
                    await pages.tap_cards(s, cards)
                    await pages.tap(s, '#actions button[data-a="play"]')
            for _ in range(300):
                await rig.host.settle()
                if rig.host.tables[match_id].match.version > version:
                    break
                await asyncio.sleep(0.02)
            table = rig.host.tables[match_id]
            assert table.match.version > version, (act, await pages.js(s, "return document.getElementById('notice').textContent"))
            if act.t in ("declare", "chao"):  # the engine took the bid the page sent
                done = table.match.actions[version]
                assert (done.t, done.seat, sorted(getattr(done, "cards", ()))) == (act.t, s, sorted(cards)), done
                declared = declared or act.t == "declare"
                chaoed = chaoed or act.t == "chao"
            actions += 1
            if act.t == "play":
                plays.append((s, version))
            trick = table.match.public_view()["trick"]
            if act.t == "play" and len(trick) == 2 and not laid_out:  # the trick lies on the table, each play at its seat
                laid_out = True
                nxt = (s + 1) % 4
                await pages.shows(nxt, table.match.version)
                where = await pages.js(nxt, "return [...document.querySelectorAll('#center .slot')]"
                                       ".map(e => [e.id, Number(e.dataset.seat), e.textContent]);")
                shown = {seat: text for _, seat, text in where}
                assert shown[s] == "".join(card_text(c) for c in dict(trick)[s]), where  # as the engine laid them
                assert dict((seat, slot) for slot, seat, _ in where)[s] == "slot-left", where  # the one before me
                # the seat winning the trick so far: its cards framed, and said in the middle
                winning = table.screen.scenes.public().winning
                assert winning in (s, trick[0][0])
                framed = await pages.js(nxt, "return [...document.querySelectorAll('#center .slot')]"
                                        ".filter(e => e.querySelector('.win')).map(e => Number(e.dataset.seat));")
                note = await pages.js(nxt, "return document.getElementById('center-note').textContent;")
                assert framed == [winning] and note.startswith("Winning so far: " + "①②③④"[winning]), (framed, note)
                # both teams, who defends, and what the defenders' points would mean now (the scene's stake)
                stake = table.screen.scenes.public().stake
                assert stake is not None and stake.side == "declarers" and stake.next_at is not None
                shown_stake = await pages.js(nxt, "return document.getElementById('stake').textContent;")
                assert shown_stake.startswith("If it ended now:") and f"at {stake.next_at}" in shown_stake, shown_stake
                layout = await pages.shot(nxt, "phone-trick-en.png")
                assert layout["outside"] == [] and layout["small"] == [] and layout["scroll"] <= layout["width"], layout
            tricks = table.match.public_view()["tricks_played"]
            if not table.match.public_view()["trick"] or act.t != "play":  # a trick (or phase) ends: every page shows it
                for other in range(4):
                    await pages.shows(other, table.match.version)
            if tricks == 4 and not reconnected:
                reconnected = True  # the network drops one page's socket; it reconnects and catches up
                dropped = [conn for conn in list(rig.web.connections) if conn.seat == 3]
                for conn in dropped:
                    await conn.ws.close()
                # The page learns of the drop a moment later: until it has a new socket it may still
                # think itself online, and a tap then would meet "reconnecting" (seen on a busy machine).
                for _ in range(750):
                    if any(c.seat == 3 and c not in dropped for c in rig.web.connections):
                        break
                    await asyncio.sleep(0.02)
                await pages.shows(3, table.match.version)
            if tricks == 10 and not restarted:
                restarted = True  # the bot restarts mid-hand: same store, new host and web server
                await runner.cleanup()
                await rig.host.stop()
                host = build_host(rig.store, clock=rig.clock, defaults=SETTINGS, use_ai_threads=False,
                            rng=random.Random(9))
                host.register(rig.platform)
                await host.start()
                await host.settle()
                rig.host = host
                rig.web = webtable(host)
                runner = await serve(rig, port)
                for other in range(4):
                    await pages.shows(other, host.tables[match_id].match.version, timeout=30)
        assert refused and reconnected and restarted and shot and keyboard and laid_out and declared and chaoed
        table = rig.host.tables[match_id]
        assert table.match.public_view()["hand_no"] == 2
        for s in range(4):  # the next hand is dealt on every page
            await pages.shows(s, table.match.version)
        # the end of the hand stays on every page until put away: the defenders' points, the kitty and its
        # multiplier, who goes up, who deals next; the same lines the scene gives the chats, in each language
        summary = table.screen.scenes.public().summary
        assert summary is not None and summary.hand_no == 1 and summary.next_dealer is not None
        for lang in LANGS:
            if lang != "en":
                await pages.tap(0, "#lang")
            await pages.speaks(0, lang)
            assert await pages.js(0, "return window.tractor.summary();")
            lines = await pages.js(0, "return [...document.querySelectorAll('#summary div')].map(d => d.textContent);")
            assert lines == summary_lines(summary, table.screen.scenes.public().seats, lang), lines
            layout = await pages.shot(0, f"phone-hand-over-{lang}.png")
            assert layout["outside"] == [] and layout["small"] == [] and layout["scroll"] <= layout["width"], layout
        await pages.tap(0, "#lang")
        await pages.tap(0, "#go-on")
        assert not await pages.js(0, "return window.tractor.summary();")
        layout = await pages.shot(0, "phone-next-hand-en.png")
        assert layout["outside"] == [] and layout["small"] == [] and layout["scroll"] <= layout["width"], layout
        await match_end(pages, port)
        assert await leaks(rig, match_id, sent) == []
        for s in range(4):  # the page's own files and socket are all it needs under its policy
            assert await pages.js(s, "return window.__csp;") == [], s
        latency = await play_to_screen(pages, plays)
        (ARTIFACTS / "summary.json").write_text(json.dumps({"actions": actions, "frames": sum(map(len, sent.values())),
                                                                  "flood": flooded, "latency_ms": latency}))
    finally:
        await asyncio.to_thread(driver.quit)
        await runner.cleanup()
        await rig.session.close()
        await rig.server.close()
        await rig.host.stop()
        await rig.store.close()
