#!/usr/bin/env bash
# Long race campaigns (by time), one shard of several, and the HTML report.
#
#   SECONDS_PER_PHASE=600 SHARD=1/1 OUT=race-results bash scripts/race-campaign.sh [BUILD_DIR]
#
# In each mode (launch, snapshot, gatekeeper) two campaigns run, each phase
# for SECONDS_PER_PHASE: the file writers (WRITERS: controls, holdfast vs
# each writer, holdfast vs mixed), then the writers that swap directories,
# pause with an unlisted backup name or flip symlinks (GAP_WRITERS: controls
# and holdfast vs each writer alone; a writer that pauses cannot finish a
# save while another replaces its directory, so they are not mixed). Then a
# crash campaign of CRASH_ROUNDS rounds per kill point. Results go to
# OUT/{launch,snapshot,gatekeeper}{,-gaps}-shard-I.json and
# OUT/crash-shard-I.json; with several machines, give each its SHARD=I/N,
# collect the JSON files in one OUT, and run
#   holdfast-race report OUT/*.json --html OUT/report.html
# This script writes that report from whatever is in OUT.
#
# Environment: SECONDS_PER_PHASE (600), SHARD (1/1), OUT (race-results),
# LAUNCHERS (2), WRITERS (holdfast-race's default spec), GAP_WRITERS (below),
# MODES ("launch snapshot gatekeeper"), SEED (1), CRASH_ROUNDS (1000).
# Exit codes: 0 pass; else the worst verdict: 1 violations, 3 insensitive
# control, 4 harness errors, 2 usage.
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
race="$build/race-harness/holdfast-race"
seconds=${SECONDS_PER_PHASE:-600}
shard=${SHARD:-1/1}
out=${OUT:-race-results}
launchers=${LAUNCHERS:-2}
seed=${SEED:-1}
rounds=${CRASH_ROUNDS:-1000}
modes=${MODES:-launch snapshot gatekeeper}
gap_writers=${GAP_WRITERS:-dir-swap:100@1ms,dir-exchange:100,rename-prev:4,symlink-flip:100@1ms,symlink-dangle:4@100ms}
index=${shard%%/*}
mkdir -p "$out"
writers=()
[ -n "${WRITERS:-}" ] && writers=(--writers "$WRITERS")

worst=0
note() { [ "$1" -ne 0 ] && { [ "$worst" -eq 0 ] || [ "$1" -eq 1 ]; } && worst=$1; return 0; }

for mode in $modes; do
  echo "== race: $mode mode, $seconds s per phase, shard $shard"
  "$race" campaign --mode "$mode" --seconds "$seconds" --shard "$shard" --seed "$seed" \
    --launchers "$launchers" "${writers[@]}" --json "$out/$mode-shard-$index.json"
  note $?
  echo "== race: $mode mode, directory, pausing and symlink writers, $seconds s per phase"
  "$race" campaign --mode "$mode" --seconds "$seconds" --shard "$shard" --seed "$seed" \
    --launchers "$launchers" --skip-mixed --writers "$gap_writers" \
    --json "$out/$mode-gaps-shard-$index.json"
  note $?
done
echo "== race: crash, $rounds rounds per kill point, shard $shard"
"$race" crash --rounds "$rounds" --shard "$shard" --seed "$seed" \
  --json "$out/crash-shard-$index.json"
note $?
echo "== race: report of everything in $out"
"$race" report "$out"/*.json --html "$out/report.html"
note $?
echo "race: report written to $out/report.html"
exit "$worst"
