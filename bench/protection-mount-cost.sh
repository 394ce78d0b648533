#!/usr/bin/env bash
# bwrap alone, the argv before and after the fresh /dev and /proc hardening,
# alternating; median wall time of N runs each.
set -euo pipefail
runs=${1:-200}
base=(bwrap --unshare-user --unshare-pid --unshare-ipc --unshare-uts --unshare-cgroup-try --unshare-net
      --new-session --die-with-parent --cap-drop ALL --disable-userns --clearenv --setenv PATH /usr/bin:/bin
      --ro-bind / /)
old=("${base[@]}" --dev /dev --proc /proc --tmpfs /tmp -- /bin/true)
new=("${base[@]}" --dev /dev --size 1073741824 --tmpfs /dev/shm --remount-ro /dev --proc /proc --remount-ro /proc
     --size 1073741824 --tmpfs /tmp -- /bin/true)
for i in $(seq "$runs"); do
  for which in old new; do
    declare -n argv=$which
    s=$(date +%s%N); env -i "${argv[@]}"; e=$(date +%s%N)
    echo $(( (e - s) / 1000 )) >> /tmp/hf-cost-$which
  done
done
for which in old new; do
  sort -n /tmp/hf-cost-$which | awk -v w=$which '{a[NR]=$1} END {printf "%s median %.2f ms (n=%d)\n", w, a[int((NR+1)/2)]/1000, NR}'
  rm -f /tmp/hf-cost-$which
done
