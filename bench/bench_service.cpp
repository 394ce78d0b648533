// Speed of `holdfast serve`: next to the library calls it makes, and the
// owner's requests with others misbehaving beside them.
//
//   ninja -C build bench_service holdfast
//   build/bench/bench_service --benchmark_repetitions=5
//       --benchmark_report_aggregates_only=true
//
// Read: Store::snapshot() (what GET /api/v1/settings reads), the same with
// the answer's JSON made, against GET /api/v1/settings on a kept-alive
// connection over the Unix socket. Save: Store::update() with the revision
// expected (a durable save: lock, read, fsync, rename, fsync dir), against
// PATCH /api/v1/scopes/user with If-Match.
//
// Under load: a second service on 127.0.0.1 (the page's transport), GET and
// PATCH with the session, first quiet, then with 50 hostile connections
// (no session; each sends one byte of a request head every 2 s and
// connects again whenever the service closes it) and 40 open event streams
// of the owner's (read as they come) beside them. Each reports requests
// per second and its p99 latency (counters req_per_s, p99_us).
//
// The services are the real holdfast serve, started once each; their
// settings live in a temp directory under $TMPDIR (default /tmp): point it
// at the disk you care about, since fsync dominates the saves. With
// HOLDFAST_BENCH_BINARY=PATH another holdfast is measured (one that prints
// the older "?token=" link is given that token as its bearer).
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "service/answers.hpp"
#include "settings/store.hpp"
#include "tests/service/http_client.hpp"

namespace {

namespace fs = std::filesystem;
namespace hs = holdfast::settings;
using holdfast::testing::Headers;
using holdfast::testing::HttpConnection;

fs::path g_dir;
fs::path g_socket;
std::uint16_t g_port = 0;
std::string g_session;  // the TCP service's
std::string g_origin;

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

// Requests per second and the p99 of the latencies one benchmark run saw.
void report(benchmark::State& state, std::vector<double>& micros) {
  state.counters["req_per_s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  if (micros.empty()) return;
  std::sort(micros.begin(), micros.end());
  state.counters["p99_us"] = micros[std::min(micros.size() - 1, micros.size() * 99 / 100)];
}

template <class Request>
void timed(benchmark::State& state, Request request) {
  std::vector<double> micros;
  micros.reserve(1 << 16);
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    if (!request()) {
      state.SkipWithError("no answer (or not 200) within the client's bound");
      break;
    }
    micros.push_back(
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start)
            .count());
  }
  report(state, micros);
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
  auto client = HttpConnection::unix_socket(g_socket);
  timed(state, [&] {
    const auto r = client.get("/api/v1/settings");
    return r && r->status == 200;
  });
}
BENCHMARK(BM_Service_GetSettings)->Unit(benchmark::kMicrosecond)->UseRealTime();

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

// PATCH with If-Match, the revision taken from each answer.
bool patch(HttpConnection& client, std::string& etag, int& i, const Headers& auth) {
  const std::string body = R"({"set": {"model": "s)" + std::to_string(i++) + "\"}}";
  Headers headers = auth;
  headers.emplace_back("If-Match", etag);
  const auto r = client.patch("/api/v1/scopes/user", body, headers);
  if (!r || r->status != 200) return false;
  etag = r->header("ETag");
  return true;
}

void BM_Service_PatchWithIfMatch(benchmark::State& state) {
  auto client = HttpConnection::unix_socket(g_socket);
  std::string etag = client.get("/api/v1/scopes/user")->header("ETag");
  int i = 0;
  timed(state, [&] { return patch(client, etag, i, {}); });
}
BENCHMARK(BM_Service_PatchWithIfMatch)->Unit(benchmark::kMicrosecond)->UseRealTime();

// ---- the owner, with others misbehaving beside -----------------------------

Headers owner_headers(bool write) {
  Headers headers = {{"Authorization", "Bearer " + g_session}};
  if (write) headers.emplace_back("Origin", g_origin);
  return headers;
}

// 50 connections without the session, each trickling one byte of a request
// head every 2 s and connecting again when closed; and 40 event streams of
// the owner's, read as they come. One thread does it all with poll().
class Hostile {
 public:
  // Returns once every stream and connection is open.
  Hostile() : thread_([this] { run(); }) {
    std::unique_lock lock(mutex_);
    ready_.wait(lock, [this] { return started_; });
  }
  // How many times the service closed a hostile connection.
  std::size_t closed_by_service() const { return reconnects_; }
  ~Hostile() {
    stop_ = true;
    thread_.join();
  }

 private:
  void run() {
    std::vector<HttpConnection> streams;
    for (int i = 0; i < 40; ++i) {
      streams.push_back(HttpConnection::tcp("127.0.0.1", g_port));
      streams.back().set_bound(std::chrono::seconds(5));
      const auto head =
          streams.back().open_stream({"GET", "/api/v1/events", owner_headers(false), "", ""});
      if (!head || head->status != 200) std::fprintf(stderr, "event stream %d refused\n", i);
    }
    std::vector<HttpConnection> idle;
    for (int i = 0; i < 50; ++i) {
      idle.push_back(HttpConnection::tcp("127.0.0.1", g_port));
      idle.back().connect();
    }
    {
      const std::lock_guard lock(mutex_);
      started_ = true;
    }
    ready_.notify_all();
    auto next_byte = std::chrono::steady_clock::now();
    while (!stop_) {
      std::vector<pollfd> fds;
      for (auto& s : streams) fds.push_back({s.fd(), POLLIN, 0});
      for (auto& c : idle) fds.push_back({c.fd(), POLLIN, 0});
      poll(fds.data(), fds.size(), 100);
      char buffer[65536];
      for (std::size_t i = 0; i < fds.size(); ++i) {
        if ((fds[i].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
        const ssize_t n = recv(fds[i].fd, buffer, sizeof buffer, MSG_DONTWAIT);
        if (i >= streams.size() && n <= 0) {  // the service closed a hostile one
          auto& connection = idle[i - streams.size()];
          connection.close();
          connection.connect();
          ++reconnects_;
        }
      }
      if (std::chrono::steady_clock::now() >= next_byte) {
        for (auto& c : idle) send(c.fd(), "G", 1, MSG_NOSIGNAL | MSG_DONTWAIT);
        next_byte += std::chrono::seconds(2);
      }
    }
  }

  std::mutex mutex_;
  std::condition_variable ready_;
  bool started_ = false;
  std::atomic<bool> stop_{false};
  std::atomic<std::size_t> reconnects_{0};
  std::thread thread_;
};

std::unique_ptr<Hostile> g_hostile;

void start_hostile(const benchmark::State&) { g_hostile = std::make_unique<Hostile>(); }
void stop_hostile(const benchmark::State&) { g_hostile.reset(); }

void count_hostile(benchmark::State& state) {
  if (g_hostile) {
    state.counters["hostile_closed"] = static_cast<double>(g_hostile->closed_by_service());
  }
}

void get_over_tcp(benchmark::State& state) {
  auto client = HttpConnection::tcp("127.0.0.1", g_port);
  client.set_bound(std::chrono::seconds(20));
  timed(state, [&] {
    const auto r = client.get("/api/v1/settings", owner_headers(false));
    return r && r->status == 200;
  });
  count_hostile(state);
}

void patch_over_tcp(benchmark::State& state) {
  auto client = HttpConnection::tcp("127.0.0.1", g_port);
  client.set_bound(std::chrono::seconds(20));
  const auto first = client.get("/api/v1/scopes/user", owner_headers(false));
  if (!first) {
    state.SkipWithError("no answer to the first GET within the client's bound");
    return;
  }
  std::string etag = first->header("ETag");
  int i = 0;
  timed(state, [&] { return patch(client, etag, i, owner_headers(true)); });
  count_hostile(state);
}

void BM_Tcp_Get_Quiet(benchmark::State& state) { get_over_tcp(state); }
void BM_Tcp_Get_BesideHostile(benchmark::State& state) { get_over_tcp(state); }
void BM_Tcp_Patch_Quiet(benchmark::State& state) { patch_over_tcp(state); }
void BM_Tcp_Patch_BesideHostile(benchmark::State& state) { patch_over_tcp(state); }
BENCHMARK(BM_Tcp_Get_Quiet)->Unit(benchmark::kMicrosecond)->UseRealTime();
// Long enough runs that the service closes each hostile connection (10 s
// for a request head) and the attacker connects again, during the run.
BENCHMARK(BM_Tcp_Get_BesideHostile)
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime()
    ->MinTime(12)
    ->Setup(start_hostile)
    ->Teardown(stop_hostile);
BENCHMARK(BM_Tcp_Patch_Quiet)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_Tcp_Patch_BesideHostile)
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime()
    ->MinTime(12)
    ->Setup(start_hostile)
    ->Teardown(stop_hostile);

// ---- the services ------------------------------------------------------------

std::string holdfast_binary() {
  const char* other = std::getenv("HOLDFAST_BENCH_BINARY");
  return other != nullptr && other[0] != '\0' ? other : HOLDFAST_BINARY;
}

// The real holdfast serve ARGS; ready when it says it is listening.
// Returns its pid and what it printed after "listening on ".
std::pair<pid_t, std::string> start_service(std::vector<std::string> args) {
  int out[2];
  if (pipe(out) != 0) std::abort();
  const std::string binary = holdfast_binary();
  args.insert(args.begin(), {binary, "serve"});
  std::vector<char*> argv;
  for (auto& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(out[1], STDOUT_FILENO);
    close(out[0]);
    execv(binary.c_str(), argv.data());
    _exit(127);
  }
  close(out[1]);
  char c = 0;
  std::string line;
  while (read(out[0], &c, 1) == 1 && c != '\n') line += c;
  close(out[0]);
  const std::string prefix = "holdfast serve: listening on ";
  if (line.rfind(prefix, 0) != 0) {
    std::fprintf(stderr, "holdfast serve did not start: %s\n", line.c_str());
    std::exit(1);
  }
  return {pid, line.substr(prefix.size())};
}

// The session of the TCP service: the link exchanged (or an older build's
// token used as it is).
void open_session(const std::string& where) {
  const auto colon = where.rfind(':');
  g_port = static_cast<std::uint16_t>(std::stoi(where.substr(colon + 1)));
  g_origin = where.substr(0, where.find('/', 7));
  if (const auto at = where.find("/?token="); at != std::string::npos) {
    g_session = where.substr(at + 8);
    return;
  }
  const std::string link = where.substr(where.find("#token=") + 7);
  auto client = HttpConnection::tcp("127.0.0.1", g_port);
  const auto r = client.post("/api/v1/session", "",
                             {{"Authorization", "Bearer " + link}, {"Origin", g_origin}});
  if (!r || r->status != 201) {
    std::fprintf(stderr, "no session from %s\n", where.c_str());
    std::exit(1);
  }
  g_session = nlohmann::json::parse(r->body)["session"];
}

}  // namespace

int main(int argc, char** argv) {
  std::string pattern = (fs::temp_directory_path() / "holdfast-bench.XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) return 1;
  g_dir = pattern;
  for (const char* sub : {"config", "system", "state", "run"}) fs::create_directories(g_dir / sub);
  fs::permissions(g_dir / "run", fs::perms::owner_all);
  setenv("HOLDFAST_CONFIG_DIR", (g_dir / "config").c_str(), 1);
  setenv("HOLDFAST_SYSTEM_DIR", (g_dir / "system").c_str(), 1);
  setenv("HOLDFAST_STATE_DIR", (g_dir / "state").c_str(), 1);
  setenv("XDG_RUNTIME_DIR", (g_dir / "run").c_str(), 1);
  g_socket = g_dir / "run" / "holdfast" / "holdfast.sock";
  write_settings();
  // A directory changed within the last few seconds makes the snapshot
  // reader wait out a settle window before it believes a file there is
  // absent (a writer might be at work); the system scope's files are absent
  // here, so its directory is dated back, as on a machine set up long ago.
  const timespec an_hour_ago[2] = {{time(nullptr) - 3600, 0}, {time(nullptr) - 3600, 0}};
  utimensat(AT_FDCWD, (g_dir / "system").c_str(), an_hour_ago, 0);
  const auto unix_service = start_service({});  // on $XDG_RUNTIME_DIR/holdfast/holdfast.sock
  const auto tcp_service = start_service({"--listen", "127.0.0.1:0"});
  open_session(tcp_service.second);

  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();

  for (const pid_t pid : {unix_service.first, tcp_service.first}) {
    kill(pid, SIGTERM);
    waitpid(pid, nullptr, 0);
  }
  fs::remove_all(g_dir);
  return 0;
}
