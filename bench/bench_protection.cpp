// What a launch pays for protected names, repositories and credential
// stores before the command starts, on real files (a tree made in
// $TMPDIR, warm page cache): the walk of a writable root alone
// (scan_tree), and all host facts of the default policy for that
// workspace (gather_host_facts: the walk, git's configuration, the stores).
//
//   ninja -C build bench_protection && build/bench/bench_protection
//
// Trees: "files" regular files spread over "dirs" directories three levels
// deep (the shape of a source checkout: about 20 files a directory).
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>

#include "launcher/sandbox/credential_stores.hpp"
#include "launcher/sandbox/host_facts.hpp"
#include "launcher/sandbox/policy.hpp"
#include "launcher/sandbox/tree_scan.hpp"

namespace {

namespace fs = std::filesystem;
using namespace holdfast::sandbox;

// A tree of `files` empty files in `dirs` directories below a fresh root,
// made once per shape for the whole run and removed at exit.
class Tree {
 public:
  Tree(std::size_t dirs, std::size_t files) {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp != nullptr ? tmp : "/tmp") + "/hf-bench-tree-XXXXXX";
    root_ = ::mkdtemp(pattern.data());
    // Fan-out f with f + f^2 + f^3 >= dirs: three levels, like src/a/b.
    std::size_t fanout = 1;
    while (fanout + fanout * fanout + fanout * fanout * fanout < dirs) ++fanout;
    std::vector<fs::path> made;
    const auto name = [](std::size_t i) { return "d" + std::to_string(i); };
    for (std::size_t a = 0; a < fanout && made.size() < dirs; ++a) {
      const fs::path top = root_ / name(a);
      made.push_back(top);
      for (std::size_t b = 0; b < fanout && made.size() < dirs; ++b) {
        const fs::path middle = top / name(b);
        made.push_back(middle);
        for (std::size_t c = 0; c < fanout && made.size() < dirs; ++c) {
          made.push_back(middle / name(c));
        }
      }
    }
    for (const auto& dir : made) fs::create_directories(dir);
    for (std::size_t i = 0; i < files; ++i) {
      const fs::path file = made[i % made.size()] / ("f" + std::to_string(i) + ".c");
      const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
      if (fd >= 0) ::close(fd);
    }
    directories_ = made.size() + 1;
  }
  ~Tree() { fs::remove_all(root_); }
  Tree(const Tree&) = delete;
  Tree& operator=(const Tree&) = delete;

  const fs::path& root() const { return root_; }
  std::size_t directories() const { return directories_; }

 private:
  fs::path root_;
  std::size_t directories_ = 0;
};

const Tree& tree(std::size_t dirs, std::size_t files) {
  static std::map<std::pair<std::size_t, std::size_t>, std::unique_ptr<Tree>> trees;
  auto& slot = trees[{dirs, files}];
  if (!slot) slot = std::make_unique<Tree>(dirs, files);
  return *slot;
}

// Args: directories, files, budget (0: kRepoScanBudget).
void BM_ScanTree(benchmark::State& state) {
  const Tree& t =
      tree(static_cast<std::size_t>(state.range(0)), static_cast<std::size_t>(state.range(1)));
  const std::size_t budget =
      state.range(2) == 0 ? kRepoScanBudget : static_cast<std::size_t>(state.range(2));
  const ProtectedNames names = builtin_protected_names();
  std::size_t read = 0;
  bool complete = false;
  for (auto _ : state) {
    TreeScan scan;
    std::size_t left = budget;
    scan_tree(t.root().string(), names, left, scan);
    read = scan.directories;
    complete = scan.complete;
    benchmark::DoNotOptimize(scan);
  }
  state.counters["dirs_in_tree"] = static_cast<double>(t.directories());
  state.counters["dirs_read"] = static_cast<double>(read);
  state.counters["complete"] = complete ? 1 : 0;
}
BENCHMARK(BM_ScanTree)
    ->Args({5'000, 100'000, 0})
    ->Args({5'000, 100'000, 1'000'000})
    ->Args({25'000, 100'000, 0})
    ->Args({25'000, 100'000, 1'000'000})
    ->Unit(benchmark::kMillisecond);

// All host facts of the default policy for a workspace of that shape.
void BM_GatherHostFactsDefaultPolicy(benchmark::State& state) {
  const Tree& t =
      tree(static_cast<std::size_t>(state.range(0)), static_cast<std::size_t>(state.range(1)));
  const Policy policy = default_policy();
  FactsRequest request;
  request.workspace = t.root();
  request.cwd = t.root();
  bool complete = false;
  for (auto _ : state) {
    const HostFacts facts = gather_host_facts(policy, request);
    complete = facts.tree.complete;
    benchmark::DoNotOptimize(facts);
  }
  state.counters["complete"] = complete ? 1 : 0;
}
BENCHMARK(BM_GatherHostFactsDefaultPolicy)
    ->Args({1, 0})
    ->Args({5'000, 100'000})
    ->Args({25'000, 100'000})
    ->Unit(benchmark::kMillisecond);

// The credential-store list's share of a launch's host facts: a home
// where none of the stores exists (arg 0) or every one does (arg 1), the
// default policy with and without its list (arg 2: 1 with), an empty
// workspace, no other homes (/etc/shadow and the host keys are looked at
// as on any host).
void BM_CredentialStores(benchmark::State& state) {
  static const Tree empty_home(0, 0);
  static const Tree full_home(0, 0);
  static const bool filled = [](const Tree& home) {
    for (const auto& row : builtin_credential_rows()) {
      std::string_view paths = row.paths;
      while (!paths.empty()) {
        const auto space = paths.find(' ');
        const std::string_view path = paths.substr(0, space);
        paths = space == std::string_view::npos ? "" : paths.substr(space + 1);
        if (!path.starts_with("~/")) continue;
        const fs::path file = home.root() / path.substr(2);
        fs::create_directories(file.parent_path());
        const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
        if (fd >= 0) ::close(fd);
      }
    }
    return true;
  }(full_home);
  benchmark::DoNotOptimize(filled);
  static const Tree workspace(1, 0);
  Policy policy = default_policy();
  if (state.range(1) == 0) policy.credential_stores.stores.clear();
  FactsRequest request;
  request.workspace = workspace.root();
  request.cwd = workspace.root();
  request.home = (state.range(0) == 0 ? empty_home : full_home).root().string();
  request.other_homes = std::vector<std::string>{};
  std::size_t hidden = 0;
  for (auto _ : state) {
    const HostFacts facts = gather_host_facts(policy, request);
    hidden = facts.credentials.size();
    benchmark::DoNotOptimize(facts);
  }
  state.counters["hidden"] = static_cast<double>(hidden);
}
BENCHMARK(BM_CredentialStores)
    ->Args({0, 0})
    ->Args({0, 1})
    ->Args({1, 0})
    ->Args({1, 1})
    ->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
