// Speed of `holdfast serve` next to the library calls it makes: what a GUI
// pays for asking the service over its Unix socket instead of linking the
// library.
//
//   ninja -C build bench_service holdfast-serve
//   build/bench/bench_service --benchmark_repetitions=5
//       --benchmark_report_aggregates_only=true
//
// Read: Store::snapshot() (what GET /api/v1/settings reads), the same with
// the answer's JSON made, against GET
// /api/v1/settings on a kept-alive connection (the same reading, turned into
// JSON, over HTTP). Save: Store::update() with the revision expected (a
// durable save: lock, read, fsync, rename, fsync dir), against PATCH
// /api/v1/scopes/user with If-Match. The service is the real holdfast-serve
// program, started once; its settings live in a temp directory under
// $TMPDIR (default /tmp): point it at the disk you care about, since fsync
// dominates the saves.
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <httplib.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "service/answers.hpp"
#include "settings/store.hpp"

namespace {

namespace fs = std::filesystem;
namespace hs = holdfast::settings;

fs::path g_dir;
fs::path g_socket;

// A user settings file of the usual kind: a policy and a few rules.
void write_settings() {
  hs::Store store(hs::scope_paths_from_environment(std::nullopt));
  store.set(hs::Scope::user, hs::parse_key_path("tools.executionSandbox"),
            nlohmann::json::parse(R"({"network": "closed", "unixSockets": "deny",
                "filesystem": {":root": "read", ":workspace": "write", "/home": "deny"}})"));
  store.set(hs::Scope::user, hs::parse_key_path("permissions"),
            nlohmann::json::parse(R"j({"allow": ["Bash(ls:*)", "Bash(git status)"],
                "deny": ["Read(~/.ssh/**)"], "defaultMode": "default"
})j"));
}

void BM_Library_ReadSettings(benchmark::State& state) {
  hs::StoreOptions options;
  options.read.keep_invalid = true;  // as the service reads
  const hs::Store store(hs::scope_paths_from_environment(std::nullopt), options);
  for (auto _ : state) benchmark::DoNotOptimize(store.snapshot());
}
BENCHMARK(BM_Library_ReadSettings)->Unit(benchmark::kMicrosecond);

// The same reading turned into the JSON the service answers with: what is
// left of the service's time beyond this is HTTP and the trip between
// processes.
void BM_Library_ReadSettingsAsJson(benchmark::State& state) {
  hs::StoreOptions options;
  options.read.keep_invalid = true;
  const hs::Store store(hs::scope_paths_from_environment(std::nullopt), options);
  for (auto _ : state) {
    benchmark::DoNotOptimize(holdfast::service::snapshot_json(store.snapshot()).dump());
  }
}
BENCHMARK(BM_Library_ReadSettingsAsJson)->Unit(benchmark::kMicrosecond);

void BM_Service_GetSettings(benchmark::State& state) {
  httplib::Client client(g_socket.string());
  client.set_address_family(AF_UNIX);
  client.set_keep_alive(true);
  for (auto _ : state) {
    const auto r = client.Get("/api/v1/settings");
    if (!r || r->status != 200) state.SkipWithError("GET /api/v1/settings failed");
  }
}
BENCHMARK(BM_Service_GetSettings)->Unit(benchmark::kMicrosecond);

void BM_Library_SaveWithRevision(benchmark::State& state) {
  hs::Store store(hs::scope_paths_from_environment(std::nullopt));
  std::uint64_t revision = store.load(hs::Scope::user).revision;
  int i = 0;
  for (auto _ : state) {
    revision = store
                   .set(hs::Scope::user, {"model"}, "m" + std::to_string(i++),
                        hs::Expectation{revision, std::nullopt})
                   .revision;
  }
}
BENCHMARK(BM_Library_SaveWithRevision)->Unit(benchmark::kMicrosecond);

void BM_Service_PatchWithIfMatch(benchmark::State& state) {
  httplib::Client client(g_socket.string());
  client.set_address_family(AF_UNIX);
  client.set_keep_alive(true);
  std::string etag = client.Get("/api/v1/scopes/user")->get_header_value("ETag");
  int i = 0;
  for (auto _ : state) {
    const std::string body = R"({"set": {"model": "s)" + std::to_string(i++) + "\"}}";
    const auto r =
        client.Patch("/api/v1/scopes/user", {{"If-Match", etag}}, body, "application/json");
    if (!r || r->status != 200) {
      state.SkipWithError("PATCH /api/v1/scopes/user failed");
      break;
    }
    etag = r->get_header_value("ETag");
  }
}
BENCHMARK(BM_Service_PatchWithIfMatch)->Unit(benchmark::kMicrosecond);

// The real holdfast-serve on g_socket; ready when it says it is listening.
pid_t start_service() {
  int out[2];
  if (pipe(out) != 0) std::abort();
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(out[1], STDOUT_FILENO);
    close(out[0]);
    execl(HOLDFAST_SERVE_BINARY, "holdfast serve", "--socket", g_socket.c_str(),
          static_cast<char*>(nullptr));
    _exit(127);
  }
  close(out[1]);
  char c = 0;
  std::string line;
  while (read(out[0], &c, 1) == 1 && c != '\n') line += c;
  close(out[0]);
  if (line.find("listening") == std::string::npos) {
    std::fprintf(stderr, "holdfast-serve did not start: %s\n", line.c_str());
    std::exit(1);
  }
  return pid;
}

}  // namespace

int main(int argc, char** argv) {
  std::string pattern = (fs::temp_directory_path() / "holdfast-bench.XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) return 1;
  g_dir = pattern;
  for (const char* sub : {"config", "system", "state", "run"}) fs::create_directories(g_dir / sub);
  setenv("HOLDFAST_CONFIG_DIR", (g_dir / "config").c_str(), 1);
  setenv("HOLDFAST_SYSTEM_DIR", (g_dir / "system").c_str(), 1);
  setenv("HOLDFAST_STATE_DIR", (g_dir / "state").c_str(), 1);
  g_socket = g_dir / "run" / "holdfast" / "holdfast.sock";
  write_settings();
  // A directory changed within the last few seconds makes the snapshot
  // reader wait out a settle window before it believes a file there is
  // absent (a writer might be at work); the system scope's files are absent
  // here, so its directory is dated back, as on a machine set up long ago.
  const timespec an_hour_ago[2] = {{time(nullptr) - 3600, 0}, {time(nullptr) - 3600, 0}};
  utimensat(AT_FDCWD, (g_dir / "system").c_str(), an_hour_ago, 0);
  const pid_t service = start_service();

  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();

  kill(service, SIGTERM);
  waitpid(service, nullptr, 0);
  fs::remove_all(g_dir);
  return 0;
}
