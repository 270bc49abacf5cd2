-- Who has been in which group chat: everyone the bot heard from there (a command, a button, a
-- move) or who looked on at its web table. A board played in a chat counts as seen by all of them,
-- before or after (the chat's history keeps its cards), so they may not play it (docs/duplicate.md).
-- Written so that applying it twice is harmless.

CREATE TABLE IF NOT EXISTS chat_presence (
    platform TEXT NOT NULL,
    chat_id  TEXT NOT NULL,
    user_id  TEXT NOT NULL,
    first_at TEXT NOT NULL,                      -- ISO 8601, UTC: when the bot first heard them there
    PRIMARY KEY (platform, chat_id, user_id)
);

CREATE INDEX IF NOT EXISTS chat_presence_by_user ON chat_presence (platform, user_id);
CREATE INDEX IF NOT EXISTS board_play_by_board_chat ON board_play (board_id, platform, chat_id);
