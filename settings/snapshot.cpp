#include "settings/snapshot.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <optional>

#include "settings/atomic_writer.hpp"
#include "settings/fd.hpp"
#include "settings/inotify.hpp"
#include "settings/key_path.hpp"
#include "settings/sha256.hpp"
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

namespace {

constexpr std::uint32_t kDirectoryEvents =
    IN_CREATE | IN_MOVED_TO | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_DELETE | IN_MODIFY;

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

bool directory_recently_changed(const fs::path& directory, const SnapshotOptions& options) {
  struct stat st {};
  return ::stat(directory.c_str(), &st) == 0 && is_recent(st.st_mtim, options.evidence_age);
}

bool usable(const ScopeFile& file) { return file.exists && file.valid(); }

std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

// Reads one scope file, waiting out a write in progress (see snapshot.hpp).
ScopeFile read_settled(Scope scope, const fs::path& path, const SnapshotOptions& options,
                       Settling& settling) {
  settling = Settling::immediate;
  ScopeFile file = read_scope_file(scope, path);
  if (usable(file)) return file;

  const fs::path target = resolve_write_target(path);
  const fs::path directory = target.parent_path();
  const std::string name = target.filename().string();

  // A missing file in a directory that has not changed for evidence_age was
  // already missing that long: no rename, create or delete happened there
  // since. Proven absent without watching.
  if (!file.exists && !directory_recently_changed(directory, options)) {
    settling = Settling::proven_absent;
    return file;
  }

  Inotify inotify;
  if (inotify.try_watch(directory, kDirectoryEvents) < 0) {
    if (!file.exists) {
      settling = Settling::proven_absent;  // no directory, so no file and no writer
      return file;
    }
    throw_errno("cannot watch the directory of", path);
  }
  // From here on nothing can change in the directory without an event, so
  // reading again closes the window between the first read and the watch.
  // A file still missing here is missing from a directory that changed
  // recently (a change since the first read only makes it more recent), so
  // only a quiet settle window can prove it absent.
  file = read_scope_file(scope, path);
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
      file = read_scope_file(scope, path);
      if (usable(file)) return file;
      if (file.exists) throw InvalidSettings(file.diagnostics);  // still damaged: fail closed
      if (fresh_evidence(directory, name, options).empty()) {
        settling = Settling::proven_absent;
        return file;
      }
      quiet_since = Clock::now();  // a writer's names are there: give it more time
      continue;
    }
    quiet_since = Clock::now();
    // Read again when the last thing that happened to our name completed a
    // write (closed after writing, or renamed in); a truncation or a
    // partial write would only be read as damaged again.
    bool completed = false;
    for (const auto& event : events) {
      if (event.name == name) completed = (event.mask & (IN_CLOSE_WRITE | IN_MOVED_TO)) != 0;
      if ((event.mask & IN_Q_OVERFLOW) != 0) completed = true;
    }
    if (completed) {
      file = read_scope_file(scope, path);
      if (usable(file)) return file;
    }
  }
  file = read_scope_file(scope, path);
  if (usable(file)) return file;
  if (file.exists) throw InvalidSettings(file.diagnostics);
  throw SnapshotError(
      path.string() + " is missing and a write to it seems to be in progress (" +
      join(fresh_evidence(directory, name, options)) + ") that did not finish within " +
      std::to_string(options.max_wait.count()) +
      " ms. If a program that saves settings crashed, restore the file from its backup or "
      "remove the leftover names; then try again.");
}

// True when `file` still is what was read: same inode and bytes, or still
// absent.
bool unchanged(const ScopeFile& file) {
  const int raw = ::open(file.path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY);
  if (raw < 0) return errno == ENOENT && !file.exists;
  const UniqueFd fd(raw);
  if (!file.exists) return false;
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return false;
  if (st.st_dev != file.identity.device || st.st_ino != file.identity.inode ||
      st.st_size != file.identity.size || st.st_mtim.tv_sec != file.identity.mtime.tv_sec ||
      st.st_mtim.tv_nsec != file.identity.mtime.tv_nsec) {
    return false;
  }
  // Same metadata can hide an in-place rewrite within one clock tick.
  return read_all(fd.get(), file.path) == file.bytes;
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
  return sha256_hex(basis.dump());
}

void check_ownership(const std::vector<ScopeFile>& scopes, const SnapshotOptions& options) {
  const uid_t uid =
      options.invoking_uid == static_cast<uid_t>(-1) ? ::getuid() : options.invoking_uid;
  for (const auto& file : scopes) {
    if (!file.exists || !is_operator_scope(file.scope)) continue;
    if (auto problem =
            check_strict_modes(file.path, file.identity.owner, file.identity.mode, uid)) {
      throw *problem;
    }
  }
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

}  // namespace

Snapshot take_snapshot(const ScopePaths& paths, const SnapshotOptions& options) {
  for (int attempt = 1; attempt <= options.max_attempts; ++attempt) {
    Snapshot snapshot;
    snapshot.attempts = attempt;
    for (Scope scope : kScopesInPrecedenceOrder) {
      const auto path = paths.file(scope);
      if (!path) continue;
      Settling settling = Settling::immediate;
      snapshot.scopes.push_back(read_settled(scope, *path, options, settling));
      snapshot.settling.push_back(settling);
    }
    bool stable = true;
    for (const auto& file : snapshot.scopes) stable = stable && unchanged(file);
    if (!stable) continue;

    if (options.strict_modes) check_ownership(snapshot.scopes, options);
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
                      " attempts); a program may be saving them in a loop. Try again.");
}

}  // namespace holdfast::settings
