#!/bin/sh
# A writer for --writer-cmd that tears its saves: it rewrites the settings
# file in place, and every third save stops half-way through the document
# yet exits 0, as a writer that lost the rest of its buffer would.
#   tearing-writer.sh DOCUMENT SETTINGS
set -eu
document=$1
settings=$2
if [ $((HOLDFAST_RACE_SAVE % 3)) -eq 0 ]; then
  size=$(wc -c < "$document")
  head -c $((size / 2)) "$document" > "$settings"
else
  cat "$document" > "$settings"
fi
