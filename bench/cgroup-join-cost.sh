#!/usr/bin/env bash
# What joining a cgroup costs a launch that follows a quiet moment (cgroup
# v1, as root; launcher/run/cgroup.hpp says why it matters):
#   * the join alone: a forked child writes "0" to the join file of fresh
#     pids and memory cgroups under the caller's own, after GAP seconds of
#     quiet, through cgroup.procs and through tasks (medians of N);
#   * a whole launch: `holdfast run --report` N times, GAP seconds apart,
#     the median of timings_us.sandbox_up (bubblewrap's start to the
#     sandbox's pid: the join happens inside it).
#
#   bench/cgroup-join-cost.sh [N] [GAP]     (default 12 and 0.5; build first)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-12}
gap=${2:-0.5}
build=${BUILD_DIR:-build}
holdfast=${HOLDFAST:-$PWD/$build/cli/holdfast}

python3 - "$runs" "$gap" <<'PY'
import os, statistics, sys, time
runs, gap = int(sys.argv[1]), float(sys.argv[2])
own = {}
for line in open('/proc/self/cgroup'):
    _, controllers, path = line.rstrip('\n').split(':', 2)
    for c in controllers.split(','):
        own[c] = path
dirs = [f'/sys/fs/cgroup/{c}{own[c]}/holdfast-join-bench-{os.getpid()}' for c in ('pids', 'memory')]
for name in ('cgroup.procs', 'tasks'):
    samples = []
    for _ in range(runs):
        time.sleep(gap)
        for d in dirs: os.mkdir(d)
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            fds = [os.open(f'{d}/{name}', os.O_WRONLY) for d in dirs]
            start = time.perf_counter_ns()
            for fd in fds: os.write(fd, b'0')
            os.write(w, str(time.perf_counter_ns() - start).encode())
            os._exit(0)
        os.waitpid(pid, 0)
        samples.append(int(os.read(r, 64)) / 1e6)
        os.close(r); os.close(w)
        for d in dirs: os.rmdir(d)
    print(f"join through {name:13} after {gap} s of quiet: median {statistics.median(samples):.3f} ms "
          f"(min {min(samples):.3f}, max {max(samples):.3f}, {runs} joins)")
PY

# shellcheck source=bench/launch-setup.sh
source bench/launch-setup.sh
for i in $(seq "$runs"); do
  sleep "$gap"
  "$holdfast" run --report "$work/report-$i.json" -- /bin/true
done
python3 - "$work" "$runs" "$gap" <<'PY'
import json, statistics, sys
work, runs, gap = sys.argv[1], int(sys.argv[2]), sys.argv[3]
up = [json.load(open(f"{work}/report-{i}.json"))["timings_us"]["sandbox_up"] / 1000
      for i in range(1, runs + 1)]
print(f"holdfast run, launches {gap} s apart: sandbox_up median {statistics.median(up):.2f} ms "
      f"(min {min(up):.2f}, max {max(up):.2f}, {runs} launches)")
PY
