#!/usr/bin/env bash
# Where a launch's wall-clock time goes, step by step, beside bare
# bubblewrap: the kernel's own record of every program start, process
# creation and exit (perf tracepoints sched_process_exec/fork/exit, nothing
# added to holdfast) for N launches each, alternating:
#   holdfast  holdfast run -- /bin/true
#   bare      launch_floor spawn with the argv of `holdfast run --dry-run`
#             and the same seccomp program: the floor-spawn row of
#             compare-launch.sh
# and the median time of each step of each. The steps are found from which
# process starts which (not from names), so both rows split at the same
# points:
#   launcher start        exec of the launcher until it starts bubblewrap's
#                         process (holdfast: reading the settings, the plan,
#                         the cgroup)
#   before bwrap runs     that process until it has executed bubblewrap
#                         (holdfast: the cgroup join, the descriptors)
#   namespaces            bubblewrap's start until its sandbox init exists
#   mounts (+ gate)       the init building the mount tree until it starts
#                         the command's process; holdfast's start gate is
#                         split out: from its private-mount child (made as
#                         soon as the tree is built) to the command's process
#   command start         the command's process until the command runs
#                         (holdfast: its Landlock helper first)
#   command               the command itself
#   bwrap's end           the command's exit until bubblewrap has exited
#   launcher end          bubblewrap's exit until the launcher's (holdfast:
#                         the sandbox emptied, the cgroup removed, the
#                         changes scanned, the record written)
#
#   bench/launch-timeline.sh [N]          (default 60; root, perf; build first)
#   HOLDFAST=OTHER/holdfast ...           another build's holdfast
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-60}
build=${BUILD_DIR:-build}
holdfast=${HOLDFAST:-$PWD/$build/cli/holdfast}
floor=$PWD/$build/bench/launch_floor

if ! command -v perf >/dev/null; then
  echo "perf is not installed (apt-get install linux-perf)" >&2
  exit 1
fi
if [[ $(id -u) != 0 ]]; then
  echo "recording the kernel's tracepoints for all processes needs root" >&2
  exit 1
fi

# shellcheck source=bench/launch-setup.sh
source bench/launch-setup.sh
bare_bwrap_argv "$holdfast" holdfast

# The alternating launches, as one program for perf to record. The bare
# row gets the seccomp program on 3 and the denied files' empty data on 10
# and up, as compare-launch.sh hands them.
redirects=""
for ((i = 1; i < ${#data_fds[@]}; i += 3)); do redirects+=" ${data_fds[$i]}</dev/null"; done
cat >"$work/launches.sh" <<EOF
for i in \$(seq $runs); do
  "$holdfast" run -- /bin/true
  "$floor" spawn "\$@" 3<"$work/filter-holdfast.bpf" $redirects
done
EOF
perf record -q -a -o "$work/perf.data" \
  -e sched:sched_process_exec,sched:sched_process_fork,sched:sched_process_exit \
  -- bash "$work/launches.sh" "${argv[@]}"
perf script -i "$work/perf.data" -F pid,time,event,trace --ns 2>/dev/null >"$work/events.txt"

python3 - "$work/events.txt" "$holdfast" "$floor" <<'PY'
import re, statistics, sys
events_file, holdfast, floor = sys.argv[1:]
line_re = re.compile(r"^\s*(\d+)\s+([\d.]+):\s+sched:(\S+):\s*(.*)$")
events = []
for line in open(events_file):
    m = line_re.match(line)
    if m:
        events.append((float(m.group(2)) * 1000, int(m.group(1)), m.group(3), m.group(4)))

def field(text, name):
    m = re.search(r"\b" + name + r"=(\S+)", text)
    return m.group(1) if m else None

# Each launch: the launcher's exec up to its exit, with the processes it
# started (and theirs) by parent.
launches = []
open_launches = {}
for t, pid, kind, text in events:
    if kind == "sched_process_exec" and field(text, "filename") in (holdfast, floor):
        open_launches[pid] = {"kind": "holdfast" if field(text, "filename") == holdfast else "bare",
                              "t0": t, "root": pid, "parent": {}, "forks": [], "execs": [],
                              "exits": {}}
        continue
    for launch in open_launches.values():
        family = {launch["root"], *launch["parent"]}
        if kind == "sched_process_fork" and int(field(text, "pid")) in family:
            child, parent = int(field(text, "child_pid")), int(field(text, "pid"))
            launch["parent"][child] = parent
            launch["forks"].append((t, parent, child))
        elif kind == "sched_process_exec" and pid in family:
            launch["execs"].append((t, pid, field(text, "filename")))
        elif kind == "sched_process_exit" and pid in family:
            launch["exits"].setdefault(pid, t)
    if kind == "sched_process_exit" and pid in open_launches:
        launches.append(open_launches.pop(pid))

def steps(launch):
    root, t0 = launch["root"], launch["t0"]
    children = lambda p: [(t, c) for t, parent, c in launch["forks"] if parent == p]
    bwrap_spawn, bwrap = children(root)[0]
    bwrap_exec = next(t for t, p, f in launch["execs"] if p == bwrap)
    init_fork, init = children(bwrap)[0]
    command_fork, command = children(init)[0]
    command_execs = [t for t, p, f in launch["execs"] if p == command]
    gate = [t for t, c in children(root)[1:] if t > init_fork]
    last_bwrap_exit = max(launch["exits"][bwrap], launch["exits"].get(init, 0))
    out = {
        "launcher start": bwrap_spawn - t0,
        "before bwrap runs": bwrap_exec - bwrap_spawn,
        "namespaces": init_fork - bwrap_exec,
    }
    if gate:
        out["mounts"] = gate[0] - init_fork
        out["start gate"] = command_fork - gate[0]
    else:
        out["mounts"] = command_fork - init_fork
        out["start gate"] = 0.0
    out["command start"] = command_execs[-1] - command_fork
    out["command"] = launch["exits"][command] - command_execs[-1]
    out["bwrap's end"] = last_bwrap_exit - launch["exits"][command]
    out["launcher end"] = launch["exits"][root] - last_bwrap_exit
    out["whole"] = launch["exits"][root] - t0
    return out

rows = {"holdfast": [], "bare": []}
skipped = 0
for launch in launches:
    try:
        rows[launch["kind"]].append(steps(launch))
    except (IndexError, KeyError, StopIteration):
        skipped += 1  # a launch perf lost an event of
names = list(rows["holdfast"][0]) if rows["holdfast"] else []
print(f"median ms of {len(rows['holdfast'])} holdfast launches and {len(rows['bare'])} bare "
      f"ones (floor-spawn){f', {skipped} with a lost event left out' if skipped else ''}")
print(f"  {'step':20} {'holdfast':>9} {'bare':>9} {'difference':>11}")
for name in names:
    h = statistics.median(r[name] for r in rows["holdfast"])
    b = statistics.median(r[name] for r in rows["bare"])
    print(f"  {name:20} {h:9.2f} {b:9.2f} {h - b:+11.2f}")
PY
