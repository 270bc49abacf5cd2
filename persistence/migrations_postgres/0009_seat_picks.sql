-- 0009: each seat's hand as its buttons were drawn and the cards picked on it (bot/table/drawn.py),
-- one row a seat, so that a tap writes that seat's row only and not the whole match's meta.

CREATE TABLE IF NOT EXISTS seat_picks (
    match_id  bigint NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
    seat      integer NOT NULL,
    state     text NOT NULL,
    PRIMARY KEY (match_id, seat)
);
