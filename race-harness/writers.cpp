#include "race-harness/writers.hpp"

#include <fcntl.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <nlohmann/json.hpp>
#include <random>
#include <stdexcept>

#include "race-harness/documents.hpp"
#include "settings/atomic_writer.hpp"
#include "settings/store.hpp"

namespace holdfast::race {

namespace fs = std::filesystem;

namespace {

// The in-place writer's pause between truncating and writing: an editor's
// own delay, part of the behaviour being imitated.
constexpr timespec kInPlacePause{0, 200'000};

[[noreturn]] void fail(const std::string& what, const fs::path& path) {
  throw std::runtime_error(what + " " + path.string() + ": " + std::strerror(errno));
}

void step(const StepHook& hook, std::string_view name) {
  if (hook) hook(name);
}

void write_whole(int fd, const std::string& bytes, const fs::path& path) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail("cannot write", path);
    done += static_cast<std::size_t>(n);
  }
}

void write_new_file(const fs::path& path, const std::string& bytes) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) fail("cannot create", path);
  write_whole(fd, bytes, path);
  ::close(fd);
}

void save_holdfast(const fs::path& target, std::uint64_t generation, const StepHook& hook) {
  settings::ScopePaths paths;
  paths.config_dir = target.parent_path();
  paths.system_dir = target.parent_path() / "unused-system-dir";
  settings::StoreOptions options;
  if (hook) {
    options.after_write_step = [&](settings::WriteStep s) { hook(settings::write_step_name(s)); };
  }
  settings::Store store(paths, options);
  store.update(settings::Scope::user, [&](nlohmann::json& document) {
    document["tools"] = policy_document(generation)["tools"];
    document["raceHarness"] = {{"generation", generation}};
  });
}

void save_rename_backup(const fs::path& target, std::uint64_t generation, const StepHook& hook) {
  const fs::path temp = target.string() + ".tmp";
  const fs::path backup = target.string() + ".orig";
  write_new_file(temp, policy_text(generation));
  step(hook, "write_temp");
  if (::rename(target.c_str(), backup.c_str()) != 0) fail("cannot rename away", target);
  step(hook, "rename_to_backup");
  if (::rename(temp.c_str(), target.c_str()) != 0) fail("cannot rename into place", temp);
  step(hook, "rename_into_place");
}

void save_copy_backup(const fs::path& target, std::uint64_t generation, const StepHook& hook) {
  const fs::path temp = target.string() + ".new";
  const fs::path backup = target.string() + ".bak";
  {
    const int in = ::open(target.c_str(), O_RDONLY | O_CLOEXEC);
    if (in < 0) fail("cannot open for the backup copy", target);
    std::string bytes;
    char buffer[4096];
    ssize_t n = 0;
    while ((n = ::read(in, buffer, sizeof buffer)) > 0) bytes.append(buffer, n);
    ::close(in);
    write_new_file(backup, bytes);
  }
  step(hook, "copy_backup");
  write_new_file(temp, policy_text(generation));
  step(hook, "write_temp");
  if (::rename(temp.c_str(), target.c_str()) != 0) fail("cannot rename into place", temp);
  step(hook, "rename_into_place");
}

void save_in_place(const fs::path& target, std::uint64_t generation, const StepHook& hook) {
  const int fd = ::open(target.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
  if (fd < 0) fail("cannot open in place", target);
  step(hook, "truncate");
  ::nanosleep(&kInPlacePause, nullptr);
  write_whole(fd, policy_text(generation), target);
  ::close(fd);
  step(hook, "write");
}

std::atomic<bool> g_stop{false};

void on_term(int) { g_stop.store(true); }

void write_report(int fd, const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<std::size_t>(n);
  }
}

}  // namespace

std::vector<std::string> writer_steps(const std::string& writer) {
  if (writer == "holdfast") {
    std::vector<std::string> steps;
    for (const auto s : {settings::WriteStep::create_temp, settings::WriteStep::write_data,
                         settings::WriteStep::keep_mode, settings::WriteStep::sync_file,
                         settings::WriteStep::backup, settings::WriteStep::rename,
                         settings::WriteStep::sync_dir}) {
      steps.emplace_back(settings::write_step_name(s));
    }
    return steps;
  }
  if (writer == "rename-backup") return {"write_temp", "rename_to_backup", "rename_into_place"};
  if (writer == "copy-backup") return {"copy_backup", "write_temp", "rename_into_place"};
  if (writer == "in-place") return {"truncate", "write"};
  throw std::invalid_argument("unknown writer " + writer);
}

void save_once(const std::string& writer, const fs::path& target, std::uint64_t generation,
               const StepHook& hook) {
  if (writer == "holdfast") return save_holdfast(target, generation, hook);
  if (writer == "rename-backup") return save_rename_backup(target, generation, hook);
  if (writer == "copy-backup") return save_copy_backup(target, generation, hook);
  if (writer == "in-place") return save_in_place(target, generation, hook);
  throw std::invalid_argument("unknown writer " + writer);
}

int run_writer(const WriterLoopOptions& options) {
  struct sigaction action {};
  action.sa_handler = on_term;
  ::sigemptyset(&action.sa_mask);
  ::sigaction(SIGTERM, &action, nullptr);
  ::sigaction(SIGINT, &action, nullptr);

  std::mt19937_64 random(options.seed);
  std::exponential_distribution<double> gap(options.rate > 0 ? options.rate : 1.0);
  std::uint64_t saves = 0;
  std::uint64_t failures = 0;
  bool announced = false;
  // Generations start high and apart per writer, so a reader's stamp
  // tells which save it saw.
  std::uint64_t generation = options.seed % 1'000'000 * 1'000'000;
  while (!g_stop.load()) {
    try {
      save_once(options.writer, options.target, ++generation);
      ++saves;
    } catch (const std::exception&) {
      ++failures;  // another writer was in the way; keep going
    }
    if (!announced && saves > 0) {
      write_report(options.report_fd, "ready\n");
      announced = true;
    }
    if (options.rate > 0) {
      const double seconds = gap(random);
      timespec pause{
          static_cast<time_t>(seconds),
          static_cast<long>((seconds - static_cast<double>(static_cast<time_t>(seconds))) * 1e9)};
      ::nanosleep(&pause, nullptr);  // the writer's own pace, interrupted by SIGTERM
    }
  }
  const nlohmann::json stats = {{"saves", saves}, {"failures", failures}};
  write_report(options.report_fd, stats.dump() + "\n");
  return 0;
}

}  // namespace holdfast::race
