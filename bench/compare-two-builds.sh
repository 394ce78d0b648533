#!/usr/bin/env bash
# Interleaved launches of two holdfast binaries with --report; medians of the
# report's timings and of the wall time of the whole `holdfast run`.
#   bench/compare-two-builds.sh OLD-HOLDFAST NEW-HOLDFAST [N] [POLICY-JSON]
# (default: 41 rounds, the read-only policy of bench/launch-setup.sh)
set -euo pipefail
old=$1 new=$2 runs=${3:-41}
policy=${4:-'{"filesystem": "read-only", "network": "closed"}'}
work=$(mktemp -d /var/tmp/hf-measure.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/workspace" "$work/etc" "$work/config"
chmod 755 "$work"
export HOLDFAST_SYSTEM_DIR=$work/etc HOLDFAST_CONFIG_DIR=$work/config XDG_STATE_HOME=$work/state
"$new" settings set tools.executionSandbox "$policy" >/dev/null
cd "$work/workspace"
sleep 6
for i in $(seq "$runs"); do
  for which in old new; do
    bin=${!which}
    s=$(date +%s%N)
    "$bin" run --report "$work/$which-$i.json" -- /bin/true
    e=$(date +%s%N)
    echo $(( (e - s) / 1000 )) > "$work/$which-$i.wall"
  done
done
python3 - "$work" "$runs" <<'PY'
import json, statistics, sys
work, runs = sys.argv[1], int(sys.argv[2])
for which in ["old", "new"]:
    t = [json.load(open(f"{work}/{which}-{i}.json"))["timings_us"] for i in range(1, runs + 1)]
    wall = [int(open(f"{work}/{which}-{i}.wall").read()) for i in range(1, runs + 1)]
    row = {k: statistics.median(x.get(k, 0) for x in t) / 1000 for k in ["snapshot", "policy_and_argv", "seccomp", "cgroup", "landlock", "landlock_host_rules", "mount_check", "sandbox_up", "bwrap_exit"]}
    row["wall"] = statistics.median(wall) / 1000
    print(which, " ".join(f"{k}={v:.2f}ms" for k, v in row.items()))
PY
