#include "settings/snapshot.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <optional>
#include <set>

#include "base/fd.hpp"
#include "base/sha256.hpp"
#include "base/system_error.hpp"
#include "base/write_target.hpp"
#include "settings/atomic_writer.hpp"
#include "settings/inotify.hpp"
#include "settings/key_path.hpp"
#include "settings/presence.hpp"
#include "settings/strict_modes.hpp"

namespace holdfast::settings {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

std::vector<std::string> SnapshotOptions::default_evidence_patterns() {
  return {"{}.tmp", "{}.tmp.*", "{}.*.tmp", "{}.new",  "{}.orig", "{}.bak",  "{}.old",
          "{}~",    ".#{}",     "#{}#",     ".{}.swp", ".{}.swx", ".{}.tmp", ".{}.holdfast-tmp.*"};
}

const ScopeFile* Snapshot::scope(Scope which) const {
  for (const auto& file : scopes) {
    if (file.scope == which) return &file;
  }
  return nullptr;
}

bool Snapshot::complete() const {
  for (const auto& file : scopes) {
    if (!file.valid()) return false;
  }
  return true;
}

namespace {

constexpr std::uint32_t kDirectoryEvents =
    IN_CREATE | IN_MOVED_TO | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_DELETE | IN_MODIFY;
// For a remembered file that went missing: its directory may have been
// swapped or removed, so watch the ancestors for the moment it comes back.
constexpr std::uint32_t kAncestorEvents = kDirectoryEvents | IN_DELETE_SELF | IN_MOVE_SELF;

bool matches_pattern(const std::string& pattern, const std::string& target_name,
                     const std::string& entry) {
  std::string expanded = pattern;
  if (const auto at = expanded.find("{}"); at != std::string::npos) {
    expanded.replace(at, 2, target_name);
  }
  if (const auto star = expanded.find('*'); star != std::string::npos) {
    const std::string prefix = expanded.substr(0, star);
    const std::string suffix = expanded.substr(star + 1);
    return entry.size() >= prefix.size() + suffix.size() && entry.starts_with(prefix) &&
           entry.ends_with(suffix);
  }
  return entry == expanded;
}

bool is_recent(const timespec& when, std::chrono::milliseconds age) {
  timespec now{};
  ::clock_gettime(CLOCK_REALTIME, &now);
  const auto delta = std::chrono::seconds(now.tv_sec - when.tv_sec) +
                     std::chrono::nanoseconds(now.tv_nsec - when.tv_nsec);
  return delta < age;
}

// Names in `directory` that show a writer of `target_name` at work: they
// match a writer pattern and were created, renamed or written recently.
std::vector<std::string> fresh_evidence(const fs::path& directory, const std::string& target_name,
                                        const SnapshotOptions& options) {
  std::vector<std::string> found;
  DIR* dir = ::opendir(directory.c_str());
  if (dir == nullptr) return found;
  while (const dirent* entry = ::readdir(dir)) {
    const std::string name = entry->d_name;
    bool matches = false;
    for (const auto& pattern : options.evidence_patterns) {
      if (matches_pattern(pattern, target_name, name)) {
        matches = true;
        break;
      }
    }
    if (!matches) continue;
    struct stat st {};
    if (::fstatat(dirfd(dir), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
    // ctime moves on create, write and rename alike.
    if (is_recent(st.st_ctim, options.evidence_age)) found.push_back(name);
  }
  ::closedir(dir);
  return found;
}

// Whether the place a missing file would be in changed recently: its
// directory, or — when the directory itself is missing — the nearest
// ancestor that exists (a directory renamed or removed there moves that
// ancestor's mtime).
bool directory_recently_changed(const fs::path& directory, const SnapshotOptions& options) {
  for (fs::path at = directory;; at = at.parent_path()) {
    struct stat st {};
    if (::stat(at.c_str(), &st) == 0) return is_recent(st.st_mtim, options.evidence_age);
    if (at == at.root_path() || at.empty() || at == at.parent_path()) return false;
  }
}

bool usable(const ScopeFile& file) { return file.exists && file.valid(); }

std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

ScopeFile read_once(Scope scope, const fs::path& path) {
  return detail::read_scope_file_once(scope, path);
}

// Where `path` leads now, for watching: a symlink that another program
// replaces as we look at it is watched at its own place (the directory
// events show the new link).
fs::path current_target(const fs::path& path) {
  try {
    return base::resolve_write_target(path);
  } catch (const base::SystemError&) {
    return path;
  }
}

// Watches the directory of `path` and of its symlink target, and every
// ancestor of both that exists, so that a file or a directory coming back
// anywhere on the way is seen. Watching an inode twice is a no-op, so this
// is called again after every batch of events (new directories get
// watched).
void watch_ancestors(Inotify& inotify, const fs::path& path) {
  for (const fs::path& start : {path, current_target(path)}) {
    for (fs::path dir = start.parent_path();; dir = dir.parent_path()) {
      inotify.try_watch(dir, kAncestorEvents);
      if (dir.empty() || dir == dir.parent_path()) break;
    }
  }
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
      " ms. Restore it; or, if you removed it on purpose, confirm that with: holdfast settings "
      "forget --scope " +
      std::string(scope_name(scope)));
}

// Watches the directories on the way to `path` and reads it again after
// every batch of events (and at least every settle window: a directory
// reached through a symlinked ancestor is not watched on its own side),
// until it is complete and valid or max_wait has passed. With
// `quiet_proves_absence`, a settle window with no event while the file is
// missing ends the wait too, and `went_quiet` says so.
ScopeFile wait_watching_ancestors(Scope scope, const fs::path& path, const SnapshotOptions& options,
                                  bool quiet_proves_absence, bool& went_quiet) {
  went_quiet = false;
  Inotify inotify;
  watch_ancestors(inotify, path);
  // Read again once the watches are in place: nothing can come back unseen
  // from here on.
  ScopeFile file = read_once(scope, path);
  const auto deadline = Clock::now() + options.max_wait;
  while (!usable(file)) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) break;
    const auto events = inotify.wait(std::min(left, options.settle_window));
    file = read_once(scope, path);
    if (events.empty() && !file.exists && quiet_proves_absence) {
      went_quiet = true;
      break;
    }
    if (!events.empty()) watch_ancestors(inotify, path);
  }
  return file;
}

// Waits for a remembered file that is missing to come back (see the
// header). Returns it (damaged files too: the caller fails closed), or
// throws when it stays missing.
ScopeFile wait_for_return(Scope scope, const fs::path& path, const PresenceMemory& memory,
                          const SnapshotOptions& options, Settling& settling) {
  settling = Settling::waited_for_return;
  bool went_quiet = false;
  ScopeFile file = wait_watching_ancestors(scope, path, options, false, went_quiet);
  if (file.exists) return file;
  throw_missing(scope, path, memory, options);
}

// First read ever, and the file's directory is missing while the nearest
// ancestor changed recently: a whole directory may be on its way in (a
// writer that swaps directories). Wait, watched, for a settle window with
// no activity; a file that has not appeared by then is absent.
ScopeFile settle_missing_directory(Scope scope, const fs::path& path,
                                   const SnapshotOptions& options, Settling& settling) {
  settling = Settling::waited_for_writer;
  bool went_quiet = false;
  ScopeFile file = wait_watching_ancestors(scope, path, options, true, went_quiet);
  if (went_quiet) settling = Settling::proven_absent;
  if (file.exists || went_quiet) return file;
  throw SnapshotError(path.string() +
                      " is missing and the directories above it kept changing for " +
                      std::to_string(options.max_wait.count()) +
                      " ms (a program may be replacing them in a loop); try again.");
}

// Reads one scope file, waiting out a write in progress (see snapshot.hpp).
ScopeFile read_settled(Scope scope, const fs::path& path, const SnapshotOptions& options,
                       const PresenceMemory& memory, Settling& settling) {
  settling = Settling::immediate;
  ScopeFile file = read_once(scope, path);
  if (usable(file)) return file;

  const bool remembered = is_operator_scope(scope) && memory.remembers(path);
  if (!file.exists && remembered) return wait_for_return(scope, path, memory, options, settling);

  const fs::path target = current_target(path);
  const fs::path directory = target.parent_path();
  const std::string name = target.filename().string();

  // First read ever. A missing file in a directory that has not changed for
  // evidence_age was already missing that long: no rename, create or delete
  // happened there since. Proven absent without watching.
  if (!file.exists && !directory_recently_changed(directory, options)) {
    settling = Settling::proven_absent;
    return file;
  }

  Inotify inotify;
  if (inotify.try_watch(directory, kDirectoryEvents) < 0) {
    // No directory. A remembered file that was damaged and is now gone
    // with its directory is waited for like any missing remembered file.
    if (remembered) return wait_for_return(scope, path, memory, options, settling);
    if (!file.exists) {
      // The nearest existing ancestor changed recently (else we returned
      // above): a directory may be on its way in. Give it one settle
      // window, watched, before calling the file absent.
      return settle_missing_directory(scope, path, options, settling);
    }
    base::throw_errno("cannot watch the directory of", path);
  }
  // From here on nothing can change in the directory without an event, so
  // reading again closes the window between the first read and the watch.
  file = read_once(scope, path);
  if (usable(file)) return file;

  settling = Settling::waited_for_writer;
  const auto start = Clock::now();
  auto quiet_since = start;
  for (;;) {
    const auto now = Clock::now();
    const auto spent = std::chrono::duration_cast<std::chrono::milliseconds>(now - start);
    if (spent >= options.max_wait) break;
    const auto quiet_left =
        options.settle_window -
        std::chrono::duration_cast<std::chrono::milliseconds>(now - quiet_since);
    const auto events = inotify.wait(std::min(quiet_left, options.max_wait - spent));
    if (events.empty()) {
      // A whole settle window without activity.
      file = read_once(scope, path);
      if (usable(file)) return file;
      if (file.exists) return file;  // still damaged: the caller fails closed
      if (remembered) return wait_for_return(scope, path, memory, options, settling);
      if (fresh_evidence(directory, name, options).empty()) {
        settling = Settling::proven_absent;
        return file;
      }
      quiet_since = Clock::now();  // a writer's names are there: give it more time
      continue;
    }
    quiet_since = Clock::now();
    // Read again when the last thing that happened to our name completed a
    // write (closed after writing, renamed in, or created — a symlink is
    // whole when it is created); a truncation or a partial write would
    // only be read as damaged again.
    bool completed = false;
    for (const auto& event : events) {
      if (event.name == name) {
        completed = (event.mask & (IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE)) != 0;
      }
      if ((event.mask & IN_Q_OVERFLOW) != 0) completed = true;
    }
    if (completed) {
      file = read_once(scope, path);
      if (usable(file)) return file;
    }
  }
  file = read_once(scope, path);
  if (usable(file)) return file;
  if (file.exists) return file;  // damaged: the caller fails closed
  if (remembered) throw_missing(scope, path, memory, options);
  throw SnapshotError(
      path.string() + " is missing and a write to it seems to be in progress (" +
      join(fresh_evidence(directory, name, options)) + ") that did not finish within " +
      std::to_string(options.max_wait.count()) +
      " ms. If a program that saves settings crashed, restore the file from its backup or "
      "remove the leftover names; then try again.");
}

// The same content as `file`: both absent, or both present with the same
// bytes. Only the bytes are read (no parse: what they mean was settled
// already). A file that cannot be read now counts as changed.
bool same_content(const ScopeFile& file) {
  const base::UniqueFd fd(::open(file.path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
  if (!fd.valid()) return errno == ENOENT && !file.exists;
  if (!file.exists) return false;
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
  if (st.st_size != static_cast<off_t>(file.bytes.size())) return false;
  try {
    return base::read_all(fd.get(), file.path) == file.bytes;
  } catch (const std::exception&) {
    return false;
  }
}

// Makes `scopes` (each settled, read in the order given) one consistent
// reading, or returns the index of the scope that keeps moving, or
// kRetryAll when more than one moved (the caller reads everything again).
//
// Every scope is read again, in the same order. If all read the same, each
// held its content from its first reading to its second, and the first
// readings all hold at the moment between the two passes. If exactly one
// scope K moved and K was read last, every other scope read the same before
// and after K's reading: those readings bracket it, and the first pass is
// consistent as it is. If K was read earlier, K is read once more and every
// other scope a third time; if they still read the same, their first and
// third readings bracket K's latest, which is taken. Otherwise K is read
// last next time. (Reading the same bytes at two instants is taken as
// holding them in between.)
constexpr std::size_t kConsistent = static_cast<std::size_t>(-1);
constexpr std::size_t kRetryAll = static_cast<std::size_t>(-2);

std::size_t make_consistent(std::vector<ScopeFile>& in_read_order) {
  std::vector<std::size_t> moved;
  for (std::size_t i = 0; i < in_read_order.size(); ++i) {
    if (!same_content(in_read_order[i])) moved.push_back(i);
  }
  if (moved.empty()) return kConsistent;
  if (moved.size() > 1) return kRetryAll;
  const std::size_t k = moved.front();
  if (k + 1 == in_read_order.size()) return kConsistent;
  ScopeFile latest;
  try {
    latest = read_once(in_read_order[k].scope, in_read_order[k].path);
  } catch (const std::exception&) {
    return k;
  }
  if (!usable(latest)) return k;  // missing or damaged mid-save
  for (std::size_t i = 0; i < in_read_order.size(); ++i) {
    if (i != k && !same_content(in_read_order[i])) return kRetryAll;
  }
  in_read_order[k] = std::move(latest);
  return kConsistent;
}

// The scope hashes pin every byte that was read; the effective policy is
// added so that two digests differ whenever the policy a launch enforces
// does. (Dumping the whole effective document would only repeat what the
// hashes already cover, at a cost on every launch.)
std::string snapshot_digest(const Effective& effective, const std::vector<ScopeFile>& scopes) {
  const nlohmann::json* policy = find_value(effective.value, {"tools", "executionSandbox"});
  nlohmann::json basis = {{"policy", policy != nullptr ? *policy : nlohmann::json()},
                          {"scopes", nlohmann::json::array()}};
  for (const auto& file : scopes) {
    basis["scopes"].push_back({std::string(scope_name(file.scope)), file.exists,
                               file.exists ? file.identity.sha256 : std::string()});
  }
  return base::sha256_hex(basis.dump());
}

// Throws UnsafeSettingsFile for an operator file that others could write.
// Returns false when a directory on the way vanished while it was checked
// (a directory being swapped): the caller reads everything again.
bool check_ownership(const std::vector<ScopeFile>& scopes, const SnapshotOptions& options,
                     bool last_attempt) {
  const uid_t uid =
      options.invoking_uid == static_cast<uid_t>(-1) ? ::getuid() : options.invoking_uid;
  for (const auto& file : scopes) {
    if (!file.exists || !is_operator_scope(file.scope)) continue;
    if (auto problem =
            check_strict_modes(file.path, file.identity.owner, file.identity.mode, uid)) {
      if (problem->vanished() && !last_attempt) return false;
      throw *problem;
    }
  }
  return true;
}

bool requires_policy(const std::vector<ScopeFile>& scopes, std::string& declared_in) {
  for (const auto& file : scopes) {
    if (!file.exists || !is_operator_scope(file.scope)) continue;
    const auto* flag = find_value(file.document, {"security", "requireExecutionSandbox"});
    if (flag != nullptr && flag->is_boolean() && flag->get<bool>()) {
      declared_in = file.path.string();
      return true;
    }
  }
  return false;
}

// Records every operator scope file that was read, so that its later
// disappearance is never taken for absence. A record that cannot be
// written is a warning: this reading is sound, only later ones lose the
// memory.
void remember_present(std::vector<ScopeFile>& scopes, const PresenceMemory& memory) {
  if (!memory.enabled()) return;
  for (auto& file : scopes) {
    if (!file.exists || !is_operator_scope(file.scope)) continue;
    try {
      memory.remember(file.path);
    } catch (const std::exception& e) {
      file.diagnostics.push_back(Diagnostic{
          Severity::warning,
          file.path,
          {},
          "",
          std::string("holdfast cannot record that it has seen this file: ") + e.what() +
              "; if the file goes missing later, that may be taken for \"no settings\" on a "
              "first read. Make holdfast's state directory writable"});
    }
  }
}

// Every error of every file that stays damaged, in one exception: the
// operator fixes them all at once.
[[noreturn]] void throw_invalid(const std::vector<ScopeFile>& scopes) {
  std::vector<Diagnostic> errors;
  for (const auto& file : scopes) {
    for (const auto& d : file.diagnostics) {
      if (d.severity == Severity::error) errors.push_back(d);
    }
  }
  throw InvalidSettings(std::move(errors));
}

}  // namespace

ScopeFile read_scope_settled(const ScopePaths& paths, Scope scope, const SnapshotOptions& options) {
  const auto path = paths.file(scope);
  if (!path) throw UsageError("the workspace scope needs a workspace: pass --workspace DIR");
  const PresenceMemory memory(paths.state_dir);
  Settling settling = Settling::immediate;
  std::vector<ScopeFile> one;
  one.push_back(read_settled(scope, *path, options, memory, settling));
  remember_present(one, memory);
  if (!one.front().valid() && !options.keep_invalid) throw_invalid(one);
  return std::move(one.front());
}

Snapshot take_snapshot(const ScopePaths& paths, const SnapshotOptions& options) {
  const PresenceMemory memory(paths.state_dir);
  std::vector<Scope> order;  // the order of reading; a scope that keeps moving goes last
  for (Scope scope : kScopesInPrecedenceOrder) {
    if (paths.file(scope)) order.push_back(scope);
  }
  for (int attempt = 1; attempt <= options.max_attempts; ++attempt) {
    std::vector<ScopeFile> read;
    std::vector<Settling> settling(order.size(), Settling::immediate);
    for (std::size_t i = 0; i < order.size(); ++i) {
      read.push_back(read_settled(order[i], *paths.file(order[i]), options, memory, settling[i]));
    }
    const std::size_t verdict = make_consistent(read);
    if (verdict != kConsistent) {
      if (verdict != kRetryAll) {
        const Scope moving = order[verdict];
        order.erase(order.begin() + static_cast<std::ptrdiff_t>(verdict));
        order.push_back(moving);
      }
      continue;
    }
    Snapshot snapshot;
    snapshot.attempts = attempt;
    for (Scope scope : kScopesInPrecedenceOrder) {  // the snapshot lists scopes by precedence
      for (std::size_t i = 0; i < order.size(); ++i) {
        if (order[i] != scope) continue;
        snapshot.scopes.push_back(std::move(read[i]));
        snapshot.settling.push_back(settling[i]);
      }
    }

    if (options.strict_modes &&
        !check_ownership(snapshot.scopes, options, attempt == options.max_attempts)) {
      continue;
    }
    remember_present(snapshot.scopes, memory);
    if (!snapshot.complete()) {
      if (!options.keep_invalid) throw_invalid(snapshot.scopes);  // fail closed
      return snapshot;                                            // to be shown, never merged
    }

    std::vector<const ScopeFile*> pointers;
    for (const auto& file : snapshot.scopes) pointers.push_back(&file);
    snapshot.effective = merge_scopes(pointers);
    for (const auto& file : snapshot.scopes) {
      snapshot.effective.warnings.insert(snapshot.effective.warnings.end(),
                                         file.diagnostics.begin(), file.diagnostics.end());
    }
    std::string declared_in;
    snapshot.policy_required = requires_policy(snapshot.scopes, declared_in);
    if (snapshot.policy_required &&
        find_value(snapshot.effective.value, {"tools", "executionSandbox"}) == nullptr) {
      std::string scopes_read;
      for (const auto& file : snapshot.scopes) {
        if (!is_operator_scope(file.scope)) continue;
        scopes_read += "\n  " + std::string(scope_name(file.scope)) + ": " + file.path.string() +
                       (file.exists ? " (no tools.executionSandbox)" : " (absent)");
      }
      throw SnapshotError(
          "a confinement policy is required (security.requireExecutionSandbox in " + declared_in +
          ") but no operator scope sets tools.executionSandbox:" + scopes_read +
          "\nSet it, e.g. holdfast settings set --scope user tools.executionSandbox "
          "'{\"filesystem\": \"workspace-write\", \"network\": \"closed\"}'");
    }
    snapshot.digest = snapshot_digest(snapshot.effective, snapshot.scopes);
    return snapshot;
  }
  throw SnapshotError("the settings files kept changing while they were read (" +
                      std::to_string(options.max_attempts) +
                      " attempts, more than one file each time); a program may be saving them "
                      "in a loop. Try again.");
}

}  // namespace holdfast::settings
