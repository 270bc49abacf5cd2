-- Each seat's hand as its buttons were drawn and the cards picked on it (bot/table/drawn.py), one
-- row a seat, so that a tap writes that seat's row only and not the whole match's meta.
-- Written so that applying it twice is harmless.

CREATE TABLE IF NOT EXISTS seat_picks (
    match_id  INTEGER NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
    seat      INTEGER NOT NULL,
    state     TEXT NOT NULL,                     -- JSON: version, phase, cards, picked
    PRIMARY KEY (match_id, seat)
) WITHOUT ROWID;
