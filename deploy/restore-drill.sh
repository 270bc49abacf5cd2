#!/bin/sh
# The restore drill: the newest backup in FOLDER restored into a fresh database, then checked
# (`tractor-host db check`: integrity, then a replay of every unfinished match).
#   SQLite:      restore-drill.sh FOLDER SCRATCH_FILE        (SCRATCH_FILE must not exist)
#   PostgreSQL:  restore-drill.sh FOLDER SCRATCH_URL         (an empty database, e.g. from createdb)
# Exit status 0 when the copy restores and checks clean. To restore for real, stop the bot,
# do the same into the live file or database, and start it again.
set -eu
folder=${1:?usage: restore-drill.sh FOLDER SCRATCH}
scratch=${2:?usage: restore-drill.sh FOLDER SCRATCH}
newest=$(ls -1 "$folder"/tractor-*.dump "$folder"/tractor-*.sqlite3 2>/dev/null | sort | tail -n 1)
if [ -z "$newest" ]; then
    echo "no backup in $folder" >&2
    exit 1
fi
echo "restoring $newest"
case "$newest" in
    *.dump)
        pg_restore --no-owner --exit-on-error --dbname="$scratch" "$newest"
        ;;
    *.sqlite3)
        if [ -e "$scratch" ]; then
            echo "$scratch exists: the drill restores into a fresh file" >&2
            exit 1
        fi
        cp -- "$newest" "$scratch"
        ;;
esac
exec tractor-host db check --db "$scratch"
