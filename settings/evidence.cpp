#include "settings/evidence.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>

#include <ctime>

namespace holdfast::settings {

namespace fs = std::filesystem;

namespace {

bool is_recent(const timespec& when, std::chrono::milliseconds age) {
  timespec now{};
  ::clock_gettime(CLOCK_REALTIME, &now);
  const auto delta = std::chrono::seconds(now.tv_sec - when.tv_sec) +
                     std::chrono::nanoseconds(now.tv_nsec - when.tv_nsec);
  return delta < age;
}

}  // namespace

bool matches_writer_pattern(const std::string& pattern, const std::string& target_name,
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

std::vector<std::string> fresh_evidence(const fs::path& directory, const std::string& target_name,
                                        const std::vector<std::string>& patterns,
                                        std::chrono::milliseconds age) {
  std::vector<std::string> found;
  DIR* dir = ::opendir(directory.c_str());
  if (dir == nullptr) return found;
  while (const dirent* entry = ::readdir(dir)) {
    const std::string name = entry->d_name;
    bool matches = false;
    for (const auto& pattern : patterns) {
      if (matches_writer_pattern(pattern, target_name, name)) {
        matches = true;
        break;
      }
    }
    if (!matches) continue;
    struct stat st {};
    if (::fstatat(dirfd(dir), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
    // ctime moves on create, write and rename alike.
    if (is_recent(st.st_ctim, age)) found.push_back(name);
  }
  ::closedir(dir);
  return found;
}

bool recently_changed(const fs::path& directory, std::chrono::milliseconds age) {
  for (fs::path at = directory;; at = at.parent_path()) {
    struct stat st {};
    if (::stat(at.c_str(), &st) == 0) return is_recent(st.st_mtim, age);
    if (at == at.root_path() || at.empty() || at == at.parent_path()) return false;
  }
}

}  // namespace holdfast::settings
