#!/bin/sh
# A writer for --writer-cmd that tears its saves: it rewrites the settings
# file in place, and its first save and every third after (1, 4, 7, ...)
# stop half-way through the document yet exit 0, as a writer that lost the
# rest of its buffer would. The first one is torn so that a finding exists
# before the campaign's trials start (it waits for the writer's first save),
# however short the phase.
#   tearing-writer.sh DOCUMENT SETTINGS
set -eu
document=$1
settings=$2
if [ $((HOLDFAST_RACE_SAVE % 3)) -eq 1 ]; then
  size=$(wc -c < "$document")
  head -c $((size / 2)) "$document" > "$settings"
else
  cat "$document" > "$settings"
fi
