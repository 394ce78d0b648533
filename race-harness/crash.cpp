#include "race-harness/crash.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <random>

#include "base/process.hpp"
#include "base/system_error.hpp"
#include "race-harness/campaign.hpp"
#include "race-harness/documents.hpp"
#include "race-harness/writers.hpp"
#include "settings/atomic_writer.hpp"

namespace holdfast::race {

namespace fs = std::filesystem;

namespace {

constexpr std::uint64_t kFirstGeneration = 1;
// Random kills land within this long after the chosen acknowledgement:
// a few saves' worth on tmpfs.
constexpr long kRandomWindowNs = 400'000;

struct KillPlan {
  std::string point;               // step name, or "random"
  std::uint64_t saves_before = 0;  // completed saves before the fatal one
};

void clear_directory(const fs::path& dir) {
  for (const auto& entry : fs::directory_iterator(dir)) fs::remove_all(entry.path());
}

// The child: save generation after generation, acknowledging each on
// `ack_fd`, and SIGKILL itself after step `plan.point` of save number
// `plan.saves_before` (never, for random kills: the parent kills it).
[[noreturn]] void crash_child(const std::string& writer, const fs::path& target,
                              const KillPlan& plan, int ack_fd) {
  try {
    for (std::uint64_t i = 0;; ++i) {
      const std::uint64_t generation = kFirstGeneration + 1 + i;
      const StepHook hook = [&](std::string_view step) {
        if (plan.point != "random" && i == plan.saves_before && step == plan.point) {
          ::raise(SIGKILL);
        }
      };
      save_once(writer, target, generation, pause_of({writer, 0, std::nullopt}), hook);
      if (::write(ack_fd, &generation, sizeof generation) != sizeof generation) _exit(6);
    }
  } catch (...) {
    _exit(7);
  }
}

// Temp names a dead writer may leave beside `target`.
std::uint64_t count_leftovers(const std::string& writer, const fs::path& target) {
  std::uint64_t count = 0;
  const std::string holdfast_prefix = settings::temp_name_prefix(target);
  const std::string name = target.filename().string();
  for (const auto& entry : fs::directory_iterator(target.parent_path())) {
    const std::string entry_name = entry.path().filename().string();
    const bool temp = writer == "holdfast"
                          ? entry_name.starts_with(holdfast_prefix)
                          : entry_name == name + ".tmp" || entry_name == name + ".new";
    if (temp) ++count;
  }
  return count;
}

void run_round(const std::string& writer, const KillPlan& plan, const fs::path& dir,
               std::mt19937_64& random, CrashCell& cell) {
  clear_directory(dir);
  const fs::path target = dir / "settings.json";
  {
    FILE* f = std::fopen(target.c_str(), "w");
    if (f == nullptr) {
      ++cell.errors;
      return;
    }
    const std::string text = policy_text(kFirstGeneration);
    std::fwrite(text.data(), 1, text.size(), f);
    std::fclose(f);
  }
  int acks[2];
  if (::pipe2(acks, O_CLOEXEC) != 0) {
    ++cell.errors;
    return;
  }
  base::Child child;
  try {
    child = base::fork_call([&]() -> int {
      ::close(acks[0]);
      crash_child(writer, target, plan, acks[1]);
    });
  } catch (const base::SystemError&) {
    ::close(acks[0]);
    ::close(acks[1]);
    ++cell.errors;
    return;
  }
  ::close(acks[1]);
  std::uint64_t acked = kFirstGeneration;
  std::uint64_t received = 0;
  std::uint64_t value = 0;
  if (plan.point == "random") {
    // Wait (on the pipe) for the chosen number of completed saves, then
    // let the writer run on for a random instant and kill it.
    while (received < plan.saves_before && ::read(acks[0], &value, sizeof value) == sizeof value) {
      acked = value;
      ++received;
    }
    std::uniform_int_distribution<long> instant(0, kRandomWindowNs);
    const timespec pause{0, instant(random)};
    ::nanosleep(&pause, nullptr);  // the random kill point itself
    child.kill(SIGKILL);
  }
  const int status = child.wait();
  while (::read(acks[0], &value, sizeof value) == sizeof value) acked = value;
  ::close(acks[0]);
  if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL) {
    ++cell.errors;  // the writer failed on its own: this round tested nothing
    return;
  }
  ++cell.rounds;
  const NaiveReading reading = read_naively(target);
  if (reading.kind == NaiveReading::Kind::missing) {
    ++cell.missing;
  } else if (reading.kind != NaiveReading::Kind::strict || !reading.has_generation) {
    ++cell.torn;
  } else if (reading.generation < acked) {
    ++cell.stale;  // a save that was acknowledged is gone
  } else if (reading.generation <= acked + 1) {
    ++cell.old_or_new;
  } else {
    ++cell.errors;  // newer than anything written: the harness is wrong
  }
  std::uint64_t left_by_the_dead = 0;
  if (writer == "holdfast") {
    // The next save must succeed and sweep what the dead writer left.
    left_by_the_dead = count_leftovers(writer, target);
    try {
      save_once(writer, target, acked + 2, pause_of({writer, 0, std::nullopt}));
    } catch (const std::exception&) {
      ++cell.errors;
    }
  }
  const std::uint64_t remaining = count_leftovers(writer, target);
  cell.leftovers += remaining;
  if (left_by_the_dead > remaining) cell.swept += left_by_the_dead - remaining;
}

}  // namespace

const std::vector<std::string>& crash_writer_names() {
  static const std::vector<std::string> names = {"holdfast", "rename-backup", "copy-backup",
                                                 "in-place"};
  return names;
}

CrashResult run_crash_campaign(const CrashOptions& options) {
  CrashResult result;
  result.seed = options.seed;
  result.shard_index = options.shard.index;
  result.shard_count = options.shard.count;
  result.settings_dir = options.work_dir.string();
  result.settings_fs = file_system_name(options.work_dir);
  std::vector<std::string> writers = options.writers;
  if (std::find(writers.begin(), writers.end(), "rename-backup") == writers.end()) {
    writers.push_back("rename-backup");  // the positive control always runs
  }
  std::mt19937_64 random(derive_seed(options.seed, 7'000'000 + options.shard.index));
  const std::uint64_t rounds = shard_share(options.rounds, options.shard);
  ScratchDir scratch(options.work_dir, "crash");
  for (const auto& writer : writers) {
    std::vector<std::string> points = writer_steps(writer);
    points.push_back("random");
    for (const auto& point : points) {
      CrashCell cell;
      cell.writer = writer;
      cell.point = point;
      std::uniform_int_distribution<std::uint64_t> saves_before(0, 3);
      for (std::uint64_t r = 0; r < rounds; ++r) {
        run_round(writer, {point, saves_before(random)}, scratch.path(), random, cell);
      }
      if (options.progress) {
        char line[256];
        std::snprintf(line, sizeof line,
                      "%-14s %-18s %5llu rounds: %5llu old-or-new %4llu missing %4llu torn "
                      "%4llu stale %4llu leftovers %4llu swept %3llu errors",
                      writer.c_str(), point.c_str(), static_cast<unsigned long long>(cell.rounds),
                      static_cast<unsigned long long>(cell.old_or_new),
                      static_cast<unsigned long long>(cell.missing),
                      static_cast<unsigned long long>(cell.torn),
                      static_cast<unsigned long long>(cell.stale),
                      static_cast<unsigned long long>(cell.leftovers),
                      static_cast<unsigned long long>(cell.swept),
                      static_cast<unsigned long long>(cell.errors));
        options.progress(line);
      }
      result.cells.push_back(cell);
    }
  }
  return result;
}

}  // namespace holdfast::race
