#include "settings/presence.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ctime>
#include <nlohmann/json.hpp>
#include <system_error>

#include "base/fd.hpp"
#include "base/sha256.hpp"
#include "base/system_error.hpp"
#include "settings/atomic_writer.hpp"

namespace holdfast::settings {

namespace fs = std::filesystem;

namespace {

// The name a scope file is remembered under: absolute and lexically
// normal, symlinks not resolved (a link that dangles mid-save must still
// be recognised).
fs::path key_of(const fs::path& scope_file) { return fs::absolute(scope_file).lexically_normal(); }

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  ::gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

std::string record_text(const fs::path& scope_file) {
  return nlohmann::json{{"path", key_of(scope_file).string()}, {"firstSeen", utc_now()}}.dump() +
         "\n";
}

bool exists_here(const fs::path& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

// Creates `directory` and its parents, owner-only for the ones made here.
void make_private_directories(const fs::path& directory) {
  if (::mkdir(directory.c_str(), 0700) == 0 || errno == EEXIST) return;
  if (errno != ENOENT) base::throw_errno("cannot create holdfast's state directory", directory);
  make_private_directories(directory.parent_path());
  if (::mkdir(directory.c_str(), 0700) != 0 && errno != EEXIST) {
    base::throw_errno("cannot create holdfast's state directory", directory);
  }
}

void sync_directory(const fs::path& directory, const char* what) {
  const base::UniqueFd dir(::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!dir.valid() || ::fsync(dir.get()) != 0) base::throw_errno(what, directory);
}

// Writes the marker beside `scope_file`, if holdfast may: only into a
// directory owned by its effective user, opened once (for the workspace,
// never through a symlink: the workspace is hostile input) and written
// through that descriptor, created exclusively. Returns whether the marker
// exists afterwards.
bool write_marker(const fs::path& scope_file, Scope scope) {
  const fs::path marker = PresenceMemory::marker_path(scope_file);
  const int no_link = is_operator_scope(scope) ? 0 : O_NOFOLLOW;
  const base::UniqueFd dir(
      ::open(marker.parent_path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC | no_link));
  if (!dir.valid()) return false;
  struct stat st {};
  if (::fstat(dir.get(), &st) != 0 || st.st_uid != ::geteuid()) return false;
  const base::UniqueFd fd(::openat(dir.get(), marker.filename().c_str(),
                                   O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644));
  if (!fd.valid()) return errno == EEXIST;
  // Only the name counts; the text says what it is to a person who finds it.
  try {
    base::write_all(fd.get(), record_text(scope_file), marker);
  } catch (const base::SystemError&) {
    return true;  // the marker exists, even if its text is short
  }
  ::fsync(fd.get());
  ::fsync(dir.get());
  return true;
}

std::optional<std::string> first_seen_in(const fs::path& file) {
  const base::UniqueFd fd(::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK));
  if (!fd.valid()) return std::nullopt;
  nlohmann::json record;
  try {
    record = nlohmann::json::parse(base::read_all(fd.get(), file), nullptr, false);
  } catch (const base::SystemError&) {
    return std::nullopt;
  }
  if (!record.is_object() || !record.contains("firstSeen") || !record["firstSeen"].is_string()) {
    return std::nullopt;
  }
  return record["firstSeen"].get<std::string>();
}

}  // namespace

PresenceMemory::PresenceMemory(fs::path state_dir)
    : directory_(state_dir.empty() ? fs::path() : state_dir / "presence") {}

fs::path PresenceMemory::record_path(const fs::path& scope_file) const {
  if (directory_.empty()) return {};
  return directory_ / (base::sha256_hex(key_of(scope_file).string()) + ".json");
}

fs::path PresenceMemory::marker_path(const fs::path& scope_file) {
  const fs::path key = key_of(scope_file);
  return key.parent_path() / ("." + key.filename().string() + ".holdfast-seen");
}

bool PresenceMemory::remembers(const fs::path& scope_file) const {
  if (exists_here(marker_path(scope_file))) return true;
  return !directory_.empty() && exists_here(record_path(scope_file));
}

std::optional<std::string> PresenceMemory::first_seen(const fs::path& scope_file) const {
  if (!directory_.empty()) {
    if (auto when = first_seen_in(record_path(scope_file))) return when;
  }
  if (auto when = first_seen_in(marker_path(scope_file))) return when;
  if (remembers(scope_file)) return std::string("an unknown time");
  return std::nullopt;
}

void PresenceMemory::remember(const fs::path& scope_file, Scope scope) const {
  const bool marked = exists_here(marker_path(scope_file)) || write_marker(scope_file, scope);
  if (directory_.empty()) return;  // no state directory: the marker is all there is
  const fs::path record = record_path(scope_file);
  if (exists_here(record)) return;
  try {
    make_private_directories(directory_);
    WriteOptions options;
    options.new_file_mode = 0600;
    write_file_atomically(record, record_text(scope_file), options);
  } catch (const base::SystemError&) {
    if (!marked) throw;  // neither place remembers
  }
}

bool PresenceMemory::forget(const fs::path& scope_file) const {
  bool had = false;
  for (const fs::path& file : {marker_path(scope_file), record_path(scope_file)}) {
    if (file.empty()) continue;
    if (::unlink(file.c_str()) != 0) {
      if (errno == ENOENT) continue;
      base::throw_errno("cannot remove the presence record", file);
    }
    had = true;
    // The removal itself must survive a crash, like every other record change.
    sync_directory(file.parent_path(), "removed the presence record but cannot sync its directory");
  }
  return had;
}

}  // namespace holdfast::settings
