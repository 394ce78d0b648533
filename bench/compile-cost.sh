#!/usr/bin/env bash
# What CI's compiler choices cost: one large unity source (tests/sandbox's,
# from a unity build's compile_commands.json) compiled as the main build
# compiles it (GCC -O2), as CI compiles test code (GCC -O0), and as a
# sanitizer build would with GCC and with clang (-O0, ASan + UBSan). Wall
# and user seconds of one compile each; the object is thrown away.
#
#   bench/compile-cost.sh [UNITY_BUILD_DIR]
#     (default build; configure it with -DCMAKE_UNITY_BUILD=ON, as .ci/run
#      does, and build once so the unity sources exist)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
python3 - "$build" <<'PY'
import json, os, resource, shlex, subprocess, sys, time
build = sys.argv[1]
entry = next((e for e in json.load(open(f"{build}/compile_commands.json"))
              if "sandbox_tests.dir/Unity/unity_0" in e["file"]), None)
if entry is None:
    sys.exit(f"no unity source of tests/sandbox in {build}/compile_commands.json: configure with -DCMAKE_UNITY_BUILD=ON")
args = shlex.split(entry["command"])
# Keep the defines, include paths, warnings and standard; drop the
# compiler, optimisation, debug and output flags, which each case sets.
keep = [a for a in args[1:] if a.startswith(("-D", "-I", "-W", "-std="))]
asan = ["-fsanitize=address,undefined", "-fno-omit-frame-pointer", "-fno-sanitize-recover=all"]
cases = [("g++ -O2 (main build)", ["g++", "-O2"]),
         ("g++ -O0 (CI's test code)", ["g++", "-O0"]),
         ("g++ -O0 ASan+UBSan", ["g++", "-O0", "-Wno-maybe-uninitialized"] + asan),
         ("clang++-14 -O0 ASan+UBSan", ["clang++-14", "-O0"] + asan)]
for name, compiler in cases:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    subprocess.run(compiler + keep + ["-g0", "-c", entry["file"], "-o", "/dev/null"],
                   cwd=entry["directory"], check=True)
    wall = time.monotonic() - start
    user = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime - before.ru_utime
    print(f"{name:28} {wall:6.1f} s wall {user:6.1f} s user")
PY
