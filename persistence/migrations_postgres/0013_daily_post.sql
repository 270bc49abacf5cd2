-- Chats that get the daily boards posted: at a minute of the day they chose (UTC), the day's
-- boards and the day before's standings; posted_day is the last day done, so each day goes out
-- once whichever worker claims it first. The counterpart of SQLite's 0008_daily_post.sql.

CREATE TABLE IF NOT EXISTS daily_post (
    platform   text NOT NULL,
    chat_id    text NOT NULL,
    at_minute  integer NOT NULL,                 -- minutes after midnight, UTC
    posted_day text NOT NULL DEFAULT '',         -- YYYY-MM-DD of the last post, '' before the first
    PRIMARY KEY (platform, chat_id)
);
