// Mounts a test makes on the host (the tests run as root), undone when the
// test ends, whatever it asserted.
#pragma once

#include <gtest/gtest.h>
#include <sys/mount.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>

namespace holdfast::run::testing {

class HostMount {
 public:
  // mount(2) of `source` (a filesystem type's source, or a path to bind)
  // on `target`; `type` empty for a bind.
  HostMount(const std::filesystem::path& source, const std::filesystem::path& target,
            const std::string& type, unsigned long flags = 0, const char* data = nullptr)
      : target_(target) {
    std::filesystem::create_directories(target);
    const bool bind = type.empty();
    if (::mount(source.c_str(), target.c_str(), bind ? nullptr : type.c_str(),
                bind ? (MS_BIND | MS_REC | flags) : flags, data) != 0) {
      ADD_FAILURE() << "mount " << source << " on " << target << ": " << std::strerror(errno);
      return;
    }
    mounted_ = true;
  }
  ~HostMount() {
    if (mounted_) ::umount2(target_.c_str(), MNT_DETACH);
  }
  HostMount(const HostMount&) = delete;
  HostMount& operator=(const HostMount&) = delete;
  bool mounted() const { return mounted_; }

 private:
  std::filesystem::path target_;
  bool mounted_ = false;
};

}  // namespace holdfast::run::testing
