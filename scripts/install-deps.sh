#!/usr/bin/env bash
# Installs every build and run dependency of holdfast from Debian 12 packages.
# Idempotent: packages already present are left alone and apt is not touched.
set -euo pipefail

packages=(
  # build
  cmake ninja-build g++ pkg-config git
  # libraries
  libboost-dev nlohmann-json3-dev libcli11-dev
  libseccomp-dev libssl-dev
  # the network proxy's host names: IDNA (internationalised names to punycode)
  libidn2-dev libunistring-dev
  # tests and benchmarks
  libgtest-dev libgmock-dev libbenchmark-dev hyperfine
  # run time: the sandbox itself, and tools the tests drive it with
  bubblewrap util-linux procps
  # the gatekeeper's traced property test runs commands under strace -f
  strace
  # the settings page's browser tests (tests/browser) and its screenshot
  # (scripts/screenshot-page.sh): headless Chromium driven by selenium
  chromium chromium-driver python3-selenium
  # fuzzing (scripts/fuzz.sh): clang, its libFuzzer and sanitizer runtimes,
  # and llvm-symbolizer for readable crash reports
  clang-14 libclang-rt-14-dev llvm-14
  # the Debian package: man pages from --help, and its checker
  help2man lintian
  # the race harness's tests: the naive launcher example (Python), the
  # scripts given as a user's commands (jq), the JUnit schema check
  # (xmllint), and the GitHub workflow lint (YAML and JSON Schema)
  python3 jq libxml2-utils python3-yaml python3-jsonschema
  # the network allow-list's end-to-end tests (tests/network_e2e): their
  # server world (ip, a test CA made with openssl, sshd) and the clients
  # run inside the sandbox (curl, ssh for git over ssh)
  curl iproute2 openssl openssh-server openssh-client
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]} == 0)); then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

if [[ $(id -u) -ne 0 ]]; then
  echo "install-deps: missing packages: ${missing[*]}" >&2
  echo "install-deps: run as root (or: sudo $0) to install them" >&2
  exit 1
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends "${missing[@]}"
