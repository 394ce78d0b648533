// Cost of the seccomp part of a launch: building the libseccomp filter and
// exporting it as BPF into the sealed memfd bwrap reads. Each launch does
// both once.
#include <benchmark/benchmark.h>

#include "launcher/seccomp/bpf_export.hpp"
#include "launcher/seccomp/filter.hpp"

namespace {

using holdfast::seccomp::FilterOptions;

FilterOptions options_for(const benchmark::State& state) {
  return FilterOptions{state.range(0) != 0, state.range(1) != 0};
}

void BM_BuildFilter(benchmark::State& state) {
  const FilterOptions options = options_for(state);
  for (auto _ : state) {
    auto filter = holdfast::seccomp::build_filter(options);
    benchmark::DoNotOptimize(filter.get());
  }
}
BENCHMARK(BM_BuildFilter)
    ->ArgNames({"closed", "deny_unix"})
    ->Args({1, 0})
    ->Args({0, 0})
    ->Args({1, 1});

void BM_ExportToMemfd(benchmark::State& state) {
  const auto filter = holdfast::seccomp::build_filter(options_for(state));
  for (auto _ : state) {
    auto fd = holdfast::seccomp::export_bpf_to_memfd(filter);
    benchmark::DoNotOptimize(fd.get());
  }
}
BENCHMARK(BM_ExportToMemfd)->ArgNames({"closed", "deny_unix"})->Args({1, 0});

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
    ->ArgNames({"closed", "deny_unix"})
    ->Args({1, 0})
    ->Args({0, 0})
    ->Args({1, 1});

}  // namespace
BENCHMARK_MAIN();
