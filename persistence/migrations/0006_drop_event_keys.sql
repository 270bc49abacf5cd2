-- Keys of events handled without an action were never written by the host (Store.remember_key had
-- no caller and is gone); an event's key is kept with its action only, so that checking a key is one
-- lookup in `actions`. Written so that applying it twice is harmless.

DROP TABLE IF EXISTS event_keys;
