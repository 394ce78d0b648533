// The scope lock: serializes read-modify-write saves of one settings file
// across processes (Boost.Interprocess file_lock on NAME.lock beside it) and
// across threads of this process (fcntl locks are per process, so a
// process-wide mutex per lock path is taken first).
//
// The lock file is created on first use and never removed: removing it
// would let two writers lock two different inodes of the same name.
#pragma once

#include <boost/interprocess/sync/file_lock.hpp>
#include <filesystem>
#include <memory>
#include <mutex>

namespace holdfast::settings {

class ScopeLock {
 public:
  // Blocks until the lock on `settings_file` is held. Throws SystemError when
  // the lock file cannot be created.
  explicit ScopeLock(const std::filesystem::path& settings_file);
  ~ScopeLock();
  ScopeLock(const ScopeLock&) = delete;
  ScopeLock& operator=(const ScopeLock&) = delete;

  static std::filesystem::path lock_path_for(const std::filesystem::path& settings_file);

 private:
  std::unique_lock<std::mutex> thread_lock_;
  boost::interprocess::file_lock file_lock_;
};

}  // namespace holdfast::settings
