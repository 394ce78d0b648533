#!/usr/bin/env bash
# How much of the CPU the README's test command leaves idle: vmstat every
# 5 s while `ctest --parallel 2` runs (as CI runs it), averaged. .ci/run
# builds the sanitizer tree and the fuzz targets in that idle time.
#
#   bench/cpu-idle-during-tests.sh [BUILD_DIR]     (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
samples=$(mktemp)
trap 'rm -f "$samples"' EXIT
vmstat 5 > "$samples" &
sampler=$!
started=$(date +%s)
status=0
ctest --test-dir "$build" --parallel 2 > /dev/null 2>&1 || status=$?
kill "$sampler"
wait "$sampler" 2> /dev/null || true
# Columns us sy id wa are 13-16; the first two lines are headers and the
# first sample is the average since boot.
awk -v seconds=$(( $(date +%s) - started )) -v status=$status 'NR > 3 {
  us += $13; sy += $14; id += $15; wa += $16; n++ }
  END { if (n == 0) { print "no samples: the tests took under 10 s"; exit 1 }
        printf "tests: %d s (ctest exit %d); CPU %.0f%% user, %.0f%% system, %.0f%% idle, %.0f%% I/O wait (%d samples)\n",
               seconds, status, us / n, sy / n, id / n, wa / n, n }' "$samples"
