// Gatekeeper speed: one decision against 1,000 rules, and the analysis of a
// 200-character compound shell command.
#include <benchmark/benchmark.h>

#include <string>

#include "launcher/gatekeeper/decide.hpp"
#include "launcher/gatekeeper/shell_analysis.hpp"

namespace {

using namespace holdfast::gatekeeper;

// 1,000 rules of every kind; none matches the benchmarked calls, so each
// decision scans all of them (the worst case).
Context thousand_rule_context() {
  Context context;
  context.workspace = "/home/me/project";
  context.cwd = "/home/me/project";
  context.home = "/home/me";
  for (int i = 0; i < 1000; ++i) {
    const std::string n = std::to_string(i);
    std::string text;
    switch (i % 5) {
      case 0:
        text = "Read(//srv/data" + n + "/**/*.key)";
        break;
      case 1:
        text = "Edit(/generated" + n + "/**)";
        break;
      case 2:
        text = "Bash(tool" + n + " run *)";
        break;
      case 3:
        text = "WebFetch(domain:host" + n + ".example.net)";
        break;
      case 4:
        text = "Read(~/.secrets" + n + ")";
        break;
    }
    RuleSet& tier = i % 3 == 0 ? context.persistent : context.session;
    std::vector<Rule>& list = i % 3 == 1 ? tier.ask : (i % 3 == 2 ? tier.allow : tier.deny);
    list.push_back(parse_rule(text));
  }
  prepare(context);
  return context;
}

void BM_DecideRead1000Rules(benchmark::State& state) {
  const Context context = thousand_rule_context();
  const ToolCall call{"Read", "/home/me/project/src/deep/tree/main.cpp"};
  for (auto _ : state) benchmark::DoNotOptimize(decide(call, context));
}
BENCHMARK(BM_DecideRead1000Rules);

void BM_DecideBash1000Rules(benchmark::State& state) {
  const Context context = thousand_rule_context();
  const ToolCall call{"Bash", "cd src && grep -rn TODO . | head -n 20 > /tmp/todo.txt"};
  for (auto _ : state) benchmark::DoNotOptimize(decide(call, context));
}
BENCHMARK(BM_DecideBash1000Rules);

void BM_DecideUnprepared1000Rules(benchmark::State& state) {
  Context context = thousand_rule_context();
  context.compiled.reset();  // compiles the rules inside every call
  const ToolCall call{"Read", "/home/me/project/src/main.cpp"};
  for (auto _ : state) benchmark::DoNotOptimize(decide(call, context));
}
BENCHMARK(BM_DecideUnprepared1000Rules);

// 200 characters: lists, a pipeline, quotes, a substitution, redirections,
// a wrapper and a cd.
const std::string kCompound =
    "cd build && sudo -u ci env CC=gcc make -j2 2>&1 | tee \"$PWD/log.txt\" && "
    "grep -c 'warning: ' log.txt > /tmp/count; cat ~/.config/x || echo \"$(date) failed\" >> "
    "fail.log; rm -f a.o b.o c.o d.o; ls -la src";

void BM_AnalyseCompound200(benchmark::State& state) {
  const shell::ShellContext context{"/home/me/project", "/home/me"};
  for (auto _ : state) benchmark::DoNotOptimize(shell::analyse(kCompound, context));
  state.SetLabel(std::to_string(kCompound.size()) + " chars");
}
BENCHMARK(BM_AnalyseCompound200);

}  // namespace

BENCHMARK_MAIN();
