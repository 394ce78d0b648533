#!/usr/bin/env bash
# Writes the Debian changelog of the package (gzipped) from CHANGELOG.md:
# the package records the same releases, and building a version that
# CHANGELOG.md has no entry for fails, so no release ships undescribed.
#
#   debian-changelog.sh VERSION CHANGELOG.md MAINTAINER OUT.gz
#
# CHANGELOG.md's entries start "## VERSION - YYYY-MM-DD"; the Debian entry
# carries that date and points at the full text.
set -euo pipefail
version=$1
changelog=$2
maintainer=$3
out=$4
heading=$(grep -m1 -E "^## \\[?${version//./\\.}\\]? - [0-9]{4}-[0-9]{2}-[0-9]{2}" "$changelog" || true)
if [ -z "$heading" ]; then
  echo "debian-changelog: $changelog has no entry \"## $version - YYYY-MM-DD\"; add one" \
    "describing this release before packaging it" >&2
  exit 1
fi
date=$(date -u -R -d "${heading##* - } 12:00")
{
  echo "holdfast ($version) unstable; urgency=medium"
  echo
  echo "  * Release $version. What it contains and what changed:"
  echo "    /usr/share/doc/holdfast/CHANGELOG.md.gz"
  echo
  echo " -- $maintainer  $date"
} | gzip -9n > "$out"
