-- 0008: Telegram's flood budgets shared by the workers of one bot (persistence/postgres_flood.py).
-- One row a message: its chat (negative: a group) and the latest time it can have reached
-- Telegram (epoch seconds of the database's clock): granted + hold until its worker says when it
-- arrived. A message fits while the rows still inside the bot's second, the group's minute and
-- the chat's window leave room. No SQLite counterpart: one process owns a file.

CREATE TABLE flood_sends (
    id       bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    chat     bigint NOT NULL,
    worker   text NOT NULL,
    granted  double precision NOT NULL,
    arrived  double precision NOT NULL
);

CREATE INDEX flood_sends_by_arrival ON flood_sends (arrived);
CREATE INDEX flood_sends_by_chat ON flood_sends (chat, arrived);

-- Seconds until one more message fits `cap` within `win` seconds (of one chat, or of the whole
-- bot when chat is NULL); 0 when it fits now.
CREATE FUNCTION flood_wait(p_chat bigint, p_cap integer, p_win double precision, p_now double precision)
RETURNS double precision LANGUAGE sql VOLATILE AS $$
    SELECT coalesce((SELECT arrived + p_win - p_now FROM flood_sends
                     WHERE (p_chat IS NULL OR chat = p_chat) AND arrived > p_now - p_win
                     ORDER BY arrived DESC OFFSET p_cap - 1 LIMIT 1), 0)
$$;

-- One worker's round, in one statement (one round trip): settle its earlier places (when they
-- arrived; unused ones go), then grant places to the messages `chats` in order while they fit
-- the budgets (cap, window) of the bot [1], a group [2] and a chat [3]. Granting holds an
-- advisory lock, so two workers never both take the last place.
CREATE FUNCTION flood_claim(p_worker text, p_chats bigint[], p_caps integer[], p_wins double precision[],
                            p_hold double precision, p_done bigint[], p_done_at double precision[],
                            p_unused bigint[],
                            OUT now double precision, OUT places bigint[], OUT waits double precision[])
LANGUAGE plpgsql AS $$
DECLARE
    c bigint;
    w double precision;
    place bigint;
BEGIN
    PERFORM set_config('synchronous_commit', 'off', true);  -- a help, not a record: no disk wait
    PERFORM pg_advisory_xact_lock(439788072804);  -- "flood" in ASCII
    now := extract(epoch FROM clock_timestamp());
    UPDATE flood_sends f SET arrived = s.at FROM unnest(p_done, p_done_at) AS s(id, at) WHERE f.id = s.id;
    DELETE FROM flood_sends WHERE id = ANY(p_unused);
    IF random() < 0.01 THEN
        DELETE FROM flood_sends WHERE arrived < now - p_hold - greatest(p_wins[1], p_wins[2], p_wins[3]);
    END IF;
    places := '{}';
    waits := '{}';
    FOREACH c IN ARRAY coalesce(p_chats, '{}') LOOP
        w := greatest(flood_wait(NULL, p_caps[1], p_wins[1], now), flood_wait(c, p_caps[3], p_wins[3], now),
                      CASE WHEN c < 0 THEN flood_wait(c, p_caps[2], p_wins[2], now) ELSE 0 END);
        IF w > 0 THEN
            places := places || NULL::bigint;
            waits := waits || w;
        ELSE
            INSERT INTO flood_sends (chat, worker, granted, arrived) VALUES (c, p_worker, now, now + p_hold)
                RETURNING id INTO place;
            places := places || place;
            waits := waits || 0::double precision;
        END IF;
    END LOOP;
END
$$;
