// Micro-benchmarks of the pure sandbox core: policy resolution from the
// effective settings, path resolution, and building the bubblewrap argv
// (the work `holdfast run` does per launch besides gathering host facts).
#include <benchmark/benchmark.h>

#include "launcher/sandbox/bwrap_args.hpp"
#include "launcher/sandbox/policy.hpp"
#include "launcher/sandbox/resolve.hpp"

namespace {

using namespace holdfast::sandbox;

holdfast::settings::Effective split_settings() {
  holdfast::settings::Effective e;
  e.value["tools"]["executionSandbox"] = {{"filesystem",
                                           {{":root", "read"},
                                            {"/code", "write"},
                                            {"/code/.git", "read"},
                                            {"/code/secrets", "deny"},
                                            {"/code/secrets/tmp", "write"},
                                            {"~/.ssh", "deny"},
                                            {"/etc/shadow", "deny"}}},
                                          {"network", "closed"}};
  return e;
}

PathFacts dir(const std::string& path) {
  PathFacts f;
  f.path = f.canonical = f.existing_ancestor = path;
  f.kind = Kind::directory;
  return f;
}

HostFacts code_facts() {
  HostFacts facts;
  facts.workspace = facts.cwd = dir("/code");
  facts.tokens = {"/code", "/tmp", "/home/u", {}};
  facts.environment = {{"PATH", "/usr/bin:/bin"}, {"HOME", "/home/u"}};
  for (const char* p : {"/", "/code", "/code/.git", "/code/secrets", "/code/secrets/tmp",
                        "/home/u/.ssh", "/code/secrets/tmp/.git"}) {
    facts.paths[p] = dir(p);
  }
  PathFacts shadow = dir("/etc/shadow");
  shadow.kind = Kind::file;
  facts.paths["/etc/shadow"] = shadow;
  for (const char* p : {"/code/.holdfast", "/code/secrets/tmp/.holdfast"}) {
    PathFacts f = dir(p);
    f.kind = Kind::missing;
    facts.paths[p] = f;
  }
  return facts;
}

void BM_PolicyFromSettings(benchmark::State& state) {
  const auto settings = split_settings();
  for (auto _ : state) benchmark::DoNotOptimize(policy_from_settings(settings));
}
BENCHMARK(BM_PolicyFromSettings);

void BM_PolicyDigest(benchmark::State& state) {
  const Policy policy = policy_from_settings(split_settings());
  for (auto _ : state) benchmark::DoNotOptimize(policy_digest(policy));
}
BENCHMARK(BM_PolicyDigest);

void BM_ResolvePath(benchmark::State& state) {
  const auto rules = build_rules(policy_from_settings(split_settings()), code_facts());
  for (auto _ : state) {
    benchmark::DoNotOptimize(resolve(rules, "/code/secrets/tmp/build/output.o"));
  }
}
BENCHMARK(BM_ResolvePath);

void BM_BuildBwrapArgs(benchmark::State& state) {
  const Policy policy = policy_from_settings(split_settings());
  const HostFacts facts = code_facts();
  BuildOptions options;
  options.empty_file_fd = 3;
  options.seccomp_fd = 4;
  for (auto _ : state) {
    benchmark::DoNotOptimize(build_bwrap_args(policy, facts, {"make", "-j2"}, options));
  }
}
BENCHMARK(BM_BuildBwrapArgs);

}  // namespace

BENCHMARK_MAIN();
