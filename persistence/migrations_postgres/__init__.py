"""Numbered schema migrations for the PostgreSQL store, applied in order by `persistence.postgres_migrate`.

The same numbering rules as SQLite's (`persistence.migrations`): `NNNN_name.sql`,
applied once each inside one transaction, never edited once shipped. The
numbers are PostgreSQL's own; they need not follow SQLite's one for one, but
each SQLite migration has its counterpart here so both stores hold the same data.
The applied numbers are rows of `schema_migrations`.
"""
