-- 0007: seeing a dead worker at once, so that its tables move within a beat or two.
-- `life`: each worker holds the session advisory lock (LIFE_LOCKS, life) on its listening
-- connection. When its process dies (SIGKILL, a crash, the out-of-memory killer) the server ends
-- that session and releases the lock at once; the others see that at their next beat instead of
-- waiting out its leases. NULL for a worker that never joined (its leases then run out, as before).
-- `beat_at`: its last beat. A worker lost with its machine (no session end to see) stops counting
-- among the live ones for sharing the tables once it misses beats, before its leases run out.
-- No SQLite counterpart: one process owns a file.

ALTER TABLE workers ADD COLUMN life integer;
ALTER TABLE workers ADD COLUMN beat_at double precision;

CREATE SEQUENCE worker_life AS integer CYCLE;
