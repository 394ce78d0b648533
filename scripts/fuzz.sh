#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/) with clang in a build directory of
# their own and runs each one for SECONDS: first every input of its
# committed seed corpus (fuzz/corpus/TARGET), then new inputs that libFuzzer
# derives from them. A crash, a leak, undefined behaviour, a broken property
# or an input slower than 10 s stops the run: the input is saved under the
# work directory, the output ends with libFuzzer's report, and the exit
# status is 1.
#
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]      (default: 60, all)
#
# Targets: settings_text key_path permission_rules shell policy proxy_request
# socks5 client_hello dns_query.
# Environment: FUZZ_BUILD_DIR (default build-fuzz); FUZZ_WORK_DIR (default
# FUZZ_BUILD_DIR/work: the grown corpora, kept between runs, and crash
# inputs); FUZZ_NICE=1 runs the fuzzers under nice; FUZZ_SEED=N and
# FUZZ_RUNS=N make a run repeatable (libFuzzer's -seed and -runs: the same
# inputs in the same order, at most N of them, SECONDS still bounding the
# time) — CI uses them, so that what passes here passes there.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-60}
shift || true
targets=("$@")
if ((${#targets[@]} == 0)); then
  targets=(settings_text key_path permission_rules shell policy proxy_request socks5
    client_hello dns_query)
fi
build=${FUZZ_BUILD_DIR:-build-fuzz}
work=${FUZZ_WORK_DIR:-$build/work}

# Dictionaries of the tokens each input format is made of.
declare -A dict=([settings_text]=json [policy]=json [permission_rules]=rules [shell]=shell)

launcher=()
if command -v ccache > /dev/null; then
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
mkdir -p "$build"
# A unity build (16 sources per compiler run): the instrumented libraries
# compile in about two thirds of the time, and the README's build (one
# source per run) is what checks every file's includes.
CC=clang-14 CXX=clang++-14 cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DHOLDFAST_FUZZ=ON -DHOLDFAST_BUILD_TESTS=OFF -DHOLDFAST_BUILD_BENCH=OFF \
  -DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=16 "${launcher[@]}" \
  > "$build/configure.log" || { cat "$build/configure.log"; exit 1; }
ninja -C "$build" "${targets[@]/#/fuzz_}"
# FUZZ_BUILD_ONLY=1: build the targets and stop (CI builds them early, in
# the background, and fuzzes later).
if [[ ${FUZZ_BUILD_ONLY:-0} == 1 ]]; then exit 0; fi

# Crash reports name functions and lines.
if [[ -x /usr/bin/llvm-symbolizer-14 ]]; then
  export ASAN_SYMBOLIZER_PATH=/usr/bin/llvm-symbolizer-14
fi
nice_cmd=()
if [[ ${FUZZ_NICE:-0} == 1 ]]; then nice_cmd=(nice); fi

total=0
for target in "${targets[@]}"; do
  mkdir -p "$work/$target/corpus" "$work/$target/crashes"
  log="$work/$target/log"
  options=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1
           -artifact_prefix="$work/$target/crashes/")
  if [[ -n ${dict[$target]:-} ]]; then options+=(-dict="fuzz/dict/${dict[$target]}.dict"); fi
  if [[ -n ${FUZZ_SEED:-} ]]; then options+=(-seed="$FUZZ_SEED"); fi
  if [[ -n ${FUZZ_RUNS:-} ]]; then options+=(-runs="$FUZZ_RUNS"); fi
  # New inputs go to the first directory (the work corpus); the committed
  # seeds are only read.
  if ! "${nice_cmd[@]}" "$build/fuzz/fuzz_$target" "${options[@]}" "$work/$target/corpus" \
    "fuzz/corpus/$target" > "$log" 2>&1; then
    tail -n 60 "$log"
    echo "fuzz: $target failed; the input is in $work/$target/crashes/ (log: $log)" >&2
    exit 1
  fi
  runs=$(awk '/stat::number_of_executed_units/ {print $2}' "$log")
  printf 'fuzz: %-17s %12d executions (limit %d s), no crash (corpus: %d inputs)\n' "$target" \
    "$runs" "$seconds" "$(find "$work/$target/corpus" -type f | wc -l)"
  total=$((total + runs))
done
echo "fuzz: $total executions in all, ${#targets[@]} targets, no crash"
