// Ownership and permission checks for operator settings files, in the
// manner of sshd's StrictModes: a policy file that someone else could have
// written is not a policy.
//
// A file (after following symlinks) and every directory above it must be
// owned by root or by the invoking user, and must not be writable by group
// or others. A directory that is group/other-writable but sticky (like /tmp)
// and owned by root is accepted: the sticky bit stops others from replacing
// entries they do not own.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>

namespace holdfast::settings {

class UnsafeSettingsFile : public std::runtime_error {
 public:
  UnsafeSettingsFile(std::filesystem::path file, std::filesystem::path culprit, std::string why,
                     bool vanished = false);
  const std::filesystem::path& file() const { return file_; }
  const std::filesystem::path& culprit() const { return culprit_; }
  // The check could not finish because something on the way was missing
  // (a directory or a symlink being replaced at that moment), rather than
  // finding an owner or a mode that is wrong.
  bool vanished() const { return vanished_; }

 private:
  std::filesystem::path file_;
  std::filesystem::path culprit_;
  bool vanished_ = false;
};

// Returns a description of the problem, or nullopt when `file` is safe.
// `owner` and `mode` are those of the inode that was actually read (the
// name may already point elsewhere); the directories are checked on the
// path, with symlinks resolved.
std::optional<UnsafeSettingsFile> check_strict_modes(const std::filesystem::path& file, uid_t owner,
                                                     mode_t mode, uid_t invoking_uid);

}  // namespace holdfast::settings
