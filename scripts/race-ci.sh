#!/usr/bin/env bash
# The short race campaign CI runs (issue 7): under 3 minutes on 2 cores,
# positive controls included. Fails on any violation, an insensitive control
# or a harness error.
#
#   bash scripts/race-ci.sh [BUILD_DIR]        (default: build)
#
# Exit codes: 0 pass; otherwise the worst holdfast-race verdict:
# 1 violations, 3 insensitive control, 4 harness errors (2: usage).
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
race="$build/race-harness/holdfast-race"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

echo "== race: snapshot mode — naive control, then holdfast's reader vs each writer and mixed"
"$race" campaign --mode snapshot --starts 20000 --control-starts 200000 \
  --json "$out/snapshot.json"
snapshot=$?
echo "== race: launch mode — real holdfast run starts against mixed writers"
"$race" campaign --mode launch --mixed-only --starts 150 --json "$out/launch.json"
launch=$?
echo "== race: crash — writers killed at every step and at random points"
"$race" crash --rounds 20 --json "$out/crash.json"
crash=$?
echo "== race: merged"
"$race" report "$out/snapshot.json" "$out/launch.json" "$out/crash.json" > /dev/null
report=$?
echo "race: snapshot exit $snapshot, launch exit $launch, crash exit $crash, report exit $report"
for rc in $snapshot $launch $crash $report; do
  [ "$rc" -eq 0 ] || exit "$rc"
done
