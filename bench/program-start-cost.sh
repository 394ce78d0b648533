#!/usr/bin/env bash
# What one program start costs this machine before main, and why:
#   * the time of one CPUID instruction (a loop of 2000, timed): on a
#     virtual machine it traps to the hypervisor;
#   * the CPU of three programs that do nothing (perf stat -r N): one with
#     no C library at all (_start makes the exit system call), a static one
#     and a dynamic one with glibc, whose start-up asks the CPU about its
#     features and caches with CPUID.
#
#   bench/program-start-cost.sh [N]          (default 300; perf, cc)
set -euo pipefail
runs=${1:-300}
work=$(mktemp -d /tmp/holdfast-start.XXXXXX)
trap 'rm -rf "$work"' EXIT

cat >"$work/cpuid.c" <<'EOF'
#include <cpuid.h>
#include <stdio.h>
#include <time.h>
int main(void) {
  unsigned a, b, c, d, sum = 0;
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (int i = 0; i < 2000; ++i) {
    __cpuid_count(0x8000001d, i & 3, a, b, c, d);
    sum += a;
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double ns = (t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec);
  printf("one CPUID instruction: %.2f us%s\n", ns / 2000 / 1000, sum == 1 ? " " : "");
  return 0;
}
EOF
cat >"$work/bare.c" <<'EOF'
void _start(void) { __asm__ volatile("mov $60, %eax; xor %edi, %edi; syscall"); }
EOF
echo 'int main(void) { return 0; }' >"$work/empty.c"
cc -O2 -o "$work/cpuid" "$work/cpuid.c"
cc -O2 -static -nostdlib -fno-pie -no-pie -o "$work/no-libc" "$work/bare.c"
cc -O2 -static -o "$work/static-glibc" "$work/empty.c"
cc -O2 -o "$work/dynamic-glibc" "$work/empty.c"

"$work/cpuid"
if ! command -v perf >/dev/null; then
  echo "perf not installed: program CPU skipped (apt-get install linux-perf)"
  exit 0
fi
echo "CPU of a program that does nothing (perf stat, $runs runs each)"
for program in no-libc static-glibc dynamic-glibc; do
  perf stat -x, -e task-clock -r "$runs" "$work/$program" 2>&1 >/dev/null |
    awk -F, -v name="$program" '$3 == "task-clock" {printf "  %-14s %5.2f ms\n", name, $1}'
done
