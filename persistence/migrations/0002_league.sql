-- Leagues: one per chat, with numbered seasons; finished matches as JSON records.
-- Players are identified by (platform, user_id), the same key as the players table,
-- so a player keeps one identity across every chat of a platform.
-- Written so that applying it twice is harmless.

CREATE TABLE IF NOT EXISTS league (
    platform   TEXT NOT NULL,
    chat_id    TEXT NOT NULL,
    method     TEXT NOT NULL DEFAULT 'rating',   -- rating | bigsmall | matchpoints | plain
    season     INTEGER NOT NULL DEFAULT 1,       -- the current season
    created_at TEXT NOT NULL,
    PRIMARY KEY (platform, chat_id)
);

CREATE TABLE IF NOT EXISTS league_season (
    platform   TEXT NOT NULL,
    chat_id    TEXT NOT NULL,
    season     INTEGER NOT NULL,
    started_at TEXT NOT NULL,
    started_by TEXT,                             -- platform user id of the admin, NULL for season 1
    PRIMARY KEY (platform, chat_id, season)
);

CREATE TABLE IF NOT EXISTS league_match (
    platform   TEXT NOT NULL,
    chat_id    TEXT NOT NULL,
    match_id   INTEGER NOT NULL,                 -- the host's match id: replay it from its log
    season     INTEGER NOT NULL,
    ended_at   TEXT NOT NULL,                    -- ISO 8601, UTC
    ending     TEXT NOT NULL,                    -- target | time_limit | abandoned | forfeit
    record     TEXT NOT NULL,                    -- MatchRecord.to_dict() as JSON
    PRIMARY KEY (platform, chat_id, match_id)
);

CREATE INDEX IF NOT EXISTS league_match_by_season
    ON league_match (platform, chat_id, season, ended_at);

CREATE TABLE IF NOT EXISTS league_match_player (
    platform   TEXT NOT NULL,
    chat_id    TEXT NOT NULL,
    match_id   INTEGER NOT NULL,
    seat       INTEGER NOT NULL,
    user_id    TEXT NOT NULL,
    PRIMARY KEY (platform, chat_id, match_id, seat)
);

CREATE INDEX IF NOT EXISTS league_match_player_by_user
    ON league_match_player (platform, user_id);

-- The positions last shown by `standings`, to print the movement since then.
CREATE TABLE IF NOT EXISTS league_shown (
    platform   TEXT NOT NULL,
    chat_id    TEXT NOT NULL,
    scope      TEXT NOT NULL,                    -- 'season' | 'all'
    method     TEXT NOT NULL,
    positions  TEXT NOT NULL,                    -- JSON {user_id: position}
    shown_at   TEXT NOT NULL,
    PRIMARY KEY (platform, chat_id, scope, method)
);
