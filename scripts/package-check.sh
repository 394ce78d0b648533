#!/usr/bin/env bash
# Builds the Debian packages, lints them, installs them on this machine,
# runs holdfast from the installed files, and removes them again:
#   1. scripts/package.sh (CPack);
#   2. lintian: no errors (warnings are listed);
#   3. dpkg -i; `holdfast --version` is the package version, the man pages,
#      completion and schema are in place;
#   4. `holdfast doctor`, then confined commands in a temp workspace with
#      temp settings and state directories: /bin/true runs, a write into
#      the workspace works, a write outside it is refused;
#      a short `holdfast-race campaign` in launch mode, which must find the
#      installed holdfast and holdfast-probe by itself;
#   5. dpkg -r; every file the packages installed is gone.
#
#   bash scripts/package-check.sh [BUILD_DIR]     (as root; default: build)
#
# Refuses to run when holdfast is already installed from a package, so it
# never replaces or removes an installation it did not make.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
started=$(date +%s)
fail() {
  echo "package-check: $*" >&2
  exit 1
}
[ "$(id -u)" -eq 0 ] || fail "run as root: it installs the package with dpkg -i"
for p in holdfast holdfast-dev; do
  if dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
    fail "package $p is already installed; remove it (dpkg -r $p) to run this check"
  fi
done

echo "== package-check: building the packages"
mapfile -t debs < <(bash scripts/package.sh "$build" | grep '\.deb$')
runtime_deb=$(printf '%s\n' "${debs[@]}" | grep '/holdfast_[^/]*_amd64\.deb$') ||
  fail "no holdfast_VERSION_amd64.deb among: ${debs[*]}"
dev_deb=$(printf '%s\n' "${debs[@]}" | grep '/holdfast-dev_[^/]*_amd64\.deb$') ||
  fail "no holdfast-dev_VERSION_amd64.deb among: ${debs[*]}"
version=$(dpkg-deb -f "$runtime_deb" Version)
echo "package-check: $runtime_deb, $dev_deb (version $version)"
dpkg-deb -f "$runtime_deb" Depends | grep -qw bubblewrap || fail "the package does not depend on bubblewrap"

# lintian takes most of this script's time: it runs while the packages are
# installed and tried, and its verdict is read at the end.
echo "== package-check: lintian (in the background)"
work=$(mktemp -d)
lintian --tag-display-limit 0 "$runtime_deb" "$dev_deb" > "$work/lintian" 2>&1 &
lintian_pid=$!

echo "== package-check: dpkg -i"
installed=0
cleanup() {
  kill "$lintian_pid" 2> /dev/null || true
  wait "$lintian_pid" 2> /dev/null || true
  if [ "$installed" -eq 1 ]; then dpkg -r holdfast-dev holdfast > /dev/null 2>&1 || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
dpkg -i "$runtime_deb" "$dev_deb"
installed=1
dpkg -L holdfast holdfast-dev | sort -u > "$work/files"

[ "$(/usr/bin/holdfast --version)" = "holdfast $version" ] ||
  fail "/usr/bin/holdfast --version says '$(/usr/bin/holdfast --version)', the package is $version"
for f in /usr/bin/holdfast /usr/bin/holdfast-race /usr/share/holdfast/settings.schema.json \
  /usr/share/bash-completion/completions/holdfast /usr/share/doc/holdfast/copyright \
  /usr/share/bash-completion/completions/holdfast-race /usr/libexec/holdfast/holdfast-probe \
  /usr/share/doc/holdfast/changelog.gz /usr/share/man/man1/holdfast.1.gz \
  /usr/share/man/man1/holdfast-settings.1.gz /usr/share/man/man1/holdfast-check.1.gz \
  /usr/share/man/man1/holdfast-run.1.gz /usr/share/man/man1/holdfast-doctor.1.gz \
  /usr/share/man/man1/holdfast-serve.1.gz \
  /usr/lib/systemd/user/holdfast.service /usr/lib/systemd/user/holdfast.socket \
  /usr/share/man/man1/holdfast-race.1.gz /usr/include/holdfast/settings/store.hpp \
  /usr/include/holdfast/base/fd.hpp /usr/lib/libholdfast_base.a \
  /usr/lib/cmake/holdfast/holdfastConfig.cmake /usr/lib/libholdfast_settings.a; do
  [ -e "$f" ] || fail "$f is not installed"
done
/usr/bin/holdfast serve --help | grep -q "holdfast.socket" ||
  fail "the installed holdfast serve --help does not run or does not name its units"
cmp -s /usr/share/holdfast/settings.schema.json <(/usr/bin/holdfast settings schema) ||
  fail "the installed schema differs from what the installed holdfast prints"
! cmp -s /usr/share/bash-completion/completions/holdfast{,-race} ||
  fail "holdfast-race's bash completion is a copy of holdfast's"

echo "== package-check: holdfast doctor and confined commands from the installed files"
mkdir -p "$work/config" "$work/state" "$work/system" "$work/workspace" "$work/outside"
# holdfast refuses a state directory others can read (launch records).
chmod 700 "$work/state"
export HOLDFAST_CONFIG_DIR=$work/config HOLDFAST_STATE_DIR=$work/state
export HOLDFAST_SYSTEM_DIR=$work/system XDG_STATE_HOME=$work/state
cd "$work/workspace"
/usr/bin/holdfast doctor || fail "holdfast doctor says this machine cannot launch (above)"
/usr/bin/holdfast run -- /bin/true || fail "holdfast run -- /bin/true failed"
/usr/bin/holdfast run -- /bin/sh -c 'echo inside > written' ||
  fail "a confined write into the workspace failed"
[ "$(cat written)" = inside ] || fail "the confined write into the workspace did not land"
if /usr/bin/holdfast run -- /bin/sh -c "echo outside > '$work/outside/written'" 2> /dev/null; then
  fail "a confined command wrote outside its workspace"
fi
[ ! -e "$work/outside/written" ] || fail "a file appeared outside the workspace"

echo "== package-check: a race campaign in launch mode from the installed files"
# No --holdfast or --probe: holdfast-race must find /usr/bin/holdfast and
# /usr/libexec/holdfast/holdfast-probe itself. The seeds' writer holds its
# gap for 50 ms at 20 saves a second: the naive control sees the file
# missing, holdfast's launches never start without the policy.
mkdir -p "$work/race"
(cd "$work/race" && /usr/bin/holdfast-race campaign --mode launch --writers rename-backup:20@50ms \
  --starts 12 --json "$work/race/result.json" --evidence "$work/race/evidence") > "$work/race.log" 2>&1 ||
  { cat "$work/race.log"; fail "holdfast-race campaign in launch mode failed from the installed files"; }
grep -q "^holdfast /usr/bin/holdfast, probe /usr/libexec/holdfast/holdfast-probe$" "$work/race.log" ||
  { cat "$work/race.log"; fail "holdfast-race did not run the installed holdfast and holdfast-probe"; }
grep -E "^(naive|holdfast) vs rename-backup" "$work/race.log"

echo "== package-check: a program built against holdfast-dev starts a confined command"
mkdir -p "$work/consumer"
cat > "$work/consumer/CMakeLists.txt" << 'CMAKE'
cmake_minimum_required(VERSION 3.20)
project(holdfast_consumer CXX)
set(CMAKE_CXX_STANDARD 20)
find_package(holdfast REQUIRED)
add_executable(consumer main.cpp)
target_link_libraries(consumer PRIVATE holdfast::launcher)
CMAKE
cat > "$work/consumer/main.cpp" << 'CXX'
// Starts `sh -c "echo from-library > written"` confined in the current
// directory through the installed library, as an agent would.
#include <filesystem>
#include <iostream>

#include "launcher/run/launch.hpp"

int main() {
  namespace launcher = holdfast::launcher;
  launcher::LaunchOptions options;
  options.workspace = options.cwd = std::filesystem::current_path();
  options.command = {"/bin/sh", "-c", "echo from-library > written"};
  // Everything else as `holdfast run`: the state directory from the
  // environment, the configured bubblewrap, a launch record.
  try {
    const auto result = launcher::launch(options);
    return result.exit_status;
  } catch (const std::exception& e) {
    std::cerr << e.what() << "\n";
    return 125;
  }
}
CXX
cmake -S "$work/consumer" -B "$work/consumer/build" -G Ninja > "$work/consumer.log" 2>&1 &&
  ninja -C "$work/consumer/build" >> "$work/consumer.log" 2>&1 ||
  { cat "$work/consumer.log"; fail "a program using find_package(holdfast) did not build"; }
"$work/consumer/build/consumer" || fail "the library's launch of a confined command failed"
[ "$(cat written)" = from-library ] || fail "the library's confined write did not land"
cd - > /dev/null

echo "== package-check: dpkg -r"
dpkg -r holdfast-dev holdfast
installed=0
left=()
while read -r f; do
  # Directories shared with other packages (/usr, /usr/bin, ...) stay.
  [ -e "$f" ] && [ ! -d "$f" ] && left+=("$f")
done < "$work/files"
((${#left[@]} == 0)) || fail "files left after dpkg -r: ${left[*]}"
for d in /usr/share/holdfast /usr/include/holdfast /usr/share/doc/holdfast; do
  [ ! -e "$d" ] || fail "$d is left after dpkg -r"
done
echo "== package-check: lintian"
wait "$lintian_pid" || true
# (lintian's own note that it runs as root is not about the packages.)
lint=$(grep -v '^running with root' "$work/lintian" || true)
[ -z "$lint" ] || printf '%s\n' "$lint"
if grep -q '^E: ' <<< "$lint"; then
  fail "lintian reports errors (E: above)"
fi
echo "package-check: lintian: no errors, $(grep -c '^W: ' <<< "$lint" || true) warnings"
echo "package-check: passed in $(($(date +%s) - started)) s"
