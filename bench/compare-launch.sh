#!/usr/bin/env bash
# Whole-process comparison of a confined start, alternating runs:
#   holdfast  holdfast run -- /bin/true
#   bwrap     bare bubblewrap with the exact argv of `holdfast run --dry-run`
#             and the same seccomp program (on fd 3)
#   floor-exec   bare bwrap started through a static program that only
#                exec()s it: what one more program start costs here
#   floor-spawn  bare bwrap started through a static program that spawns it
#                and waits: the least any supervising launcher can cost
#   true      plain /bin/true
# Prints medians and each command's paired ratio to bare bwrap. holdfast's
# own work is its distance from floor-spawn.
#
#   bench/compare-launch.sh [ROUNDS]          (default 300; build first)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-300}
build=${BUILD_DIR:-build}
holdfast=$PWD/$build/launcher/holdfast
compare=$PWD/$build/bench/launch_compare
floor=$PWD/$build/bench/launch_floor

work=$(mktemp -d /tmp/holdfast-compare.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/workspace" "$work/etc" "$work/config"
chmod 755 "$work"
export HOLDFAST_SYSTEM_DIR=$work/etc HOLDFAST_CONFIG_DIR=$work/config XDG_STATE_HOME=$work/state
# The policy every launch of the comparison uses (read-only, network closed).
"$holdfast" settings set tools.executionSandbox \
  '{"filesystem": "read-only", "network": "closed"}' >/dev/null
cd "$work/workspace"
# A missing scope file in a directory changed within the last 5 s costs a
# settle window (the snapshot's proof that no writer is mid-save). The
# directories were just made; on a real host they are old. Let them age.
sleep 6

mapfile -t argv < <("$holdfast" run --dry-run --save-seccomp "$work/filter.bpf" -- /bin/true)
# The argv names the seccomp fd holdfast used; bare bwrap gets the program on fd 3.
for i in "${!argv[@]}"; do
  if [[ ${argv[$i]} == --seccomp ]]; then argv[$((i + 1))]=3; fi
done

"$compare" --rounds "$rounds" --baseline bwrap --json "$work/../holdfast-compare.json" \
  --name holdfast -- "$holdfast" run -- /bin/true \; \
  --name bwrap --fd3 "$work/filter.bpf" -- "${argv[@]}" \; \
  --name floor-exec --fd3 "$work/filter.bpf" -- "$floor" exec "${argv[@]}" \; \
  --name floor-spawn --fd3 "$work/filter.bpf" -- "$floor" spawn "${argv[@]}" \; \
  --name true -- /bin/true \;
echo "raw samples: /tmp/holdfast-compare.json"
