#!/bin/sh
# A dated backup of the tractor-host database into FOLDER, keeping the newest KEEP (default 14).
# PostgreSQL ($TRACTOR_DATABASE_URL set): pg_dump's custom format, tractor-<UTC time>.dump.
# SQLite: `tractor-host db backup --keep`, tractor-<UTC time>.sqlite3 (safe while the bot runs).
# Put the PostgreSQL password in ~/.pgpass or $PGPASSWORD rather than in the URL: pg_dump's
# command line is visible to every user of the machine.
set -eu
folder=${1:?usage: backup.sh FOLDER [KEEP]}
keep=${2:-14}
mkdir -p "$folder"
if [ -n "${TRACTOR_DATABASE_URL:-}" ]; then
    stamp=$(date -u +%Y%m%d-%H%M%S)
    pg_dump --format=custom --file="$folder/tractor-$stamp.dump.partial" "$TRACTOR_DATABASE_URL"
    mv "$folder/tractor-$stamp.dump.partial" "$folder/tractor-$stamp.dump"
    ls -1 "$folder"/tractor-*.dump | sort | head -n -"$keep" | while read -r old; do
        rm -- "$old" && echo "deleted the older backup $old"
    done
    echo "backed up to $folder/tractor-$stamp.dump"
else
    tractor-host db backup --keep "$keep" "$folder"
fi
