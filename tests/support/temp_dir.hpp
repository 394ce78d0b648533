// A fresh directory for a test, removed with everything in it.
#pragma once

#include <filesystem>
#include <string>

namespace holdfast::testing {

class TempDir {
 public:
  // Made under `base` (default: the system temp directory, a real disk here,
  // so fsync and rename are real), mode 0755 so that a test that drops to
  // another uid can still enter it.
  explicit TempDir(const std::filesystem::path& base = std::filesystem::temp_directory_path());
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

// A tmpfs directory when the machine has one (/dev/shm), else the temp
// directory. For tests about readers and writers racing, where a disk's
// journal would only add minutes, not meaning.
std::filesystem::path memory_backed_base();

}  // namespace holdfast::testing
