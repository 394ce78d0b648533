#!/bin/sh
# A long-running writer for --writer-daemon with the seeds' save: for each
# document (a line on stdin) write NAME.tmp, rename NAME to NAME.orig, hold
# the gap for 5 ms, rename NAME.tmp to NAME; then say "ok".
set -eu
settings=$HOLDFAST_RACE_SETTINGS_FILE
while IFS= read -r document; do
  printf '%s\n' "$document" > "$settings.tmp"
  mv "$settings" "$settings.orig"
  sleep 0.005
  mv "$settings.tmp" "$settings"
  echo ok
done
