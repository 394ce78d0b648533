#include "race-harness/writers.hpp"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>
#include <random>
#include <stdexcept>

#include "base/fd.hpp"
#include "base/files.hpp"
#include "base/system_error.hpp"
#include "race-harness/documents.hpp"
#include "race-harness/stop_signal.hpp"
#include "settings/atomic_writer.hpp"
#include "settings/errors.hpp"
#include "settings/scopes.hpp"
#include "settings/store.hpp"

namespace holdfast::race {

namespace fs = std::filesystem;

namespace {

using std::chrono::microseconds;

// Where the symlink writers keep their targets: a directory of its own
// beside NAME, as a dotfile manager keeps its store.
constexpr const char* kStoreName = ".race-store";

void step(const StepHook& hook, std::string_view name) {
  if (hook) hook(name);
}

// The writer's own pause, part of the behaviour being imitated (a SIGTERM
// cuts it short, and the save then completes).
void hold(microseconds pause) {
  if (pause.count() <= 0) return;
  const timespec duration{static_cast<time_t>(pause.count() / 1'000'000),
                          static_cast<long>(pause.count() % 1'000'000) * 1000};
  ::nanosleep(&duration, nullptr);
}

// What a writer of this kind creates: mode 0644 (less the umask).
void write_new_file(const fs::path& path, const std::string& bytes) {
  base::write_file(path, bytes, 0644);
}

std::string read_whole(const fs::path& path, const char* why) {
  try {
    return base::read_file(path);
  } catch (const base::SystemError& e) {
    throw base::SystemError(why, path, e.error_number());
  }
}

void rename_or_fail(const fs::path& from, const fs::path& to, const char* what) {
  if (::rename(from.c_str(), to.c_str()) != 0) base::throw_errno(what, from);
}

// Sets every key of the policy stamped `generation` in `document`.
void apply_policy(nlohmann::json& document, std::uint64_t generation) {
  const nlohmann::json policy = policy_document(generation);
  for (const auto& [key, value] : policy.items()) document[key] = value;
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
  store.update(settings::Scope::user,
               [&](nlohmann::json& document) { apply_policy(document, generation); });
}

// Write `bytes` to NAME + temp_suffix, rename NAME to NAME + backup_suffix,
// hold the gap open for `pause`, rename the temp into place.
void save_through_backup(const fs::path& target, const std::string& bytes, const char* temp_suffix,
                         const char* backup_suffix, microseconds pause, const StepHook& hook) {
  const fs::path temp = target.string() + temp_suffix;
  const fs::path backup = target.string() + backup_suffix;
  write_new_file(temp, bytes);
  step(hook, "write_temp");
  rename_or_fail(target, backup, "cannot rename to the backup");
  step(hook, "rename_to_backup");
  hold(pause);
  rename_or_fail(temp, target, "cannot rename into place");
  step(hook, "rename_into_place");
}

void save_rename_backup(const fs::path& target, std::uint64_t generation, microseconds pause,
                        const StepHook& hook) {
  save_through_backup(target, policy_text(generation), ".tmp", ".orig", pause, hook);
}

void save_copy_backup(const fs::path& target, std::uint64_t generation, const StepHook& hook) {
  const fs::path temp = target.string() + ".new";
  const fs::path backup = target.string() + ".bak";
  write_new_file(backup, read_whole(target, "cannot open for the backup copy"));
  step(hook, "copy_backup");
  write_new_file(temp, policy_text(generation));
  step(hook, "write_temp");
  rename_or_fail(temp, target, "cannot rename into place");
  step(hook, "rename_into_place");
}

void save_in_place(const fs::path& target, std::uint64_t generation, microseconds pause,
                   const StepHook& hook) {
  const int fd = ::open(target.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
  if (fd < 0) base::throw_errno("cannot open in place", target);
  step(hook, "truncate");
  hold(pause);
  base::write_all(fd, policy_text(generation), target);
  ::close(fd);
  step(hook, "write");
}

// A directory writer's new directory, DIR + suffix, holding only the new
// NAME. (Each writer has its own suffix, so two can run side by side.)
fs::path build_next_directory(const fs::path& target, const std::string& text, const char* suffix) {
  const fs::path directory = target.parent_path();
  const fs::path next = directory.string() + suffix;
  std::error_code ec;
  fs::remove_all(next, ec);  // left by a save that failed half-way
  if (::mkdir(next.c_str(), 0755) != 0) base::throw_errno("cannot make", next);
  write_new_file(next / target.filename(), text);
  return next;
}

void remove_tree(const fs::path& path) {
  std::error_code ec;
  fs::remove_all(path, ec);
  if (ec) throw std::runtime_error("cannot remove " + path.string() + ": " + ec.message());
}

void swap_directory(const fs::path& target, const std::string& text, microseconds pause,
                    const StepHook& hook) {
  const fs::path directory = target.parent_path();
  const fs::path previous = directory.string() + ".prev";
  const fs::path next = build_next_directory(target, text, ".next");
  step(hook, "build_next_dir");
  remove_tree(previous);  // rename() onto a non-empty directory fails
  rename_or_fail(directory, previous, "cannot rename the directory away");
  step(hook, "rename_dir_away");
  hold(pause);
  rename_or_fail(next, directory, "cannot rename the new directory into place");
  step(hook, "rename_dir_into_place");
  remove_tree(previous);
  step(hook, "remove_previous_dir");
}

void save_dir_swap(const fs::path& target, std::uint64_t generation, microseconds pause,
                   const StepHook& hook) {
  swap_directory(target, policy_text(generation), pause, hook);
}

void save_dir_exchange(const fs::path& target, std::uint64_t generation, const StepHook& hook) {
  const fs::path directory = target.parent_path();
  const fs::path next = build_next_directory(target, policy_text(generation), ".incoming");
  step(hook, "build_next_dir");
  if (::renameat2(AT_FDCWD, next.c_str(), AT_FDCWD, directory.c_str(), RENAME_EXCHANGE) != 0) {
    base::throw_errno(
        "cannot exchange (renameat2 RENAME_EXCHANGE; the file system must support it)", next);
  }
  step(hook, "exchange_dirs");
  remove_tree(next);  // the old directory, now under the new one's name
  step(hook, "remove_previous_dir");
}

void save_rename_prev(const fs::path& target, std::uint64_t generation, microseconds pause,
                      const StepHook& hook) {
  // A copy of the live document with the change applied, as an editor of
  // the whole file makes; then the same renames as rename-backup, through
  // names that are on no writer list.
  auto document = nlohmann::json::parse(read_whole(target, "cannot open to copy"), nullptr, false);
  if (!document.is_object()) {
    throw std::runtime_error("cannot copy " + target.string() + ": it is not a JSON object");
  }
  apply_policy(document, generation);
  save_through_backup(target, document.dump(2) + "\n", ".next", ".prev", pause, hook);
}

// An autosave of unchanged settings: the bytes in place, again, through a
// temp and one rename (the path always names a whole file).
void save_same_content(const fs::path& target, const StepHook& hook) {
  const fs::path temp = target.parent_path() / ("." + target.filename().string() + ".race-same");
  write_new_file(temp, read_whole(target, "cannot read to save again"));
  step(hook, "write_temp");
  rename_or_fail(temp, target, "cannot rename into place");
  step(hook, "rename_into_place");
}

// A program's own files, created, written and removed beside the settings:
// in the target's directory and in the one above it (where an absent
// system directory, or a workspace's missing .holdfast/, would appear).
void save_churn(const fs::path& target, std::uint64_t generation, const StepHook& hook) {
  const std::string name =
      ".race-churn-" + std::to_string(::getpid()) + "-" + std::to_string(generation % 4);
  for (const fs::path& dir : {target.parent_path(), target.parent_path().parent_path()}) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) continue;
    write_new_file(dir / name, "churn\n");
    ::unlink((dir / name).c_str());
  }
  step(hook, "churn");
}

// rename-prev, after removing holdfast's state directory (the one the
// campaign gives every reader), as `rm -rf $XDG_STATE_HOME` would.
void save_state_loss(const fs::path& target, std::uint64_t generation, microseconds pause,
                     const StepHook& hook) {
  try {
    remove_tree(settings::state_dir_from_environment());
  } catch (const settings::UsageError&) {
    // no state directory named: nothing to lose
  }
  step(hook, "remove_state_dir");
  save_rename_prev(target, generation, pause, hook);
}

void save_workspace_delete_recreate(const fs::path& target, std::uint64_t generation,
                                    microseconds pause, const StepHook& hook) {
  if (::unlink(target.c_str()) != 0) base::throw_errno("cannot remove", target);
  step(hook, "remove");
  hold(pause);
  write_new_file(target, workspace_text(generation));
  step(hook, "recreate");
}

fs::path store_of(const fs::path& target) { return target.parent_path() / kStoreName; }

void make_store(const fs::path& target) {
  // A directory swap may have taken the store away with the old directory.
  if (::mkdir(store_of(target).c_str(), 0755) != 0 && errno != EEXIST) {
    base::throw_errno("cannot make", store_of(target));
  }
}

// Makes NAME a symlink to `link_text` in one step (a temporary link
// renamed over it), never leaving NAME missing.
void replace_with_link(const fs::path& target, const std::string& link_text) {
  const fs::path temp = target.parent_path() / ("." + target.filename().string() + ".race-link");
  ::unlink(temp.c_str());
  if (::symlink(link_text.c_str(), temp.c_str()) != 0)
    base::throw_errno("cannot make the symlink", temp);
  rename_or_fail(temp, target, "cannot rename the symlink into place");
}

void save_symlink_flip(const fs::path& target, std::uint64_t generation, microseconds pause,
                       const StepHook& hook) {
  make_store(target);
  const std::string name = "settings-" + std::to_string(generation) + ".json";
  const std::string link_text = std::string(kStoreName) + "/" + name;
  write_new_file(store_of(target) / name, policy_text(generation));
  step(hook, "write_target");
  std::error_code ec;
  const fs::path old_link = fs::read_symlink(target, ec);
  if (::unlink(target.c_str()) != 0) base::throw_errno("cannot remove the link", target);
  step(hook, "remove_link");
  hold(pause);
  if (::symlink(link_text.c_str(), target.c_str()) != 0)
    base::throw_errno("cannot create the link", target);
  step(hook, "create_link");
  if (!ec && old_link.parent_path() == kStoreName && old_link.filename() != name) {
    ::unlink((target.parent_path() / old_link).c_str());
  }
  step(hook, "remove_old_target");
}

void save_symlink_dangle(const fs::path& target, std::uint64_t generation, microseconds pause,
                         const StepHook& hook) {
  make_store(target);
  std::error_code ec;
  fs::path link = fs::read_symlink(target, ec);
  if (ec) {
    // Another writer replaced the link with a file: make it a link again,
    // without a gap (this writer's gap is the target's, below).
    link = fs::path(kStoreName) / "current.json";
    write_new_file(target.parent_path() / link, policy_text(generation));
    replace_with_link(target, link.string());
  }
  const fs::path current = link.is_absolute() ? link : target.parent_path() / link;
  const fs::path temp = current.string() + ".next";
  write_new_file(temp, policy_text(generation));
  step(hook, "write_temp");
  if (::unlink(current.c_str()) != 0) base::throw_errno("cannot remove the link's target", current);
  step(hook, "remove_target");
  hold(pause);
  rename_or_fail(temp, current, "cannot rename into place");
  step(hook, "rename_into_place");
}

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

namespace {

using SaveFunction = void (*)(const fs::path& target, std::uint64_t generation, microseconds pause,
                              const StepHook& hook);

// Every writer: its name, the steps it reports (where a crash campaign can
// kill it), and how it saves. Writers without a gap to hold ignore the pause.
struct WriterProcedure {
  std::string_view name;
  std::vector<std::string> steps;
  SaveFunction save;
};

std::vector<std::string> holdfast_steps() {
  std::vector<std::string> steps;
  for (const auto s :
       {settings::WriteStep::create_temp, settings::WriteStep::write_data,
        settings::WriteStep::keep_mode, settings::WriteStep::sync_file, settings::WriteStep::backup,
        settings::WriteStep::rename, settings::WriteStep::sync_dir}) {
    steps.emplace_back(settings::write_step_name(s));
  }
  return steps;
}

const std::vector<WriterProcedure>& procedures() {
  static const std::vector<WriterProcedure> table = {
      {"holdfast", holdfast_steps(),
       [](const fs::path& t, std::uint64_t g, microseconds, const StepHook& h) {
         save_holdfast(t, g, h);
       }},
      {"rename-backup",
       {"write_temp", "rename_to_backup", "rename_into_place"},
       save_rename_backup},
      {"copy-backup",
       {"copy_backup", "write_temp", "rename_into_place"},
       [](const fs::path& t, std::uint64_t g, microseconds, const StepHook& h) {
         save_copy_backup(t, g, h);
       }},
      {"in-place", {"truncate", "write"}, save_in_place},
      {"dir-swap",
       {"build_next_dir", "rename_dir_away", "rename_dir_into_place", "remove_previous_dir"},
       save_dir_swap},
      {"dir-exchange",
       {"build_next_dir", "exchange_dirs", "remove_previous_dir"},
       [](const fs::path& t, std::uint64_t g, microseconds, const StepHook& h) {
         save_dir_exchange(t, g, h);
       }},
      {"rename-prev", {"write_temp", "rename_to_backup", "rename_into_place"}, save_rename_prev},
      {"symlink-flip",
       {"write_target", "remove_link", "create_link", "remove_old_target"},
       save_symlink_flip},
      {"symlink-dangle", {"write_temp", "remove_target", "rename_into_place"}, save_symlink_dangle},
      {"same-content",
       {"write_temp", "rename_into_place"},
       [](const fs::path& t, std::uint64_t, microseconds, const StepHook& h) {
         save_same_content(t, h);
       }},
      {"churn",
       {"churn"},
       [](const fs::path& t, std::uint64_t g, microseconds, const StepHook& h) {
         save_churn(t, g, h);
       }},
      {"state-loss",
       {"remove_state_dir", "write_temp", "rename_to_backup", "rename_into_place"},
       save_state_loss},
      {"workspace-rename-prev",
       {"write_temp", "rename_to_backup", "rename_into_place"},
       [](const fs::path& t, std::uint64_t g, microseconds p, const StepHook& h) {
         save_through_backup(t, workspace_text(g), ".next", ".prev", p, h);
       }},
      {"workspace-delete-recreate", {"remove", "recreate"}, save_workspace_delete_recreate},
      {"workspace-dir-swap",
       {"build_next_dir", "rename_dir_away", "rename_dir_into_place", "remove_previous_dir"},
       [](const fs::path& t, std::uint64_t g, microseconds p, const StepHook& h) {
         swap_directory(t, workspace_text(g), p, h);
       }},
  };
  return table;
}

const WriterProcedure& procedure(const std::string& writer) {
  for (const auto& p : procedures()) {
    if (p.name == writer) return p;
  }
  throw std::invalid_argument("unknown writer " + writer);
}

}  // namespace

std::vector<std::string> writer_steps(const std::string& writer) { return procedure(writer).steps; }

void create_initial_target(const std::vector<std::string>& writers, const fs::path& target,
                           const std::string& text) {
  const bool symlink = std::any_of(writers.begin(), writers.end(), [](const std::string& w) {
    return w == "symlink-flip" || w == "symlink-dangle";
  });
  if (!symlink) return write_new_file(target, text);
  make_store(target);
  const fs::path link = fs::path(kStoreName) / "current.json";
  write_new_file(target.parent_path() / link, text);
  replace_with_link(target, link.string());
}

void save_once(const std::string& writer, const fs::path& target, std::uint64_t generation,
               microseconds pause, const StepHook& hook) {
  procedure(writer).save(target, generation, pause, hook);
}

int run_writer(const WriterLoopOptions& options) {
  stop_on_term_or_interrupt();

  std::mt19937_64 random(options.seed);
  std::exponential_distribution<double> gap(options.rate > 0 ? options.rate : 1.0);
  std::uint64_t saves = 0;
  std::uint64_t failures = 0;
  bool announced = false;
  // Generations start high and apart per writer, so a reader's stamp
  // tells which save it saw.
  std::uint64_t generation = options.seed % 1'000'000 * 1'000'000;
  while (!stop_requested()) {
    try {
      save_once(options.writer, options.target, ++generation, options.pause);
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
