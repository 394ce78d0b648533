#include "settings/settle.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fd.hpp"
#include "base/system_error.hpp"
#include "base/write_target.hpp"
#include "settings/evidence.hpp"
#include "settings/path_watch.hpp"
#include "settings/presence.hpp"

namespace holdfast::settings {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

std::vector<std::string> SnapshotOptions::default_evidence_patterns() {
  return {"{}.tmp", "{}.tmp.*", "{}.*.tmp", "{}.new",  "{}.orig", "{}.bak",  "{}.old",
          "{}~",    ".#{}",     "#{}#",     ".{}.swp", ".{}.swx", ".{}.tmp", ".{}.holdfast-tmp.*"};
}

namespace {

std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

ScopeFile read_once(Scope scope, const fs::path& path) {
  return detail::read_scope_file_once(scope, path);
}

std::string forget_command(Scope scope, const fs::path& path) {
  std::string command = "holdfast settings forget --scope " + std::string(scope_name(scope));
  if (scope == Scope::workspace) {
    command += " --workspace " + path.parent_path().parent_path().string();
  }
  return command;
}

[[noreturn]] void throw_missing(Scope scope, const fs::path& path, const PresenceMemory& memory,
                                const SnapshotOptions& options) {
  throw SnapshotError(
      path.string() + " (the " + std::string(scope_name(scope)) +
      " settings) is missing. holdfast has read it before (first seen " +
      memory.first_seen(path).value_or("earlier") +
      "), so a missing file is taken for a save in progress or an accident, never for \"no "
      "settings\"; it did not come back within " +
      std::to_string(options.max_wait.count()) +
      " ms. Restore it; or, if you removed it on purpose, confirm that with: " +
      forget_command(scope, path));
}

// A remembered file is missing: watch the way to it and read again after
// every event about the way (and at least every settle window: a directory
// reached through a symlinked ancestor is not watched on its own side),
// until it is back or max_wait has passed. Returns it (damaged files too:
// the caller fails closed), or throws when it stays missing.
SettledFile wait_for_return(Scope scope, const fs::path& path, const PresenceMemory& memory,
                            const SnapshotOptions& options) {
  PathWatch watch(path);
  // Read again once the watches are in place: nothing can come back unseen
  // from here on.
  ScopeFile file = read_once(scope, path);
  const auto deadline = Clock::now() + options.max_wait;
  while (!file.usable()) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) break;
    watch.wait(std::min(left, options.settle_window));
    file = read_once(scope, path);
  }
  if (file.exists) return {std::move(file), Settling::waited_for_return};
  throw_missing(scope, path, memory, options);
}

}  // namespace

SettledFile settle_scope_file(Scope scope, const fs::path& path, const SnapshotOptions& options,
                              const PresenceMemory& memory) {
  SettledFile settled{read_once(scope, path), Settling::immediate};
  ScopeFile& file = settled.file;
  if (file.usable()) return settled;

  const bool remembered = memory.remembers(path);
  if (!file.exists && remembered) return wait_for_return(scope, path, memory, options);

  // First read ever. A missing file in a directory that has not changed for
  // evidence_age was already missing that long: no rename, create or delete
  // happened there since. Proven absent without watching.
  if (!file.exists &&
      !recently_changed(base::current_write_target(path).parent_path(), options.evidence_age)) {
    settled.settling = Settling::proven_absent;
    return settled;
  }

  PathWatch watch(path);
  // From here on nothing can change on the way without an event, so
  // reading again closes the window between the first read and the watch.
  file = read_once(scope, path);
  if (file.usable()) return settled;

  settled.settling = Settling::waited_for_writer;
  const auto start = Clock::now();
  auto quiet_since = start;
  for (;;) {
    const auto now = Clock::now();
    const auto spent = std::chrono::duration_cast<std::chrono::milliseconds>(now - start);
    if (spent >= options.max_wait) break;
    const auto quiet = std::chrono::duration_cast<std::chrono::milliseconds>(now - quiet_since);
    if (!watch.wait(std::min(options.settle_window - quiet, options.max_wait - spent))) {
      if (Clock::now() - quiet_since < options.settle_window) continue;  // max_wait came first
      // A whole settle window with nothing on the way.
      file = read_once(scope, path);
      if (file.usable()) return settled;
      if (file.exists) return settled;  // still damaged: the caller fails closed
      if (remembered) return wait_for_return(scope, path, memory, options);
      const fs::path target = base::current_write_target(path);
      if (fresh_evidence(target.parent_path(), target.filename().string(),
                         options.evidence_patterns, options.evidence_age)
              .empty()) {
        settled.settling = Settling::proven_absent;
        return settled;
      }
      quiet_since = Clock::now();  // a writer's names are there: give it more time
      continue;
    }
    quiet_since = Clock::now();
    file = read_once(scope, path);
    if (file.usable()) return settled;
  }
  file = read_once(scope, path);
  if (file.exists) return settled;  // complete, or damaged: the caller fails closed
  if (remembered) throw_missing(scope, path, memory, options);
  if (!watch.watches_file_directory()) {
    throw SnapshotError(path.string() +
                        " is missing and the directories on the way to it kept changing for " +
                        std::to_string(options.max_wait.count()) +
                        " ms (a program may be replacing them in a loop); try again.");
  }
  const fs::path target = base::current_write_target(path);
  throw SnapshotError(
      path.string() + " is missing and a write to it seems to be in progress (" +
      join(fresh_evidence(target.parent_path(), target.filename().string(),
                          options.evidence_patterns, options.evidence_age)) +
      ") that did not finish within " + std::to_string(options.max_wait.count()) +
      " ms. If a program that saves settings crashed, restore the file from its backup or "
      "remove the leftover names; then try again.");
}

std::optional<FileIdentity> identity_if_unchanged(const ScopeFile& file) {
  if (!file.exists) return std::nullopt;
  const base::UniqueFd fd(::open(file.path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
  if (!fd.valid()) return std::nullopt;
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  if (st.st_size != static_cast<off_t>(file.bytes.size())) return std::nullopt;
  try {
    if (base::read_all(fd.get(), file.path) != file.bytes) return std::nullopt;
  } catch (const std::exception&) {
    return std::nullopt;
  }
  FileIdentity now = file.identity;
  now.device = st.st_dev;
  now.inode = st.st_ino;
  now.size = st.st_size;
  now.mtime = st.st_mtim;
  now.owner = st.st_uid;
  now.mode = st.st_mode;
  return now;
}

bool same_content(const ScopeFile& file) {
  if (file.exists) return identity_if_unchanged(file).has_value();
  struct stat st {};
  return ::stat(file.path.c_str(), &st) != 0 && errno == ENOENT;
}

}  // namespace holdfast::settings
