// Cost of the seccomp part of a launch. A launch copies the program baked at
// build time into the sealed memfd bwrap reads (BM_BakedProgramToMemfd);
// building the libseccomp filter and exporting it (BM_BuildAndExport) is
// what it would cost without the baked table, and what a cross build pays.
#include <benchmark/benchmark.h>

#include "launcher/seccomp/bpf_export.hpp"
#include "launcher/seccomp/filter.hpp"
#include "launcher/seccomp/program.hpp"

namespace {

using holdfast::seccomp::FilterOptions;

// Arguments: network closed (0/1), unix sockets (0 allow, 1 pairs, 2 deny).
FilterOptions options_for(const benchmark::State& state) {
  return FilterOptions{state.range(0) != 0,
                       static_cast<holdfast::seccomp::UnixSockets>(state.range(1))};
}

void BM_BuildFilter(benchmark::State& state) {
  const FilterOptions options = options_for(state);
  for (auto _ : state) {
    auto filter = holdfast::seccomp::build_filter(options);
    benchmark::DoNotOptimize(filter.get());
  }
}
BENCHMARK(BM_BuildFilter)->ArgNames({"closed", "unix"})->Args({1, 1})->Args({0, 0})->Args({1, 2});

void BM_ExportToMemfd(benchmark::State& state) {
  const auto filter = holdfast::seccomp::build_filter(options_for(state));
  for (auto _ : state) {
    auto fd = holdfast::seccomp::export_bpf_to_memfd(filter);
    benchmark::DoNotOptimize(fd.get());
  }
}
BENCHMARK(BM_ExportToMemfd)->ArgNames({"closed", "unix"})->Args({1, 1});

void BM_BuildAndExport(benchmark::State& state) {
  const FilterOptions options = options_for(state);
  std::size_t instructions = 0;
  for (auto _ : state) {
    auto filter = holdfast::seccomp::build_filter(options);
    auto fd = holdfast::seccomp::export_bpf_to_memfd(filter);
    benchmark::DoNotOptimize(fd.get());
  }
  instructions = holdfast::seccomp::export_bpf(holdfast::seccomp::build_filter(options)).size() / 8;
  state.counters["bpf_instructions"] = static_cast<double>(instructions);
}
BENCHMARK(BM_BuildAndExport)
    ->ArgNames({"closed", "unix"})
    ->Args({1, 1})
    ->Args({0, 0})
    ->Args({1, 2});

void BM_BakedProgramToMemfd(benchmark::State& state) {
  const FilterOptions options = options_for(state);
  for (auto _ : state) {
    const auto program = holdfast::seccomp::program_for(options);
    auto fd = holdfast::seccomp::program_to_memfd(program.bytes);
    benchmark::DoNotOptimize(fd.get());
  }
  state.counters["baked"] = holdfast::seccomp::program_for(options).baked ? 1 : 0;
}
BENCHMARK(BM_BakedProgramToMemfd)->ArgNames({"closed", "unix"})->Args({1, 1});

}  // namespace
BENCHMARK_MAIN();
