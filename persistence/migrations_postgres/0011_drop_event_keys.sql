-- 0011: as SQLite's 0006. The host never wrote event_keys (an event's key is kept with its action
-- only, so that checking a key is one lookup in actions); the empty table goes.

DROP TABLE IF EXISTS event_keys;
