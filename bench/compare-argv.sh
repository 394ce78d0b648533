#!/usr/bin/env bash
# What another build's sandbox costs bubblewrap itself: bare bwrap started
# with the argv of this build's `holdfast run --dry-run` and with the argv
# of OTHER's, alternately, in the same settings and workspace (each with
# its own build's seccomp program). compare-launch.sh divides by bare
# bubblewrap with the same argv, so mount operations a build adds raise
# both sides there; this shows them.
#
#   bench/compare-argv.sh OTHER/holdfast [ROUNDS]     (default 300; build first)
set -euo pipefail
cd "$(dirname "$0")/.."
other=${1:?usage: bench/compare-argv.sh OTHER/holdfast [ROUNDS]}
rounds=${2:-300}
build=${BUILD_DIR:-build}
holdfast=$PWD/$build/cli/holdfast
compare=$PWD/$build/bench/launch_compare

# shellcheck source=bench/launch-setup.sh
source bench/launch-setup.sh

bare_bwrap_argv "$other" other
other_argv=("${argv[@]}")
other_fds=("${data_fds[@]}")
bare_bwrap_argv "$holdfast" this
echo "argv words: other ${#other_argv[@]}, this build ${#argv[@]}"
"$compare" --rounds "$rounds" --baseline bwrap-other \
  --name bwrap-other --fd3 "$work/filter-other.bpf" "${other_fds[@]}" -- "${other_argv[@]}" \; \
  --name bwrap-this --fd3 "$work/filter-this.bpf" "${data_fds[@]}" -- "${argv[@]}" \;
