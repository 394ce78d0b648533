#!/usr/bin/env bash
# A PNG of the settings page that `holdfast serve` serves, on demo settings
# in a temp directory (nothing of yours is read or changed), for the README.
#
#   scripts/screenshot-page.sh [OUT.png]        # default: docs/page.png
#
# Needs a build (build/cli/holdfast, or HOLDFAST_BINARY=...) and the
# packages chromium, chromium-driver and python3-selenium (scripts/setup.sh).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=$(realpath -m "${1:-$root/docs/page.png}")
export HOLDFAST_BINARY=${HOLDFAST_BINARY:-$root/build/cli/holdfast}
if [[ ! -x $HOLDFAST_BINARY ]]; then
  echo "screenshot-page: no holdfast at $HOLDFAST_BINARY; build first (scripts/setup.sh)" >&2
  exit 1
fi
# Debian's python3, where python3-selenium is installed.
python=/usr/bin/python3
[[ -x $python ]] || python=python3
PYTHONDONTWRITEBYTECODE=1 exec "$python" "$root/tests/browser/screenshot_page.py" "$out"
