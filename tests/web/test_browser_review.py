"""The hand review (复盘) in the web replay, in a real browser (issue 34, item 2): the flagged tricks are
marked (⚑), the replay opens on the first one, and one tap goes to the next flagged decision.

The page is what is tested here: the host's review is replaced by a fixed one naming tricks 3 and 7
and the bid (the judging is tested in tests/ai, the /review endpoint in tests/web/test_socket.py).
Real time, because the browser is a process of its own (as tests/web/test_browser.py, whose helpers
this uses): the test waits for what the page shows, polling every few hundredths of a second.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from adapters.web.config import WebConfig
from adapters.web.server import WebTable
from bot.review import Flag, Told
from tests.host.helpers import play_out
from tests.web.conftest import TOKEN, make_web_rig, open_table
from tests.web.test_browser import SETTINGS, Pages, chrome, free_port, serve

FLAGGED = (3, 7)


async def _until(pages: Pages, script: str, want: Any, timeout: float = 10.0) -> Any:
    got = None
    for _ in range(int(timeout / 0.05)):
        got = await pages.js(0, script)
        if got == want:
            return got
        await asyncio.sleep(0.05)
    raise AssertionError(f"{script!r} gave {got!r}, not {want!r}")


async def test_the_replay_marks_flagged_tricks_and_one_tap_goes_to_the_next(monkeypatch: pytest.MonkeyPatch) -> None:
    rig = await make_web_rig(settings=SETTINGS, seed=3)
    config = WebConfig(port=0, public_url="https://cards.test", secret=b"k" * 32, telegram_token=TOKEN,
                       telegram_script="/test/telegram-web-app.js")
    rig.web = WebTable(rig.host, config)
    rig.host.live.links = rig.web
    asked: list[tuple[int, int, str]] = []

    async def review(platform: str, chat_of: int, match_id: int, hand_no: int, user_id: str, lang: str) -> Told:
        asked.append((match_id, hand_no, user_id))
        flags = [Flag(trick=None, text="The bid: pass was better.")] + [
            Flag(trick=n, text=f"Trick {n}: another card was better.") for n in FLAGGED]
        return Told(match=match_id, hand=hand_no, seat=0, text="Review of hand 1", flagged=flags)

    monkeypatch.setattr(rig.host, "review", review)
    port = free_port()
    runner = await serve(rig, port)
    driver = await asyncio.to_thread(chrome)
    pages = Pages(driver)
    try:
        table = await open_table(rig, ["11"], 3)
        await play_out(rig, table, {"11": "buttons"}, hands=1)  # hand 1 is over: the replay has it
        link = rig.web.signer.sign("telegram", table.id, "11")
        await pages.open(0, f"http://127.0.0.1:{port}/?m={table.id}#k={link}")
        await _until(pages, "return !document.getElementById('replay-btn').hidden;", True)
        await pages.tap(0, "#replay-btn")
        await _until(pages, "return !!document.getElementById('rp-review');", True)
        await pages.tap(0, "#rp-review")  # one tap: the review comes, and the replay goes to trick 3
        await _until(pages, "return !!document.getElementById('rp-flag');", True)
        assert asked == [(table.id, 1, "11")]
        marks = await pages.js(0, "return [...document.querySelectorAll('#replay [data-at]')]"
                                  ".filter((b) => b.textContent.includes('⚑')).map((b) => +b.dataset.at + 1);")
        assert marks == list(FLAGGED)
        current = "return +document.querySelector('#replay [data-at].primary').dataset.at + 1;"
        assert await pages.js(0, current) == FLAGGED[0]
        shown = await pages.js(0, "return document.getElementById('replay').textContent;")
        assert "Trick 3: another card was better." in shown and "Review of hand 1" in shown
        await pages.tap(0, "#rp-flag")  # one tap to the next flagged decision
        assert await pages.js(0, current) == FLAGGED[1]
        assert await pages.js(0, "return document.getElementById('rp-flag').disabled;") is True  # the last one
    finally:
        await asyncio.to_thread(driver.quit)
        await runner.cleanup()
        await rig.session.close()
        await rig.server.close()
        await rig.host.stop()
        await rig.store.close()
