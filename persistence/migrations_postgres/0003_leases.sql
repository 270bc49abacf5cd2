-- 0003: table leases, so that several workers sharing one database drive each table one at a time.
-- A lease is held until expires_at (epoch seconds of the database's clock, so workers' clocks
-- need not agree); its holder renews it by heartbeat. No SQLite counterpart: one process owns a file.

CREATE TABLE leases (
    match_id    bigint PRIMARY KEY REFERENCES matches (id) ON DELETE CASCADE,
    worker      text NOT NULL,
    expires_at  double precision NOT NULL
);

CREATE INDEX leases_by_worker ON leases (worker);
