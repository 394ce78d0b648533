#include "settings/strict_modes.hpp"

#include <sys/stat.h>

#include "base/path_chain.hpp"
#include "base/write_target.hpp"
#include "settings/atomic_writer.hpp"

namespace holdfast::settings {

UnsafeSettingsFile::UnsafeSettingsFile(std::filesystem::path file, std::filesystem::path culprit,
                                       std::string why, bool vanished)
    : std::runtime_error("unsafe settings file " + file.string() + ": " + why),
      file_(std::move(file)),
      culprit_(std::move(culprit)),
      vanished_(vanished) {}

namespace {

// base's judgement (root or the invoking user; no group or other write
// unless sticky and root's), with what to do about it.
std::optional<std::string> problem_with(const std::filesystem::path& path, const struct stat& st,
                                        uid_t invoking_uid) {
  auto problem = base::ownership_problem({path.string(), st.st_uid, st.st_mode}, invoking_uid,
                                         base::StickyDirectories::root_owned);
  if (!problem) return std::nullopt;
  const bool is_dir = S_ISDIR(st.st_mode);
  if (st.st_uid != 0 && st.st_uid != invoking_uid) {
    return (is_dir ? "directory " : "") + *problem + ", not by root or by you (uid " +
           std::to_string(invoking_uid) + "); chown it to root or to yourself";
  }
  return (is_dir ? "directory " : "") + *problem + "; run chmod go-w " + path.string();
}

}  // namespace

std::optional<UnsafeSettingsFile> check_strict_modes(const std::filesystem::path& file, uid_t owner,
                                                     mode_t mode, uid_t invoking_uid) {
  std::filesystem::path target;
  try {
    target = base::resolve_write_target(file);
  } catch (const std::exception& e) {
    return UnsafeSettingsFile(file, file, std::string("cannot follow its symlink: ") + e.what(),
                              /*vanished=*/true);
  }
  struct stat st {};
  st.st_uid = owner;
  st.st_mode = mode;
  if (auto problem = problem_with(target, st, invoking_uid)) {
    std::string why = *problem;
    if (target != file) why += " (reached through the symlink " + file.string() + ")";
    return UnsafeSettingsFile(file, target, why);
  }
  std::error_code ec;
  const std::filesystem::path directory = std::filesystem::canonical(target.parent_path(), ec);
  if (ec) {
    return UnsafeSettingsFile(file, target.parent_path(),
                              "cannot resolve its directory: " + ec.message(), /*vanished=*/true);
  }
  for (std::filesystem::path path = directory;; path = path.parent_path()) {
    if (::stat(path.c_str(), &st) != 0) {
      return UnsafeSettingsFile(file, path, "cannot stat " + path.string(), /*vanished=*/true);
    }
    if (auto problem = problem_with(path, st, invoking_uid)) {
      return UnsafeSettingsFile(file, path, *problem);
    }
    if (path == path.root_path()) break;
  }
  return std::nullopt;
}

}  // namespace holdfast::settings
