#!/usr/bin/env bash
# Where the launcher's own time goes, per launch:
#   * the median of `holdfast run --report` timings over N launches:
#     snapshot, policy + host facts + admission + argv, seccomp program,
#     then the start gate's mount check and bubblewrap's own milestones,
#     and the cgroup's and Landlock's own steps;
#   * with perf installed, the CPU time and page faults of the holdfast
#     process alone (perf stat --no-inherit, N runs each) for a trivial
#     static program (launch_floor printing its usage), `holdfast run`
#     refusing before any work (no command), `--dry-run`, and a whole run.
#
#   bench/launch-breakdown.sh [N]          (default 51; build first)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-51}
build=${BUILD_DIR:-build}
holdfast=$PWD/$build/cli/holdfast
floor=$PWD/$build/bench/launch_floor

# shellcheck source=bench/launch-setup.sh
source bench/launch-setup.sh

for i in $(seq "$runs"); do
  "$holdfast" run --report "$work/report-$i.json" -- /bin/true
done
python3 - "$work" "$runs" <<'PY'
import json, statistics, sys
work, runs = sys.argv[1], int(sys.argv[2])
timings = [json.load(open(f"{work}/report-{i}.json"))["timings_us"] for i in range(1, runs + 1)]
print(f"median of {runs} launches (--report timings_us)")
for key in ["snapshot", "policy_and_argv", "seccomp"]:
    print(f"  {key:16} {statistics.median(t[key] for t in timings) / 1000:.2f} ms")
plan = statistics.median(t["snapshot"] + t["policy_and_argv"] + t["seccomp"] for t in timings)
print(f"  {'all three':16} {plan / 1000:.2f} ms")
# After the plan: bubblewrap builds the sandbox and waits at the start gate
# while holdfast checks every mount (mount_check); sandbox_up is the time
# from bubblewrap's start to the sandbox's pid, bwrap_exit to its end.
for key in ["mount_check", "sandbox_up", "bwrap_exit"]:
    print(f"  {key:16} {statistics.median(t[key] for t in timings) / 1000:.2f} ms")
# The protections' own steps: the cgroup made before bubblewrap starts,
# the Landlock plan and its helper's memfd, and the Landlock rules on host
# files added while bubblewrap builds (overlapped, so off the launch's path
# unless they outlast it).
for key in ["cgroup", "landlock", "landlock_host_rules"]:
    print(f"  {key:19} {statistics.median(t[key] for t in timings) / 1000:.2f} ms")
PY

if ! command -v perf >/dev/null; then
  echo "perf not installed: CPU breakdown skipped (apt-get install linux-perf)"
  exit 0
fi
echo "CPU of the process alone (perf stat --no-inherit, $runs runs each)"
cpu() {
  local name=$1
  shift
  perf stat --no-inherit -x, -e task-clock,page-faults -r "$runs" "$@" 2>&1 >/dev/null |
    awk -F, -v name="$name" '$3 == "task-clock" {ms = $1} $3 == "page-faults" {pf = $1}
      END {printf "  %-34s %6.2f ms CPU %5d page faults\n", name, ms, pf}'
}
cpu "trivial static program" "$floor" || true
cpu "holdfast run, refusing at once" "$holdfast" run || true
cpu "holdfast run --dry-run" "$holdfast" run --dry-run -- /bin/true
cpu "holdfast run -- /bin/true" "$holdfast" run -- /bin/true
