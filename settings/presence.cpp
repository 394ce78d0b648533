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
std::string key_of(const fs::path& scope_file) {
  return fs::absolute(scope_file).lexically_normal().string();
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  ::gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
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

}  // namespace

PresenceMemory::PresenceMemory(fs::path state_dir)
    : directory_(state_dir.empty() ? fs::path() : state_dir / "presence") {}

fs::path PresenceMemory::record_path(const fs::path& scope_file) const {
  return directory_ / (base::sha256_hex(key_of(scope_file)) + ".json");
}

bool PresenceMemory::remembers(const fs::path& scope_file) const {
  if (!enabled()) return false;
  struct stat st {};
  return ::stat(record_path(scope_file).c_str(), &st) == 0;
}

std::optional<std::string> PresenceMemory::first_seen(const fs::path& scope_file) const {
  if (!enabled()) return std::nullopt;
  const base::UniqueFd fd(
      ::open(record_path(scope_file).c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
  if (!fd.valid()) return std::nullopt;
  const auto record =
      nlohmann::json::parse(base::read_all(fd.get(), record_path(scope_file)), nullptr,
                            /*allow_exceptions=*/false);
  if (!record.is_object() || !record.contains("firstSeen") || !record["firstSeen"].is_string()) {
    return std::string("an unknown time");
  }
  return record["firstSeen"].get<std::string>();
}

void PresenceMemory::remember(const fs::path& scope_file) const {
  if (!enabled() || remembers(scope_file)) return;
  make_private_directories(directory_);
  const nlohmann::json record = {{"path", key_of(scope_file)}, {"firstSeen", utc_now()}};
  WriteOptions options;
  options.new_file_mode = 0600;
  write_file_atomically(record_path(scope_file), record.dump() + "\n", options);
}

bool PresenceMemory::forget(const fs::path& scope_file) const {
  if (!enabled()) return false;
  const fs::path record = record_path(scope_file);
  if (::unlink(record.c_str()) != 0) {
    if (errno == ENOENT) return false;
    base::throw_errno("cannot remove the presence record", record);
  }
  // The removal itself must survive a crash, like every other record change.
  const base::UniqueFd dir(::open(directory_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!dir.valid() || ::fsync(dir.get()) != 0) {
    base::throw_errno("removed the presence record but cannot sync its directory", directory_);
  }
  return true;
}

}  // namespace holdfast::settings
