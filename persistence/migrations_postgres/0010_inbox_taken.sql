-- 0010: an inbox row is marked taken, and deleted once served (bot.cluster), instead of deleted as
-- it is taken: a worker whose connection dropped after the server deleted rows but before their
-- answer arrived lost those updates; a row marked but never served is taken again a while later.

ALTER TABLE inbox ADD COLUMN IF NOT EXISTS taken_by text;
ALTER TABLE inbox ADD COLUMN IF NOT EXISTS taken_at double precision;
