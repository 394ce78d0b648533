#!/bin/sh
# holdfast's own reader under --reader-cmd's contract: `holdfast settings
# show --effective` reads the settings through the snapshot reader (the
# harness's environment names them); the effective settings go to
# descriptor 3. When holdfast refuses (exit non-zero), so does this: 125.
#   holdfast-reader.sh HOLDFAST
set -u
effective=$("$1" settings show --effective --json) || exit 125
printf '%s' "$effective" | jq -c .effective >&"$HOLDFAST_RACE_REPORT_FD"
