#!/usr/bin/env bash
# Builds the Debian packages with CPack from a configured build directory:
#   BUILD_DIR/package/holdfast_VERSION_amd64.deb      (the executables, schema,
#                                                      man pages, completion)
#   BUILD_DIR/package/holdfast-dev_VERSION_amd64.deb  (libraries, headers,
#                                                      CMake package)
#
#   bash scripts/package.sh [BUILD_DIR]        (default: build)
#
# Builds what is not built yet first (the packages hold the same files
# `cmake --install` installs), then prints the paths of the two packages.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
if [ ! -f "$build/CPackConfig.cmake" ]; then
  echo "package: $build is not a configured build directory; run scripts/setup.sh first" >&2
  exit 1
fi
cmake --build "$build" --parallel "$(nproc)"
rm -rf "$build/package"
(cd "$build" && cpack -G DEB --config CPackConfig.cmake > package.log 2>&1) || {
  cat "$build/package.log" >&2
  echo "package: cpack failed (its output is above, and in $build/package.log)" >&2
  exit 1
}
ls "$build"/package/*.deb
