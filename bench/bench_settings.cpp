// Speed of the settings store.
//
//   build/bench/bench_settings --benchmark_repetitions=5
//       --benchmark_report_aggregates_only=true
//
// A durable save of a 4 KiB document through write_file_atomically against
// the bare sequence of syscalls it must make (open O_EXCL temp, write, fsync,
// rename, open dir + fsync dir) — the writer's overhead over the protocol
// itself; the same without fsync; loading and validating one scope; merging
// four scopes. Files go to a temp directory under $TMPDIR (default /tmp):
// point it at the disk you care about, since fsync dominates.
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "settings/atomic_writer.hpp"
#include "settings/merge.hpp"
#include "settings/scope_file.hpp"

namespace {

namespace fs = std::filesystem;
namespace hs = holdfast::settings;

class BenchDir {
 public:
  BenchDir() {
    std::string pattern = (fs::temp_directory_path() / "holdfast-bench.XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) std::abort();
    path_ = pattern;
  }
  ~BenchDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// A realistic settings document of 4096 bytes: a policy, permission rules
// and launcher switches, padded with one more rule to the exact size.
std::string document_4k(int variant) {
  nlohmann::json doc;
  doc["$revision"] = 1000 + variant;
  doc["tools"]["executionSandbox"] = {
      {"network", "closed"},
      {"unixSockets", "deny"},
      {"filesystem",
       {{":root", "read"}, {":workspace", "write"}, {":tmpdir", "write"}, {"/home", "deny"}}}};
  doc["security"] = {{"requireExecutionSandbox", true}, {"allowUnconfined", false}};
  doc["launcher"]["launchRecords"] = true;
  doc["permissions"]["defaultMode"] = "default";
  for (int i = 0; doc.dump(2).size() < 3900; ++i) {
    doc["permissions"][i % 3 == 0   ? "allow"
                       : i % 3 == 1 ? "ask"
                                    : "deny"]
        .push_back("Bash(tool-" + std::to_string(i) + " --flag)");
  }
  std::string text = doc.dump(2);
  const std::size_t pad = 4096 - 1 - text.size() - std::string(",\n  \"x\": \"\"").size();
  text.insert(text.size() - 2, ",\n  \"x\": \"" + std::string(pad, 'p') + "\"");
  text += "\n";
  if (text.size() != 4096) std::abort();
  return text;
}

void BM_Save_WriteFileAtomically(benchmark::State& state) {
  BenchDir dir;
  const fs::path target = dir.path() / "settings.json";
  const std::string bytes = document_4k(0);
  hs::WriteOptions options;
  options.durable = state.range(0) != 0;
  for (auto _ : state) hs::write_file_atomically(target, bytes, options);
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * bytes.size()));
}

// The baseline: the protocol's syscalls and nothing else.
void BM_Save_BareSyscalls(benchmark::State& state) {
  BenchDir dir;
  const bool durable = state.range(0) != 0;
  const std::string target = (dir.path() / "settings.json").string();
  const std::string directory = dir.path().string();
  const std::string temp_prefix =
      (dir.path() / ".settings.json.tmp.").string() + std::to_string(::getpid()) + ".";
  const std::string bytes = document_4k(0);
  unsigned long counter = 0;
  for (auto _ : state) {
    const std::string temp = temp_prefix + std::to_string(counter++);
    const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) std::abort();
    if (::write(fd, bytes.data(), bytes.size()) != static_cast<ssize_t>(bytes.size())) std::abort();
    if (durable && ::fsync(fd) != 0) std::abort();
    if (::close(fd) != 0) std::abort();
    if (::rename(temp.c_str(), target.c_str()) != 0) std::abort();
    if (durable) {
      const int dir_fd = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (dir_fd < 0 || ::fsync(dir_fd) != 0) std::abort();
      ::close(dir_fd);
    }
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * bytes.size()));
}

void BM_ReadScopeFile(benchmark::State& state) {
  BenchDir dir;
  const fs::path path = dir.path() / "settings.json";
  hs::write_file_atomically(path, document_4k(0));
  for (auto _ : state) {
    hs::ScopeFile file = hs::detail::read_scope_file_once(hs::Scope::user, path);
    if (!file.valid()) std::abort();
    benchmark::DoNotOptimize(file);
  }
}

void BM_MergeScopes(benchmark::State& state) {
  std::vector<hs::ScopeFile> files;
  int variant = 0;
  for (hs::Scope scope : hs::kScopesInPrecedenceOrder) {
    hs::ScopeFile file;
    file.scope = scope;
    file.path = "/bench/" + std::string(hs::scope_name(scope)) + ".json";
    file.exists = true;
    file.bytes = document_4k(variant++);
    hs::interpret_scope_bytes(file);
    if (scope == hs::Scope::workspace) {
      // A workspace may not carry a policy: keep it to what it may set.
      file.bytes =
          "{\"permissions\": {\"deny\": [\"Bash(curl)\", \"Bash(wget)\"]},"
          " \"launcher\": {\"launchRecords\": false}}";
      hs::interpret_scope_bytes(file);
    }
    if (!file.valid()) std::abort();
    files.push_back(std::move(file));
  }
  std::vector<const hs::ScopeFile*> pointers;
  for (const auto& f : files) pointers.push_back(&f);
  for (auto _ : state) {
    hs::Effective effective = hs::merge_scopes(pointers);
    benchmark::DoNotOptimize(effective);
  }
}

}  // namespace

BENCHMARK(BM_Save_WriteFileAtomically)->ArgName("durable")->Arg(1)->Arg(0)->UseRealTime();
BENCHMARK(BM_Save_BareSyscalls)->ArgName("durable")->Arg(1)->Arg(0)->UseRealTime();
BENCHMARK(BM_ReadScopeFile);
BENCHMARK(BM_MergeScopes);

// Runs are interleaved in random order by default: fsync times on a shared
// disk drift by several times within minutes, and running every repetition
// of one benchmark before the other turned that drift into a false
// difference between the writer and its baseline. A later
// --benchmark_enable_random_interleaving=false on the command line wins.
int main(int argc, char** argv) {
  std::vector<char*> args(argv, argv + argc);
  char interleave[] = "--benchmark_enable_random_interleaving=true";
  args.insert(args.begin() + 1, interleave);
  int count = static_cast<int>(args.size());
  benchmark::Initialize(&count, args.data());
  if (benchmark::ReportUnrecognizedArguments(count, args.data())) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
