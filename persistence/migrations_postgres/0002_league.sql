-- Leagues: one per chat, with numbered seasons; finished matches as JSON records.
-- Players are identified by (platform, user_id), the same key as the players table,
-- so a player keeps one identity across every chat of a platform.
-- The counterpart of SQLite's 0002_league.sql (same tables, same columns).

CREATE TABLE IF NOT EXISTS league (
    platform   text NOT NULL,
    chat_id    text NOT NULL,
    method     text NOT NULL DEFAULT 'rating',   -- rating | bigsmall | matchpoints | plain
    season     integer NOT NULL DEFAULT 1,       -- the current season
    created_at text NOT NULL,
    PRIMARY KEY (platform, chat_id)
);

CREATE TABLE IF NOT EXISTS league_season (
    platform   text NOT NULL,
    chat_id    text NOT NULL,
    season     integer NOT NULL,
    started_at text NOT NULL,
    started_by text,                             -- platform user id of the admin, NULL for season 1
    PRIMARY KEY (platform, chat_id, season)
);

CREATE TABLE IF NOT EXISTS league_match (
    platform   text NOT NULL,
    chat_id    text NOT NULL,
    match_id   integer NOT NULL,                 -- the host's match id: replay it from its log
    season     integer NOT NULL,
    ended_at   text NOT NULL,                    -- ISO 8601, UTC
    ending     text NOT NULL,                    -- target | time_limit | abandoned | forfeit
    record     text NOT NULL,                    -- MatchRecord.to_dict() as JSON
    PRIMARY KEY (platform, chat_id, match_id)
);

CREATE INDEX IF NOT EXISTS league_match_by_season
    ON league_match (platform, chat_id, season, ended_at);

CREATE TABLE IF NOT EXISTS league_match_player (
    platform   text NOT NULL,
    chat_id    text NOT NULL,
    match_id   integer NOT NULL,
    seat       integer NOT NULL,
    user_id    text NOT NULL,
    PRIMARY KEY (platform, chat_id, match_id, seat)
);

CREATE INDEX IF NOT EXISTS league_match_player_by_user
    ON league_match_player (platform, user_id);

-- The positions last shown by `standings`, to print the movement since then.
CREATE TABLE IF NOT EXISTS league_shown (
    platform   text NOT NULL,
    chat_id    text NOT NULL,
    scope      text NOT NULL,                    -- 'season' | 'all'
    method     text NOT NULL,
    positions  text NOT NULL,                    -- JSON {user_id: position}
    shown_at   text NOT NULL,
    PRIMARY KEY (platform, chat_id, scope, method)
);
