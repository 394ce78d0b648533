#!/usr/bin/env bash
# Whole-process comparison of a confined start, alternating runs:
#   holdfast  holdfast run -- /bin/true
#   bwrap     bare bubblewrap with the exact argv of `holdfast run --dry-run`
#             and the same seccomp program (on fd 3)
#   floor-exec   bare bwrap started through a static program that only
#                exec()s it: what one more program start costs here
#   floor-spawn  bare bwrap started through a static program that spawns it
#                and waits: the least any supervising launcher can cost
#   floor-bounded  floor-spawn started in a pids and a memory cgroup made
#                for it and removed after (cgroup v1 hosts only): the
#                least a launcher that bounds the sandbox as a whole costs
#   floor-protected  floor-bounded plus the start gate's kernel steps (the
#                seccomp program through the gate's pipe, the sandbox's
#                mounts made private and its mount table read while
#                bubblewrap waits) and the Landlock helper in front of the
#                command: every step the sandbox issues added, at the
#                kernel's price, with nothing read or planned (cgroup v1)
#   library-once one start through the launch library in a static program
#                of its own (bench/launch_once.cpp): floor-spawn plus the
#                work every launch must do (snapshot, plan, start gate,
#                record), without holdfast's command line
#   true      plain /bin/true
# Prints medians and each command's paired ratio to bare bwrap, then the
# paired differences in ms: holdfast's own work is its distance from
# floor-protected (or floor-spawn where there is no cgroup v1).
#
#   bench/compare-launch.sh [ROUNDS]          (default 300; build first)
#   GAP_MS=500 bench/compare-launch.sh 100    each run after a quiet 500 ms,
#                                             as an agent's launches come
#   HOLDFAST=OTHER/holdfast ...               another build's holdfast
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-300}
build=${BUILD_DIR:-build}
holdfast=${HOLDFAST:-$PWD/$build/cli/holdfast}
compare=$PWD/$build/bench/launch_compare
floor=$PWD/$build/bench/launch_floor
once=$PWD/$build/bench/launch_once
helper=$PWD/$build/launcher/landlock/holdfast-landlock
tree_holdfast=$PWD/$build/cli/holdfast  # for the kernel's Landlock ABI, whichever build is measured

# shellcheck source=bench/launch-setup.sh
source bench/launch-setup.sh

# The argv holdfast would run, as bare bubblewrap (launch-setup.sh).
bare_bwrap_argv "$holdfast" holdfast

# floor-bounded on a cgroup v1 host: its cgroups go below the caller's own
# pids and memory cgroups, where holdfast run puts a launch's.
bounded=()
own_cgroup() { sed -n "s/^[0-9]*:$1:\(.*\)/\1/p" /proc/self/cgroup; }
if [[ -f /sys/fs/cgroup/pids/cgroup.procs && -f /sys/fs/cgroup/memory/cgroup.procs ]]; then
  parents=("/sys/fs/cgroup/pids$(own_cgroup pids)" "/sys/fs/cgroup/memory$(own_cgroup memory)")
  bounded=(--name floor-bounded --fd3 "$work/filter-holdfast.bpf" "${data_fds[@]}" -- "$floor" spawn-bounded
    "${parents[@]}" "${argv[@]}" \;)
  # The helper as a launch runs it (on descriptor 9, as holdfast's memfd is
  # on one), with the rules it adds inside itself: on /dev, /dev/shm, /proc
  # and /tmp, which the sandbox makes, and one on / standing for the host's
  # rules, which holdfast adds beside bubblewrap (off the launch's path).
  abi=$("$tree_holdfast" run --explain -- /bin/true | sed -n 's/^landlock: ABI \([0-9]*\).*/\1/p')
  last=$((${#argv[@]} - 1))
  helped=("${argv[@]:0:last}" /proc/self/fd/9 --abi "${abi:-0}" --beneath xrl /
    --beneath xwrli /dev --beneath xwrleuDRSFYfti /dev/shm --beneath xrl /proc
    --beneath xwrleuDRSFYfti /tmp -- "${argv[last]}")
  bounded+=(--name floor-protected --fd3 "$work/filter-holdfast.bpf" "${data_fds[@]}" --fd 9 "$helper"
    -- "$floor" spawn-protected "${parents[@]}" "${helped[@]}" \;)
else
  echo "no cgroup v1 pids and memory hierarchies here: no floor-bounded row" >&2
fi

"$compare" --rounds "$rounds" --gap "${GAP_MS:-0}" --baseline bwrap --json "$work/../holdfast-compare.json" \
  --name holdfast -- "$holdfast" run -- /bin/true \; \
  --name bwrap --fd3 "$work/filter-holdfast.bpf" "${data_fds[@]}" -- "${argv[@]}" \; \
  --name floor-exec --fd3 "$work/filter-holdfast.bpf" "${data_fds[@]}" -- "$floor" exec "${argv[@]}" \; \
  --name floor-spawn --fd3 "$work/filter-holdfast.bpf" "${data_fds[@]}" -- "$floor" spawn "${argv[@]}" \; \
  "${bounded[@]}" \
  --name library-once -- "$once" /bin/true \; \
  --name true -- /bin/true \;
echo "raw samples: /tmp/holdfast-compare.json"

# In milliseconds, the median of each round's difference (the rounds
# alternate, so each difference is between runs a moment apart): holdfast's
# own work above the floors, and what the protections cost at the kernel's
# price.
python3 - "$work/../holdfast-compare.json" <<'PY'
import json, statistics, sys
samples = {c["name"]: c["samples_ms"] for c in json.load(open(sys.argv[1]))["commands"]}
pairs = [("holdfast", "floor-spawn", "holdfast's own work and its protections"),
         ("holdfast", "floor-protected", "holdfast's own work (for a build with the protections)"),
         ("floor-protected", "floor-spawn", "the protections at the kernel's price")]
print("paired differences, median of the rounds' (ms)")
for a, b, what in pairs:
    if a in samples and b in samples:
        d = statistics.median(x - y for x, y in zip(samples[a], samples[b]))
        print(f"  {a} - {b}: {d:6.2f}   {what}")
PY
