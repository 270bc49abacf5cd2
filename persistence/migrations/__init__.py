"""Numbered schema migrations, applied in order by `persistence.migrate`.

Each file is `NNNN_name.sql` (four digits, then a short name). A file is
applied once, inside one transaction, and `PRAGMA user_version` records the
highest number applied. Never edit a file that has shipped: add the next
number instead (`0002_league.sql` for the league tables, and so on).
"""
