#include "launcher/run/mount_points.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <map>

namespace holdfast::launcher {

std::vector<std::string> mount_destinations(const std::vector<std::string>& argv) {
  // Options whose last argument is a destination, with their argument count.
  static const std::map<std::string, int> kMounts = {
      {"--tmpfs", 1}, {"--dir", 1}, {"--bind", 2}, {"--ro-bind", 2}, {"--ro-bind-data", 2}};
  // Options that take arguments which are not destinations (skip them).
  static const std::map<std::string, int> kOthers = {
      {"--setenv", 2}, {"--perms", 1},   {"--chdir", 1},      {"--seccomp", 1}, {"--cap-drop", 1},
      {"--chmod", 2},  {"--symlink", 2}, {"--remount-ro", 1}, {"--proc", 1},    {"--dev", 1},
      {"--size", 1}};
  std::vector<std::string> out;
  for (std::size_t i = 1; i < argv.size() && argv[i] != "--"; ++i) {
    if (const auto m = kMounts.find(argv[i]); m != kMounts.end()) {
      const std::size_t last = i + static_cast<std::size_t>(m->second);
      if (last < argv.size()) out.push_back(argv[last]);
      i = last;
    } else if (const auto o = kOthers.find(argv[i]); o != kOthers.end()) {
      i += static_cast<std::size_t>(o->second);
    }
  }
  return out;
}

std::vector<std::filesystem::path> missing_on_host(const std::vector<std::string>& destinations) {
  std::vector<std::filesystem::path> missing;
  struct stat st {};
  for (const auto& path : destinations) {
    if (::lstat(path.c_str(), &st) != 0 && errno == ENOENT) missing.emplace_back(path);
  }
  return missing;
}

std::vector<std::filesystem::path> remove_empty_leftovers(
    std::vector<std::filesystem::path> paths) {
  std::sort(paths.begin(), paths.end(), [](const auto& a, const auto& b) {
    return a.string().size() > b.string().size();  // deepest first
  });
  std::vector<std::filesystem::path> removed;
  struct stat st {};
  for (const auto& path : paths) {
    if (::lstat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode) && ::rmdir(path.c_str()) == 0) {
      removed.push_back(path);
    }
  }
  return removed;
}

}  // namespace holdfast::launcher
