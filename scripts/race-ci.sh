#!/usr/bin/env bash
# The short race campaign CI runs: about 2 minutes on 2 cores, positive
# controls included. Fails on any violation, any positive control that saw
# nothing, or a harness error; and when the naive launcher example, raced
# as a user's launcher, is not caught.
#
#   bash scripts/race-ci.sh [BUILD_DIR]        (default: build)
#
# Every campaign starts with its naive controls: the naive reader against
# each writer that leaves a gap (rename-backup's when none does). A control
# that finds no violation makes its campaign "insensitive" (exit 3), so
# this script fails when any control finds nothing. Every writer below
# that leaves a gap holds it open for a pause, so that its control, which
# runs it back to back, sees the gap nearly every time even on a loaded
# machine; the rates keep the gaps to a fraction of the time in holdfast's
# phases.
#
# Exit codes: 0 pass; otherwise the worst holdfast-race verdict:
# 1 violations, 3 insensitive control, 4 harness errors (2: usage).
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
race="$build/race-harness/holdfast-race"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

summary=()
worst=0
# Violations outrank every other failure; otherwise the first failure stays.
note() {
  summary+=("$1 exit $2")
  if [ "$2" -ne 0 ] && { [ "$worst" -eq 0 ] || [ "$2" -eq 1 ]; }; then worst=$2; fi
}
campaign() {
  local name=$1
  shift
  "$race" campaign "$@" --json "$out/$name.json"
  note "$name" $?
}

echo "== race: snapshot mode — naive controls, then holdfast's reader vs each writer and mixed"
campaign snapshot --mode snapshot --starts 20000 --control-starts 200000

# The writers that swap the whole directory, pause between renames with a
# backup name on no list, or flip a symlink. Each alone (a writer that
# pauses cannot finish a save while another replaces its directory), for a
# fixed time: a reader that waits out a 100 ms gap takes that long.
gap_writers=dir-swap:100@1ms,dir-exchange,rename-prev:4,symlink-flip:4@100ms,symlink-dangle:4@100ms
echo "== race: snapshot mode — directory swap and exchange, rename-prev, symlink flip and dangle"
campaign snapshot-gaps --mode snapshot --skip-mixed --seconds 1.5 --writers "$gap_writers"

echo "== race: gatekeeper mode — holdfast check of a denied path while the user scope is rewritten"
campaign gatekeeper --mode gatekeeper --skip-mixed --seconds 1.5 \
  --writers rename-backup,rename-prev:4,dir-swap:4@100ms,symlink-dangle:4@100ms

echo "== race: launch mode — real holdfast run starts against mixed writers"
campaign launch --mode launch --mixed-only --starts 150

echo "== race: launch mode — real starts against the directory swap, rename-prev, dangling link"
campaign launch-gaps --mode launch --skip-mixed --seconds 1.5 \
  --writers dir-swap:20@2ms,rename-prev:4,symlink-dangle:4@100ms

# Ordinary saves and everyday activity (issue 21): the same bytes saved
# again, files churning beside every directory on the way (no system
# directory, workspaces without .holdfast/), holdfast's state directory
# removed before every save, and the workspace file (where the deny rule is
# alone) renamed away, deleted and recreated, or swapped with its
# directory. Violations must be 0; the tables give holdfast's refusal rate
# (refused%) beside them.
saves_writers=same-content,churn,state-loss:4
workspace_writers=workspace-rename-prev:4,workspace-delete-recreate:4,workspace-dir-swap:4
echo "== race: snapshot mode — same-content saves, churn, state-directory loss, workspace writers"
campaign saves-snapshot --mode snapshot --skip-mixed --seconds 1.5 \
  --writers "$saves_writers,$workspace_writers"

echo "== race: gatekeeper mode — the same writers, holdfast check of the denied path"
campaign saves-gatekeeper --mode gatekeeper --skip-mixed --seconds 1.5 \
  --writers "$saves_writers,$workspace_writers"

# (rename-prev gives this campaign a control that fires: the other two
# leave no gap for a naive launcher to fall into.)
echo "== race: launch mode — same-content saves at 10 Hz and churn during real starts"
campaign saves-launch --mode launch --skip-mixed --starts 40 \
  --writers same-content:10,churn,rename-prev:4

# A user's launcher given as a command (holdfast-race's contract): the
# seeds' writer holding its gap for 50 ms at 20 saves a second, against
# the naive launcher example, which must be caught (exit 1, with evidence),
# and against holdfast run, which must pass. Each writes JUnit, checked
# against the schema CI systems read.
# (A launcher command runs in the trial's workspace: absolute paths.)
seeds_writer=(--mode launch --writers rename-backup:20@50ms --starts 24)
echo "== race: your own launcher — the naive launcher example (must be caught)"
mkdir -p "$out/expected-violations"
"$race" campaign "${seeds_writer[@]}" --launcher-cmd "$PWD/race-harness/examples/naive-launcher {probe}" \
  --json "$out/expected-violations/naive-launcher.json" --junit "$out/naive-launcher.xml" \
  --evidence "$out/evidence"
code=$?
if [ "$code" -eq 1 ]; then
  note naive-launcher-caught 0
else
  echo "race: the naive launcher example was not caught (exit $code, expected 1: violations)"
  note naive-launcher-caught 4
fi
echo "== race: your own launcher — holdfast run under the same campaign"
campaign holdfast-run-as-launcher "${seeds_writer[@]}" --junit "$out/holdfast-run.xml" \
  --launcher-cmd "$(realpath "$build")/cli/holdfast run --workspace {workspace} -- {probe}"
xmllint --noout --schema tests/race/junit.xsd "$out/naive-launcher.xml" "$out/holdfast-run.xml"
note junit-schema $?

echo "== race: crash — writers killed at every step and at random points"
"$race" crash --rounds 20 --json "$out/crash.json"
note crash $?

echo "== race: merged"
"$race" report "$out"/*.json > /dev/null
note report $?

echo "race: ${summary[*]}"
exit "$worst"
