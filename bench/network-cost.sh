#!/usr/bin/env bash
# What a network allow-list costs, measured against real processes (as
# root: the server gets a network namespace of its own behind a veth pair,
# and all of it runs inside `unshare --net --mount`, so the host's network
# is untouched). See bench/network_cost.py for what each figure is.
#
#   bench/network-cost.sh [ROUNDS] [DOWNLOAD_MIB]    (defaults 100, 2048; build first)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-100}
download=${2:-2048}
holdfast=${HOLDFAST:-$PWD/${BUILD_DIR:-build}/cli/holdfast}
if [[ $(id -u) -ne 0 ]]; then
  echo "network-cost.sh: run as root (it makes network namespaces and a veth pair)" >&2
  exit 2
fi
exec unshare --net --mount --fork /usr/bin/python3 bench/network_cost.py world "$holdfast" "$rounds" "$download"
