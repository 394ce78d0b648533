// The scope lock: serializes read-modify-write saves of one settings file
// across processes (Boost.Interprocess file_lock on NAME.lock beside it) and
// across threads of this process (fcntl locks are per process, so a
// process-wide mutex per lock path is taken first).
//
// The lock file is created on first use and never removed: removing it
// would let two writers lock two different inodes of the same name. It is
// created 0600 (and an existing one of ours made 0600): a POSIX lock needs
// only a descriptor, and a read-only one is enough for a shared lock, so a
// lock file others can open is one others can hold to stop the owner's
// saves. Only who can write the settings (its owner, root) can open it.
//
// A save waits for the lock for a bounded time, and says who holds it
// (F_GETLK names the process): a lock held for long is a save that hangs,
// and the operator cannot tighten the policy meanwhile.
#pragma once

#include <boost/interprocess/sync/file_lock.hpp>
#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>

namespace holdfast::settings {

// How long a save waits for the lock, and whom to tell that it waits.
struct LockWait {
  std::chrono::milliseconds bound{10000};
  // Called once, when the lock is not free at once: the lock file and who
  // holds it ("pid 1234 (holdfast)").
  std::function<void(const std::filesystem::path& lock, const std::string& holder)> on_wait;
};

// The lock was not free within the bound; nothing was saved. The message
// names the lock, who holds it and what to do.
class LockTimeout : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class ScopeLock {
 public:
  // Waits until the lock on `settings_file` is held, at most `wait.bound`.
  // Throws LockTimeout after the bound, base::SystemError when the lock
  // file cannot be created or locked.
  explicit ScopeLock(const std::filesystem::path& settings_file, const LockWait& wait = {});
  ~ScopeLock();
  ScopeLock(const ScopeLock&) = delete;
  ScopeLock& operator=(const ScopeLock&) = delete;

  static std::filesystem::path lock_path_for(const std::filesystem::path& settings_file);

  // Who holds a POSIX lock on `lock_file` now: "pid N (NAME)", "an open
  // file description lock (no pid)", or "" when none. Needs read access.
  static std::string holder_of(const std::filesystem::path& lock_file);

 private:
  std::unique_lock<std::timed_mutex> thread_lock_;
  boost::interprocess::file_lock file_lock_;
};

}  // namespace holdfast::settings
