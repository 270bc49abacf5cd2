"""The web page sends its act as the structured intent it is, with the version of the state it drew:
an act for an older turn is refused as out of date and nothing is played."""

from __future__ import annotations

from bot.i18n import tr
from tests.web.conftest import WebRig
from tests.web.test_socket import seated


async def test_a_play_sent_for_an_earlier_turn_is_refused(web_rig: WebRig) -> None:
    match_id, clients = await seated(web_rig)
    table = web_rig.host.tables[match_id]
    m = table.match
    while not (m.phase == "playing" and not m.public_view().get("trick")):  # to a lead
        s = m.to_act()[0]
        act = m.auto_action(s, rng_seed=m.version)
        assert act is not None
        key = await clients[s].act(act.t, list(getattr(act, "cards", ())))
        assert (await clients[s].answer(key))["ok"]
        await web_rig.host.settle()
    seat = m.to_act()[0]
    page = clients[seat]
    await page.until(lambda st: st["version"] == m.version)
    drawn = m.version  # the state her page shows at her lead
    first, second = list(m.view(seat)["hand"])[:2]
    key = await page.act("play", [first], version=drawn)
    assert (await page.answer(key))["ok"]
    await web_rig.host.settle()
    # the same page sends a second play drawn for that lead: out of date, whoever's turn it is now
    key = await page.act("play", [second], version=drawn)
    answer = await page.answer(key)
    assert not answer["ok"] and answer["text"] == tr("en", "err.old_turn"), answer
    assert m.version == drawn + 1
    # and a version no state had yet is no drawing of ours
    key = await page.act("play", [second], version=m.version + 50)
    answer = await page.answer(key)
    assert not answer["ok"] and answer["text"] == tr("en", "err.stale"), answer
    assert m.version == drawn + 1
