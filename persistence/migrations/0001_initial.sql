-- 0001: the first schema. Shipped; never edit, add a new numbered file instead.
-- Times are Unix epoch seconds (REAL). JSON columns hold plain objects/arrays.

CREATE TABLE players (
    id          INTEGER PRIMARY KEY,
    platform    TEXT NOT NULL,
    user_id     TEXT NOT NULL,
    name        TEXT NOT NULL,
    language    TEXT,
    created_at  REAL NOT NULL,
    updated_at  REAL NOT NULL,
    UNIQUE (platform, user_id)
);

CREATE TABLE chats (
    id          INTEGER PRIMARY KEY,
    platform    TEXT NOT NULL,
    chat_id     TEXT NOT NULL,
    settings    TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(settings)),
    created_at  REAL NOT NULL,
    updated_at  REAL NOT NULL,
    UNIQUE (platform, chat_id)
);

CREATE TABLE matches (
    id          INTEGER PRIMARY KEY,
    chat        INTEGER NOT NULL REFERENCES chats (id),
    rules       TEXT NOT NULL CHECK (json_valid(rules)),
    seats       TEXT NOT NULL CHECK (json_valid(seats)),
    seed        INTEGER NOT NULL,
    status      TEXT NOT NULL,
    meta        TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(meta)),
    version     INTEGER NOT NULL DEFAULT 0,   -- number of actions in the log
    created_at  REAL NOT NULL,
    updated_at  REAL NOT NULL,
    finished_at REAL                          -- NULL while the match is unfinished
);

CREATE INDEX matches_unfinished ON matches (id) WHERE finished_at IS NULL;
CREATE INDEX matches_by_chat ON matches (chat, id);

-- The event log: one row per accepted action, seq = 0, 1, 2, ... per match.
-- No json_valid check here on purpose: a damaged row must still be readable,
-- so that replay can report it and set only that match aside.
CREATE TABLE actions (
    match_id    INTEGER NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
    seq         INTEGER NOT NULL CHECK (seq >= 0),
    action      TEXT NOT NULL,
    key         TEXT UNIQUE,                  -- the platform event's idempotency key
    at          REAL NOT NULL,
    PRIMARY KEY (match_id, seq)
) WITHOUT ROWID;

-- The match's version follows its log inside the very statement that appends.
CREATE TRIGGER actions_raise_version AFTER INSERT ON actions
BEGIN
    UPDATE matches SET version = NEW.seq + 1, updated_at = NEW.at WHERE id = NEW.match_id;
END;

-- Keys of platform events that were handled without producing an action
-- (a join, a command); action keys live in actions.key.
CREATE TABLE event_keys (
    key         TEXT PRIMARY KEY,
    at          REAL NOT NULL
) WITHOUT ROWID;

-- Timers are data: the host re-arms them from here after a restart.
CREATE TABLE deadlines (
    match_id    INTEGER NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
    kind        TEXT NOT NULL,
    at          REAL NOT NULL,
    PRIMARY KEY (match_id, kind)
) WITHOUT ROWID;

-- Platform message ids the host must edit after a restart (table message, hands).
CREATE TABLE messages (
    match_id    INTEGER NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
    slot        TEXT NOT NULL,
    message_id  TEXT NOT NULL,
    PRIMARY KEY (match_id, slot)
) WITHOUT ROWID;

-- Finished-match results, for leagues and history.
CREATE TABLE results (
    match_id    INTEGER PRIMARY KEY REFERENCES matches (id) ON DELETE CASCADE,
    status      TEXT NOT NULL,
    result      TEXT NOT NULL CHECK (json_valid(result)),
    finished_at REAL NOT NULL
);
