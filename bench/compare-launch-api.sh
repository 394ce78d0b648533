#!/usr/bin/env bash
# A confined start through the library (launcher::launch) against the same
# process spawning bare bubblewrap with the same argv and seccomp program,
# alternating (bench/launch_api.cpp). The settings and workspace are those of
# bench/compare-launch.sh.
#
#   bench/compare-launch-api.sh [ROUNDS]      (default 300; build first)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-300}
build=${BUILD_DIR:-build}
holdfast=$PWD/$build/cli/holdfast
api=$PWD/$build/bench/launch_api

# shellcheck source=bench/launch-setup.sh
source bench/launch-setup.sh
"$api" "$rounds"
