"""Hostile input: thousands of malformed and hostile updates through the real client.

Random and truncated callback data, tokens of other people and other tables,
forged tokens with a good checksum, presses on messages that do not exist,
replayed updates, huge texts, unknown commands, commands in the wrong kind of
chat, deep links to finished or unknown matches, edited commands, channel
posts, inline queries and chosen results that were never offered.

The generator only sends what must not change a match (strangers may try
anything; seated people only what cannot act); the oracle then checks that the
store's log, seats and status of every match are exactly as before, that no
handler failed, that every press got exactly one answer with a reason, that
no Telegram call was refused as malformed, and that no outgoing message shows
a card to someone who may not see it. Finally the tables still play.
"""

from __future__ import annotations

import random
import string
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from bot.cardtext import cards_text
from bot.intents import codec
from bot.intents import types as it
from bot.intents.text import ACTION_WORDS
from bot.settings import TableSettings
from bot.table import Table
from fakes.clock import FakeClock
from fakes.players import Snapshot, card_mentions, snapshot_of
from fakes.telegram_api import (
    BOT_ID,
    BOT_USERNAME,
    CANT_INITIATE,
    QUERY_TOO_OLD,
    FakeTelegram,
    Limits,
)
from fakes.telegram_rig import (
    Rig,
    boot,
    open_ai_table,
    start_fake,
    stop_fake,
    to_a_persons_turn,
    until,
)

pytestmark = pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")

# People act whenever they like (no turn timer); system windows pass when the test moves the clock.
SETTINGS = TableSettings(deal=0, declare=1, bury=1, turn=0, next=0, lobby=0, away_after=0)
G_ONE, G_TWO, G_LOBBY, G_ABANDONED, G_EMPTY, G_FINISHED = -2001, -2002, -2003, -2004, -2005, -2006
ANN, BO, CY, DI, EVE, FAY = 101, 102, 103, 104, 105, 106
ZED, YAN = 901, 902  # strangers: Zed opened the bot once, Yan never did
FUZZ_UPDATES = 10_000
ACTING = (it.PlaySelection, it.PlayCards, it.BurySelection, it.Declare, it.Chao, it.Pass, it.Revolt, it.LobbyStart,
          it.LobbyLeave, it.LobbyAddBot, it.LobbyJoin, it.TakeSeatBack)
LOBBY_ACTING = (it.LobbyJoin, it.LobbyAddBot, it.LobbyStart)
# Commands that are real decisions when a seated person sends them (votes, leaving, starting).
SEATED_ACTING_WORDS = (ACTION_WORDS - {"hint", "提示"}) | {"pause", "resume", "abandon", "forfeit", "leave", "start",
                                                          "addbot", "kick", "back", "join", "lang", "new"}
JUNK = string.ascii_letters + string.digits + string.punctuation + " .~_-♠♥♦♣大王小王🂡\u200b\u202e\x00é"


class Fuzzer:
    """Makes hostile updates; `safe_press` keeps out the ones that would legitimately act."""

    def __init__(self, rig: Rig, rng: random.Random, seated: dict[int, int], finished: list[int]) -> None:
        self.rig, self.fake, self.rng = rig, rig.fake, rng
        self.seated = seated  # user -> match id of the table they sit at
        self.finished = finished
        self.users = [ANN, BO, CY, DI, EVE, FAY, ZED, YAN]
        self.groups = [G_ONE, G_TWO, G_LOBBY, G_ABANDONED, G_EMPTY, G_FINISHED]
        self.pushed: list[int] = []
        self.presses: list[str] = []  # callback query ids we expect answered
        self.typed: dict[int, set[str]] = {}  # chat -> cards people typed there (echoing them is no leak)
        self.kinds: Counter[str] = Counter()
        self._seen: tuple[list[tuple[int, int]], list[str]] | None = None

    def batch(self, n: int) -> None:
        """`n` hostile updates in a row. The bot does nothing meanwhile (no await), so what it has
        sent is looked up once for all of them, not again for each."""
        self._seen = None
        for _ in range(n):
            self.one()

    # -- what exists to be abused --

    def _look(self) -> tuple[list[tuple[int, int]], list[str]]:
        if self._seen is None:
            mine = [k for k, m in self.fake.messages.items() if m.sender["id"] == BOT_ID and not m.deleted]
            self._seen = mine, [data for chat, mid in mine for data in self.fake.callback_data_on(chat, mid)]
        return self._seen

    def bot_messages(self) -> list[tuple[int, int]]:
        return self._look()[0]

    def token_pool(self) -> list[str]:
        return self._look()[1]

    def junk(self, n: int) -> str:
        return "".join(self.rng.choices(JUNK, k=n))

    def table(self, match_id: int) -> Table | None:
        return self.rig.host.tables.get(match_id)

    def safe_press(self, uid: int, data: str) -> bool:
        """False when this press could be a legitimate action (the oracle would not hold)."""
        token = self.rig.runner.platform.aliases.decode(data)
        try:
            drawn, act = codec.parse(token)
        except codec.BadToken:
            return True
        table = self.table(drawn.match_id)
        if table is None:
            return True
        s = table.seat_of(str(uid))
        if s is None:
            return not (table.status == "lobby" and isinstance(act, LOBBY_ACTING))
        return not isinstance(act, ACTING)

    def safe_words(self, uid: int, text: str) -> bool:
        words = text.split()
        if not words or uid not in self.seated:
            return True
        return words[0].lower().lstrip("/").split("@")[0] not in SEATED_ACTING_WORDS

    # -- kinds of hostile update --

    def press(self, uid: int, chat: int, message: dict[str, Any] | None, data: str | None, kind: str) -> None:
        if data is not None and not self.safe_press(uid, data):
            return
        qid = str(next(self.fake._query_ids))
        body: dict[str, Any] = {"id": qid, "from": self.fake.users[uid].to_dict(), "chat_instance": f"ci{chat}"}
        if data is not None:
            body["data"] = data
        if message is not None:
            body["message"] = message
        else:
            body["inline_message_id"] = self.junk(8)
        self.pushed.append(self.fake._push({"callback_query": body}))
        self.presses.append(qid)
        self.kinds[kind] += 1

    def a_message(self) -> tuple[int, dict[str, Any]]:
        chat, mid = self.rng.choice(self.bot_messages())
        return chat, self.fake._message_dict(self.fake.messages[(chat, mid)])

    def one(self) -> None:
        rng, fake = self.rng, self.fake
        uid = rng.choice(self.users)
        pool = self.token_pool()
        r = rng.randrange(20)
        if r == 0:  # random bytes as callback data
            chat, msg = self.a_message()
            self.press(uid, chat, msg, self.junk(rng.randint(1, 64)), "random data")
        elif r == 1:  # truncated real token
            chat, msg = self.a_message()
            data = rng.choice(pool)
            self.press(uid, chat, msg, data[: rng.randint(1, max(1, len(data) - 1))], "truncated token")
        elif r == 2:  # one character changed
            chat, msg = self.a_message()
            chars = list(rng.choice(pool))
            chars[rng.randrange(len(chars))] = rng.choice(string.ascii_lowercase + string.digits + ".")
            self.press(uid, chat, msg, "".join(chars), "mutated token")
        elif r in (3, 4):  # somebody else's real button, pressed on any message
            chat, msg = self.a_message()
            self.press(uid, chat, msg, rng.choice(pool), "other people's token")
        elif r == 5:  # forged with a valid checksum: any match (finished, unknown), any version
            mid = rng.choice([*self.seated.values(), *self.finished, 0, 99_999, 2**40])
            letter = rng.choice("jlsbtcpidxurhgk")
            arg = "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(rng.randint(0, 12)))
            body = f"2.{codec.to_b36(mid)}.{codec.to_b36(rng.choice([0, 1, rng.randrange(10**6)]))}.{letter}.{arg}"
            data = f"{body}.{codec._check(body)}"
            chat, msg = self.a_message()
            self.press(uid, chat, msg, data, "forged token")
        elif r == 6:  # a press on a message that does not exist, or an inline message, or no data
            chat = rng.choice([*self.groups, uid])
            msg = {"message_id": 10**6 + rng.randrange(1000), "date": 0, "chat": fake._chat(chat)}
            choice = rng.randrange(3)
            self.press(uid, chat, msg if choice else None, rng.choice(pool) if choice < 2 else None,
                       "unknown message")
        elif r == 7:  # a replay of anything seen so far
            if self.pushed:
                update_id = rng.choice(fake._all_updates)["update_id"]
                fake.redeliver(update_id)
                self.kinds["replayed update"] += 1
        elif r == 8:  # huge texts
            text = self.junk(rng.choice([3000, 4096]))
            if self.safe_words(uid, text):
                self.text(uid, rng.choice([uid, *self.groups]), text, "huge text")
        elif r == 9:  # huge command arguments
            name = rng.choice(sorted(self.rig.host.registry.names()))
            self.command(uid, rng.choice([uid, *self.groups]), f"/{name} " + self.junk(3000), "huge command")
        elif r == 10:  # unknown commands, other bots' commands
            word = (self.junk(rng.randint(1, 20)).split() or ["x"])[0]
            cmd = rng.choice([f"/{word}",
                              "/foo", "/new@other_bot", "/join@other_bot", f"/start@{BOT_USERNAME}x", "/"])
            self.command(uid, rng.choice([uid, *self.groups]), cmd, "unknown command")
        elif r == 11:  # commands in the wrong kind of chat
            cmd = rng.choice(["/new classic", "/join", "/leave", "/start", "/addbot", "/kick 1", "/pause",
                              "/abandon", "/back", "/hand", "/table", "/resume", "/lang", "/lang xx"])
            self.command(uid, rng.choice([uid, G_ABANDONED, G_EMPTY, G_FINISHED]), cmd, "wrong chat")
        elif r == 12:  # deep links to finished, unknown or running matches, and garbage payloads
            payload = rng.choice([f"join-{m}" for m in [*self.seated.values(), *self.finished, 99_999]]
                                 + ["join-", "join-abc", "join--1", self.junk(30).replace(" ", "")])
            self.command(uid, uid, f"/start {payload}", "deep link")
        elif r == 13:  # table commands in the tables' groups
            cmd = rng.choice(["/new classic", "/join", "/join 2", "/leave", "/start", "/addbot strong", "/kick 2",
                              "/kick x", "/pause", "/resume", "/abandon", "/back", "/hand", "/table", "/rules",
                              "/rules nosuch", "/help", "/standings", "/lang", "/lang xx", "/new nosuch=1"])
            self.command(uid, rng.choice([G_ONE, G_TWO, G_LOBBY]), cmd, "table command")
        elif r == 14:  # typed plays and junk in private
            cards = cards_text(rng.sample(["AS", "TS", "BJ", "SJ", "2H", "KD", "QC"], rng.randint(0, 3)))
            text = rng.choice(["play", "出", "pass", "auto", "托管", "declare", "bury", "hint", "chao",
                               "revolt", self.junk(10)]) + " " + cards
            if self.safe_words(uid, text):
                self.text(uid, uid, text, "typed action")
        elif r == 15:  # inline queries, some huge
            qid = str(next(fake._query_ids))
            query = rng.choice(["", "♠A", "play", self.junk(rng.randint(1, 256))])
            self.pushed.append(fake._push({"inline_query": {"id": qid, "from": fake.users[uid].to_dict(),
                                                            "query": query, "offset": "",
                                                            "chat_type": rng.choice(["supergroup", "sender"])}}))
            self.kinds["inline query"] += 1
        elif r == 16:  # chosen inline results never offered (or someone else's)
            result = rng.choice([*pool, self.junk(20), "~" + "0" * 16])
            if self.safe_press(uid, result):
                self.pushed.append(fake._push({"chosen_inline_result": {
                    "result_id": result, "from": fake.users[uid].to_dict(), "query": self.junk(5)}}))
                self.kinds["chosen result"] += 1
        elif r == 17:  # an edited command (a client edits an old message)
            cmd = rng.choice(["/start", "/join", "/new classic", "/abandon"])
            if uid not in self.seated:
                chat = rng.choice([G_ONE, G_TWO])
                msg = {"message_id": 5, "date": 0, "edit_date": 1, "chat": fake._chat(chat),
                       "from": fake.users[uid].to_dict(), "text": cmd,
                       "entities": [{"type": "bot_command", "offset": 0, "length": len(cmd)}]}
                self.pushed.append(fake._push({"edited_message": msg}))
                self.kinds["edited command"] += 1
        elif r == 18:  # a channel post (no sender) and a member update
            chat = rng.choice(self.groups)
            self.pushed.append(fake._push({"channel_post": {
                "message_id": 7, "date": 0, "chat": {"id": chat, "type": "channel", "title": "c"},
                "text": "/start", "entities": [{"type": "bot_command", "offset": 0, "length": 6}]}}))
            self.kinds["channel post"] += 1
        else:  # junk in groups (the bot does not read group text) and in private
            text = self.junk(rng.randint(1, 200))
            if self.safe_words(uid, text):
                self.text(uid, rng.choice([uid, *self.groups]), text, "junk text")

    def command(self, uid: int, chat: int, text: str, kind: str) -> None:
        if chat == uid and uid == YAN:
            chat = G_EMPTY  # Yan never opened the bot: he cannot write to it privately
        if not self.safe_words(uid, text) and (chat in (G_ONE, G_TWO, G_LOBBY) or chat == uid):
            return
        head = text.split()[0].lower().lstrip("/").split("@")[0] if text.split() else ""
        if uid not in self.seated and chat == G_LOBBY and head in ("join", "addbot", "start"):
            return  # anyone may join a lobby, add a bot or start it: legitimate
        if head == "new" and chat in (G_ABANDONED, G_EMPTY, G_FINISHED) and "@" not in text.split()[0]:
            return  # opening a table in a free group is legitimate
        if head == "start" and chat == uid and uid not in self.seated and "join-" in text:
            mid = text.split("join-", 1)[1].split()[0] if text.split("join-", 1)[1].split() else ""
            table = self.table(int(mid)) if mid.isdigit() else None
            if table is not None and table.status == "lobby":
                return
        self.text(uid, chat, text, kind)

    def text(self, uid: int, chat: int, text: str, kind: str) -> None:
        if chat == uid and uid == YAN:
            chat = G_EMPTY
        self.typed.setdefault(chat, set()).update(card_mentions(text))
        self.pushed.append(self.fake.send_text(uid, chat, text))
        self.kinds[kind] += 1


async def state_of(rig: Rig, ids: list[int]) -> dict[int, Any]:
    out = {}
    for mid in ids:
        m = await rig.store.get_match(mid)
        assert m is not None
        out[mid] = (m.status, m.version, m.actions, m.seats, m.finished_at)
    return out


def leaks_in(calls: list[Any], snaps: dict[int, Snapshot], seated: dict[int, int], group_of: dict[int, int],
             presser: dict[str, int], typed: dict[int, set[str]]) -> list[str]:
    """Cards in outgoing calls that their reader may not see (public at their table, their own hand, or
    what was typed in that chat)."""
    def allowed_for_user(uid: int) -> set[str]:
        mid = seated.get(uid)
        snap = snaps.get(mid) if mid is not None else None
        if snap is None:
            return set(typed.get(uid, set()))
        return snap.public | snap.known.get(str(uid), set()) | typed.get(uid, set())

    found = []
    for call in calls:
        p = call.params
        if call.method in ("sendMessage", "editMessageText"):
            chat = int(p.get("chat_id", 0))
            texts = [str(p.get("text", ""))]
            markup = p.get("reply_markup") or {}
            if isinstance(markup, dict):
                texts += [str(b.get("text", "")) for row in markup.get("inline_keyboard", []) for b in row]
            if chat < 0:
                mid = group_of.get(chat)
                snap = snaps.get(mid) if mid is not None else None
                allowed = (snap.public if snap else set()) | typed.get(chat, set())
            else:
                allowed = allowed_for_user(chat)
        elif call.method == "answerCallbackQuery":
            texts = [str(p.get("text", ""))]
            allowed = allowed_for_user(presser.get(str(p.get("callback_query_id")), 0))
        elif call.method == "answerInlineQuery":
            texts = [str(r.get("title", "")) + " " + str(r.get("description", "")) for r in p.get("results") or []]
            allowed = allowed_for_user(presser.get(str(p.get("inline_query_id")), 0))
        else:
            continue
        shown: set[str] = set()
        for t in texts:
            shown |= set(card_mentions(t))
        if shown - allowed:
            found.append(f"{call.method} {p.get('chat_id', '')}: {sorted(shown - allowed)} in {texts[0][:120]!r}")
    return found


@pytest.mark.slow(55)
async def test_thousands_of_hostile_updates_change_nothing(tmp_path: Path) -> None:
    # Telegram's limits on, on a fast clock (a Telegram minute is 60 ms): the fuzz is about hostile
    # input, and at people's pace 10,000 answers would take hours; a 429 would still fail it.
    fake: FakeTelegram = await start_fake(Limits(scale=0.001))
    clock = FakeClock()
    # The host answers every press itself, with a reason; the adapter's empty fallback must not race it
    # on a loaded machine (at 0.5 s it did, at a load of 15), so it waits nearly as long as Telegram does.
    rig = await boot(fake, str(tmp_path / "fuzz.sqlite3"), clock=clock, settings=SETTINGS, answer_deadline=8.0)
    try:
        for uid, name in [(ANN, "Ann"), (BO, "Bo"), (CY, "Cy"), (DI, "Di"), (EVE, "Eve"), (FAY, "Fay"),
                          (ZED, "Zed"), (YAN, "Yan")]:
            fake.add_user(uid, name, opened=uid != YAN)
        for g in (G_ONE, G_TWO, G_LOBBY, G_ABANDONED, G_EMPTY):
            fake.add_group(g)
        # One person and three AIs; two people and two AIs; a lobby; an abandoned lobby; a finished match.
        await rig.handled(fake.command(ANN, G_ONE, "/new classic target=3"),
                          *[fake.command(ANN, G_ONE, "/addbot random") for _ in range(3)])
        await rig.handled(fake.command(BO, G_TWO, "/new classic target=3"), fake.command(CY, G_TWO, "/join"),
                          *[fake.command(BO, G_TWO, "/addbot random") for _ in range(2)])
        await rig.handled(fake.command(ANN, G_ONE, "/start"), fake.command(BO, G_TWO, "/start"),
                          fake.command(DI, G_LOBBY, "/new classic"), fake.command(DI, G_LOBBY, "/addbot"),
                          fake.command(EVE, G_ABANDONED, "/new classic"))
        await rig.handled(fake.command(EVE, G_ABANDONED, "/abandon"))
        finished = await open_ai_table(rig, FAY, G_FINISHED, options="classic target=3")
        await until(lambda: finished not in rig.host.tables, 60)
        one, two, lobby = (rig.host.by_chat[("telegram", str(g))] for g in (G_ONE, G_TWO, G_LOBBY))
        abandoned = (await rig.store.list_matches("telegram", str(G_ABANDONED)))[0]["id"]
        await to_a_persons_turn(rig, clock, [one, two])
        # Someone asked for their choices once, so real inline result ids are in the pool too.
        fake.inline_query(ANN, "")
        await rig.settle()

        ids = [one.id, two.id, lobby.id, abandoned, finished]
        before = await state_of(rig, ids)
        seated = {ANN: one.id, BO: two.id, CY: two.id, DI: lobby.id}
        snaps = {t.id: snapshot_of(rig.host, t.id) for t in (one, two)}
        group_of = {G_ONE: one.id, G_TWO: two.id}
        first_call = len(fake.calls)

        fuzzer = Fuzzer(rig, random.Random(20261129), seated, [abandoned, finished])
        while sum(fuzzer.kinds.values()) < FUZZ_UPDATES:
            start = len(fuzzer.pushed)
            fuzzer.batch(100)
            await rig.handled(*fuzzer.pushed[start:])
        await rig.settle()

        assert rig.errors == []
        assert await state_of(rig, ids) == before
        assert [t.match.version for t in (one, two)] == [before[one.id][1], before[two.id][1]]
        assert all(t.task is not None and not t.task.done() for t in (one, two, lobby))
        # Every press answered once, with a reason (the only failed answers: Telegram refusing a
        # second answer to a replayed press).
        answers = Counter(str(c.params.get("callback_query_id")) for c in fake.calls[first_call:]
                          if c.method == "answerCallbackQuery" and c.ok)
        assert set(fuzzer.presses) <= set(answers)
        assert max(answers.values()) == 1
        assert all(fake.callback_answers[q]["text"] for q in fuzzer.presses)
        refused = [(c.method, c.description) for c in fake.calls[first_call:]
                   if not c.ok and c.description not in (QUERY_TOO_OLD, CANT_INITIATE)]
        assert refused == []
        presser = {str(u[k]["id"]): u[k]["from"]["id"] for u in fake._all_updates
                   for k in ("callback_query", "inline_query") if k in u}
        assert leaks_in(fake.calls[first_call:], snaps, seated, group_of, presser, fuzzer.typed) == []
        assert len(fuzzer.kinds) >= 15 and sum(fuzzer.kinds.values()) >= FUZZ_UPDATES

        # The tables still play: Ann makes her legal play by typing it.
        s = one.seat_of(str(ANN))
        assert s is not None
        play = one.match.auto_action(s).to_json()
        version = one.match.version
        await rig.handled(fake.send_text(ANN, ANN, "play " + cards_text(play["cards"])))
        assert one.match.version > version
        after = await rig.store.get_match(one.id)
        assert after is not None and after.actions[version] == play
    finally:
        await rig.stop()
        await stop_fake(fake)
