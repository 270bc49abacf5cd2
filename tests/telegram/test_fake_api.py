"""The fake Bot API server behaves like Telegram for the real python-telegram-bot client."""

from __future__ import annotations

import asyncio
import warnings
from collections.abc import AsyncIterator
from typing import Any

import pytest
from telegram import (
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    InlineQueryResultArticle,
    InputTextMessageContent,
    MessageEntity,
    User,
)
from telegram import Update as TgUpdate
from telegram.error import BadRequest, Forbidden, NetworkError, RetryAfter, TimedOut
from telegram.ext import (
    Application,
    CallbackQueryHandler,
    ChatMemberHandler,
    ChosenInlineResultHandler,
    ContextTypes,
    InlineQueryHandler,
    MessageHandler,
    filters,
)
from telegram.request import HTTPXRequest
from telegram.warnings import PTBUserWarning

from fakes.telegram_api import BOT_USERNAME, CANT_INITIATE, FakeTelegram, Limits

pytestmark = pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")

GROUP = -100500


class Harness:
    """A real PTB application polling the fake, recording what it receives."""

    def __init__(self, fake: FakeTelegram) -> None:
        self.fake = fake
        self.received: list[TgUpdate] = []
        self.errors: list[BaseException] = []
        self.got = asyncio.Event()
        request = HTTPXRequest(read_timeout=1.0, connect_timeout=1.0)
        self.app = (
            Application.builder()
            .token(fake.token)
            .base_url(fake.base_url)
            .base_file_url(fake.base_file_url)
            .request(request)
            .get_updates_request(HTTPXRequest(read_timeout=3.0))
            .build()
        )
        for handler in (
            MessageHandler(filters.ALL, self._record),
            CallbackQueryHandler(self._record),
            InlineQueryHandler(self._record),
            ChosenInlineResultHandler(self._record),
            ChatMemberHandler(self._record, ChatMemberHandler.MY_CHAT_MEMBER),
        ):
            self.app.add_handler(handler)
        self.app.add_error_handler(self._error)

    async def _record(self, update: TgUpdate, context: ContextTypes.DEFAULT_TYPE) -> None:
        self.received.append(update)
        self.got.set()

    async def _error(self, update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
        assert context.error is not None
        self.errors.append(context.error)

    async def next_update(self) -> TgUpdate:
        while not self.received:
            self.got.clear()
            await asyncio.wait_for(self.got.wait(), 5)
        return self.received.pop(0)


@pytest.fixture
async def harness() -> AsyncIterator[Harness]:
    # Telegram's limits on a fast clock (a Telegram second is a millisecond): the bare client's
    # calls here come quicker than a person's; the flood test sets the real pace.
    fake = FakeTelegram(limits=Limits(scale=0.001))
    await fake.start()
    h = Harness(fake)
    await h.app.initialize()
    await h.app.start()
    assert h.app.updater is not None
    await h.app.updater.start_polling(timeout=1, drop_pending_updates=True)
    fake.add_group(GROUP)
    fake.add_user(1, "Ann")
    fake.add_user(2, "Bo", opened=True)
    yield h
    await h.app.updater.stop()
    await h.app.stop()
    await h.app.shutdown()
    await fake.stop()
    assert h.errors == []


async def test_get_me_and_command_entities(harness: Harness) -> None:
    assert harness.app.bot.username == BOT_USERNAME
    harness.fake.command(1, GROUP, f"/new@{BOT_USERNAME} classic target=3")
    update = await harness.next_update()
    assert update.message is not None
    assert update.message.text == f"/new@{BOT_USERNAME} classic target=3"
    assert update.message.entities[0].type == "bot_command"
    assert update.effective_chat is not None and update.effective_chat.type == "supergroup"


async def test_deep_link_start_opens_private_chat(harness: Harness) -> None:
    bot = harness.app.bot
    with pytest.raises(Forbidden, match="initiate"):
        await bot.send_message(1, "hello")
    assert harness.fake.calls_of("sendMessage")[-1].description == CANT_INITIATE
    harness.fake.start_private(1, "join-abc")
    update = await harness.next_update()
    assert update.message is not None and update.message.text == "/start join-abc"
    msg = await bot.send_message(1, "your hand")
    assert msg.chat.id == 1
    harness.fake.block(1)
    with pytest.raises(Forbidden, match="blocked"):
        await bot.send_message(1, "again")


async def test_buttons_edits_and_callback_answers(harness: Harness) -> None:
    bot = harness.app.bot
    markup = InlineKeyboardMarkup([[InlineKeyboardButton("Join", callback_data="j:1:0")]])
    msg = await bot.send_message(GROUP, "Table", reply_markup=markup)
    assert harness.fake.callback_data_on(GROUP, msg.message_id) == ["j:1:0"]
    _, query_id = harness.fake.press(2, GROUP, msg.message_id, "j:1:0")
    update = await harness.next_update()
    assert update.callback_query is not None and update.callback_query.data == "j:1:0"
    assert update.callback_query.from_user.id == 2
    await update.callback_query.answer("joined", show_alert=True)
    assert harness.fake.callback_answers[query_id] == {"text": "joined", "show_alert": True}
    with pytest.raises(BadRequest, match="too old"):
        await bot.answer_callback_query(query_id)

    await bot.edit_message_text("Table v2", chat_id=GROUP, message_id=msg.message_id, reply_markup=markup)
    with pytest.raises(BadRequest, match="not modified"):
        await bot.edit_message_text("Table v2", chat_id=GROUP, message_id=msg.message_id, reply_markup=markup)
    await bot.edit_message_reply_markup(chat_id=GROUP, message_id=msg.message_id, reply_markup=None)
    assert harness.fake.messages[(GROUP, msg.message_id)].text == "Table v2"
    assert harness.fake.buttons_on(GROUP, msg.message_id) == []
    assert await bot.delete_message(GROUP, msg.message_id)
    assert harness.fake.chat_messages(GROUP) == []
    with pytest.raises(BadRequest, match=r"(?i)button_data_invalid"):
        too_long = InlineKeyboardMarkup([[InlineKeyboardButton("x", callback_data="x" * 65)]])
        await bot.send_message(GROUP, "t", reply_markup=too_long)


async def test_inline_query_and_chosen_result(harness: Harness) -> None:
    query_id = harness.fake.inline_query(2, "play")
    update = await harness.next_update()
    assert update.inline_query is not None and update.inline_query.query == "play"
    results = [
        InlineQueryResultArticle(id=f"p:{i}", title=f"card {i}", input_message_content=InputTextMessageContent("x"))
        for i in range(3)
    ]
    await update.inline_query.answer(results, cache_time=0, is_personal=True)
    answer = harness.fake.inline_answers[query_id]
    assert answer["cache_time"] == 0 and answer["is_personal"] is True
    assert [r["id"] for r in answer["results"]] == ["p:0", "p:1", "p:2"]
    harness.fake.choose_inline(2, query_id, "p:1", GROUP)
    chosen = await harness.next_update()
    assert chosen.chosen_inline_result is not None
    assert chosen.chosen_inline_result.result_id == "p:1"
    assert chosen.chosen_inline_result.query == "play"


async def test_a_chosen_results_mention_notifies_and_bad_entities_are_refused(harness: Harness) -> None:
    """A text_mention in a chosen result's message is posted with it (Telegram notifies that person);
    entities outside the text (counted in UTF-16 units, "①" and "♠" are one each) are refused."""
    query_id = harness.fake.inline_query(2, "")
    update = await harness.next_update()
    assert update.inline_query is not None
    text = "①Bo: ♠A → ②Ann"  # "②Ann" starts at 10

    def mention(offset: int, length: int) -> list[InlineQueryResultArticle]:
        who = MessageEntity(MessageEntity.TEXT_MENTION, offset, length, user=User(1, "Ann", False))
        return [InlineQueryResultArticle(id="p", title="♠A",
                                         input_message_content=InputTextMessageContent(text, entities=[who]))]

    with pytest.raises(BadRequest, match=r"(?i)entity_bounds_invalid"):
        await update.inline_query.answer(mention(10, 5), cache_time=0)
    await update.inline_query.answer(mention(10, 4), cache_time=0)
    harness.fake.choose_inline(2, query_id, "p", GROUP)
    posted = harness.fake.chat_messages(GROUP, from_bot=False)[-1]
    assert posted.text == text and posted.entities[0]["user"]["id"] == 1
    assert [(chat, uid) for _, chat, uid in harness.fake.mentions] == [(GROUP, 1)]


async def test_photo_and_document(harness: Harness) -> None:
    bot = harness.app.bot
    await bot.send_photo(GROUP, b"\x89PNG fake", caption="standings")
    await bot.send_document(GROUP, b"a,b\n1,2\n", filename="league.csv", caption="export")
    photo, doc = harness.fake.calls_of("sendPhoto", "sendDocument")
    assert photo.params["photo"]["data"] == b"\x89PNG fake"
    assert doc.params["document"]["filename"] == "league.csv"
    assert [m.kind for m in harness.fake.chat_messages(GROUP)] == ["photo", "document"]
    # as Telegram: a photo or a document must come with the call (a file, a file_id or a URL)
    with warnings.catch_warnings():  # PTB's advice to call send_photo, which always sends a file
        warnings.simplefilter("ignore", PTBUserWarning)
        with pytest.raises(BadRequest, match=r"(?i)there is no photo in the request"):
            await bot.do_api_request("sendPhoto", {"chat_id": GROUP, "caption": "no file"})
        with pytest.raises(BadRequest, match=r"(?i)there is no document in the request"):
            await bot.do_api_request("sendDocument", {"chat_id": GROUP})
    with pytest.raises(BadRequest, match=r"(?i)file must be non-empty"):
        await bot.send_photo(GROUP, b"", filename="empty.png")
    assert len(harness.fake.chat_messages(GROUP)) == 2


async def test_redelivered_update_arrives_again(harness: Harness) -> None:
    update_id = harness.fake.command(1, GROUP, "/help")
    first = await harness.next_update()
    harness.fake.redeliver(update_id)
    second = await harness.next_update()
    assert first.update_id == second.update_id == update_id


async def test_injected_faults(harness: Harness) -> None:
    bot = harness.app.bot
    harness.fake.inject("5xx", method="sendMessage")
    with pytest.raises(NetworkError):
        await bot.send_message(GROUP, "a")
    harness.fake.inject("429", method="sendMessage", retry_after=3)
    with pytest.raises(RetryAfter) as info:
        await bot.send_message(GROUP, "b")
    assert _seconds(info.value.retry_after) == 3
    harness.fake.inject("timeout", method="sendMessage", delay=1.5)
    with pytest.raises(TimedOut):
        await bot.send_message(GROUP, "c")
    harness.fake.inject("drop", method="sendMessage")
    with pytest.raises(NetworkError):
        await bot.send_message(GROUP, "d")
    await bot.send_message(GROUP, "e")
    # The timed-out message did reach the chat, as it can on Telegram.
    assert [m.text for m in harness.fake.chat_messages(GROUP)] == ["c", "e"]


def _seconds(value: Any) -> float:
    return value.total_seconds() if hasattr(value, "total_seconds") else float(value)


async def test_flood_limits_on_a_scaled_clock(harness: Harness) -> None:
    now = [0.0]
    harness.fake.limits = Limits(scale=1.0)
    harness.fake.clock = lambda: now[0]
    bot = harness.app.bot
    for i in range(3):  # the burst
        await bot.send_message(GROUP, f"m{i}")
    with pytest.raises(RetryAfter) as info:
        await bot.send_message(GROUP, "too fast")
    assert _seconds(info.value.retry_after) == 1
    sent = 3
    while sent < 20:
        now[0] += 1.0
        await bot.send_message(GROUP, f"m{sent}")
        sent += 1
    now[0] += 1.0
    with pytest.raises(RetryAfter) as info:  # 20 a minute in a group, edits included
        await bot.edit_message_text("edited", chat_id=GROUP, message_id=1)
    assert _seconds(info.value.retry_after) >= 40
    assert harness.fake.rejected_429 == 2
    # Another chat is not affected by the group's minute.
    harness.fake.start_private(2)
    await harness.next_update()
    await bot.send_message(2, "private is fine")
    assert harness.fake.rejected_by == {"chat": 1, "group": 1}


async def test_the_bots_overall_second_is_counted_across_chats(harness: Harness) -> None:
    now = [0.0]
    harness.fake.limits = Limits(scale=1.0)
    harness.fake.clock = lambda: now[0]
    bot = harness.app.bot
    for g in range(30):  # 30 groups, one message each: the bot's whole second
        harness.fake.add_group(-7000 - g)
        await bot.send_message(-7000 - g, "hi")
    harness.fake.add_group(-8000)
    with pytest.raises(RetryAfter):
        await bot.send_message(-8000, "the 31st in one second")
    assert harness.fake.rejected_by == {"bot": 1}
    now[0] += 1.0
    await bot.send_message(-8000, "a second later")


async def test_a_blocked_users_chat_refuses_edits_and_says_so(harness: Harness) -> None:
    bot = harness.app.bot
    harness.fake.start_private(2)
    await harness.next_update()
    msg = await bot.send_message(2, "your hand")
    harness.fake.block(2)
    blocked = await harness.next_update()
    assert blocked.my_chat_member is not None and blocked.my_chat_member.new_chat_member.status == "kicked"
    with pytest.raises(Forbidden, match="blocked"):
        await bot.edit_message_text("your hand, later", chat_id=2, message_id=msg.message_id)
    with pytest.raises(Forbidden, match="blocked"):
        await bot.delete_message(2, msg.message_id)
    # "Restart bot": Telegram says so, the user's /start follows, and the chat takes messages again.
    harness.fake.start_private(2)
    unblocked = await harness.next_update()
    assert unblocked.my_chat_member is not None and unblocked.my_chat_member.new_chat_member.status == "member"
    await harness.next_update()
    await bot.edit_message_text("your hand, now", chat_id=2, message_id=msg.message_id)


async def test_inline_results_are_capped_at_50_and_paged_by_next_offset(harness: Harness) -> None:
    def articles(start: int, n: int) -> list[InlineQueryResultArticle]:
        return [InlineQueryResultArticle(id=f"r{i}", title=f"play {i}",
                                         input_message_content=InputTextMessageContent("x"))
                for i in range(start, start + n)]

    query_id = harness.fake.inline_query(2, "")
    update = await harness.next_update()
    assert update.inline_query is not None
    with pytest.raises(BadRequest, match=r"(?i)results_too_much"):
        await update.inline_query.answer(articles(0, 51), cache_time=0)
    await update.inline_query.answer(articles(0, 50), cache_time=0, next_offset="50")
    scrolled = harness.fake.scroll_inline(query_id)
    assert scrolled is not None
    page = await harness.next_update()
    assert page.inline_query is not None and page.inline_query.offset == "50"
    await page.inline_query.answer(articles(50, 41), cache_time=0, next_offset="")
    assert len(harness.fake.inline_answers[scrolled]["results"]) == 41
    assert harness.fake.scroll_inline(scrolled) is None  # nothing more
    with pytest.raises(BadRequest, match=r"(?i)next_offset_invalid"):
        query = harness.fake.inline_query(2, "x")
        again = await harness.next_update()
        assert again.inline_query is not None and query
        await again.inline_query.answer(articles(0, 1), next_offset="9" * 65)


async def test_queries_answered_too_late_are_refused(harness: Harness) -> None:
    now = [0.0]
    harness.fake.clock = lambda: now[0]
    bot = harness.app.bot
    msg = await bot.send_message(GROUP, "Table", reply_markup=InlineKeyboardMarkup(
        [[InlineKeyboardButton("Join", callback_data="j")]]))
    _, late_press = harness.fake.press(2, GROUP, msg.message_id, "j")
    await harness.next_update()
    late_inline = harness.fake.inline_query(2, "")
    await harness.next_update()
    now[0] += 10.5  # the person's client stopped waiting
    with pytest.raises(BadRequest, match="too old"):
        await bot.answer_callback_query(late_press, "too late")
    with pytest.raises(BadRequest, match="too old"):
        await bot.answer_inline_query(late_inline, [])
    _, in_time = harness.fake.press(2, GROUP, msg.message_id, "j")
    await harness.next_update()
    now[0] += 9.0
    assert await bot.answer_callback_query(in_time, "in time")
