-- Tournaments in a chat (document 001): a knockout, round robin or Swiss as one JSON document.
-- The model is bot/league/tournament.py; `state` is its to_dict(). One row per tournament.
-- Written so that applying it twice is harmless.

CREATE TABLE IF NOT EXISTS tournament (
    id         INTEGER PRIMARY KEY,
    platform   TEXT NOT NULL,
    chat_id    TEXT NOT NULL,                    -- the chat that runs it
    status     TEXT NOT NULL,                    -- open | running | finished | cancelled
    state      TEXT NOT NULL,                    -- JSON: entrants, pairings, games
    created_at TEXT NOT NULL,                    -- ISO 8601, UTC
    updated_at TEXT NOT NULL
);

CREATE INDEX IF NOT EXISTS tournament_chat ON tournament (platform, chat_id, id);
