-- Chats that get the daily boards posted: at a minute of the day they chose (UTC), the day's
-- boards and the day before's standings; posted_day is the last day done, so each day goes out
-- once whichever worker claims it first. Written so that applying it twice is harmless.

CREATE TABLE IF NOT EXISTS daily_post (
    platform   TEXT NOT NULL,
    chat_id    TEXT NOT NULL,
    at_minute  INTEGER NOT NULL,                 -- minutes after midnight, UTC
    posted_day TEXT NOT NULL DEFAULT '',         -- YYYY-MM-DD of the last post, '' before the first
    PRIMARY KEY (platform, chat_id)
);
