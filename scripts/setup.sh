#!/usr/bin/env bash
# The README's first command: installs every dependency from Debian packages
# (as root), then configures and builds holdfast into ./build.
#
#   scripts/setup.sh                 # release build with debug info
#   BUILD_DIR=build-asan CMAKE_ARGS="-DHOLDFAST_SANITIZE=ON" scripts/setup.sh
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh

build_dir=${BUILD_DIR:-build}
# shellcheck disable=SC2086 # CMAKE_ARGS is a list of arguments
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo ${CMAKE_ARGS:-}
cmake --build "$build_dir" --parallel "$(nproc)"
echo "setup: built into $build_dir; run the tests with: ctest --test-dir $build_dir --output-on-failure"
