-- Boards (document 002): deals fixed in advance, played at any number of tables.
-- A board is a seed (the cards, never shown) and a spec (dealer, level, trump source);
-- board_play has one row per table that played it, board_seen who has been dealt it
-- (only they may look at it), dup_event the duplicate team matches and pairs events.
-- Written so that applying it twice is harmless.

CREATE TABLE IF NOT EXISTS board (
    id         INTEGER PRIMARY KEY,
    set_kind   TEXT NOT NULL,                    -- daily | event | single
    set_key    TEXT NOT NULL,                    -- the day (YYYY-MM-DD), the event id, or platform:chat
    number     INTEGER NOT NULL,                 -- 1, 2, ... within its set
    seed       INTEGER NOT NULL,                 -- the deal (engine/boards.py); never shown
    spec       TEXT NOT NULL,                    -- "<dealer>/<level>/<trump or bid>"
    source     TEXT NOT NULL,                    -- marked | bid | drawn (002 2.6 A, B, C)
    drawn      TEXT NOT NULL DEFAULT '',         -- the card(s) drawn for a 'drawn' board
    rules      TEXT NOT NULL,                    -- the rules JSON its tables play under
    created_at TEXT NOT NULL,                    -- ISO 8601, UTC
    UNIQUE (set_kind, set_key, number)
);

CREATE TABLE IF NOT EXISTS board_play (
    board_id        INTEGER NOT NULL,
    match_id        INTEGER NOT NULL,            -- the table's match: replay it from its log
    platform        TEXT NOT NULL,
    chat_id         TEXT NOT NULL,
    event_id        INTEGER,                     -- the dup_event it belongs to, if any
    room            TEXT NOT NULL DEFAULT '',    -- open | closed (a team match), '' otherwise
    seats           TEXT NOT NULL,               -- JSON: per seat {"kind", "user_id", "name"}
    status          TEXT NOT NULL,               -- playing | done | abandoned
    defender_points INTEGER,
    declarer_team   INTEGER,
    started_at      TEXT NOT NULL,
    finished_at     TEXT,
    PRIMARY KEY (board_id, match_id)
);

CREATE INDEX IF NOT EXISTS board_play_by_match ON board_play (match_id);

CREATE TABLE IF NOT EXISTS board_seen (
    board_id   INTEGER NOT NULL,
    platform   TEXT NOT NULL,
    user_id    TEXT NOT NULL,
    PRIMARY KEY (board_id, platform, user_id)
);

CREATE TABLE IF NOT EXISTS dup_event (
    id         INTEGER PRIMARY KEY,
    kind       TEXT NOT NULL,                    -- team | pairs
    platform   TEXT NOT NULL,
    chat_id    TEXT NOT NULL,                    -- the chat that created it
    status     TEXT NOT NULL,                    -- forming | playing | done | abandoned
    state      TEXT NOT NULL,                    -- JSON: teams, rooms, boards, scores
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);

CREATE INDEX IF NOT EXISTS dup_event_by_chat ON dup_event (platform, chat_id, status);
