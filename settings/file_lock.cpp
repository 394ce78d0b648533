#include "settings/file_lock.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <boost/interprocess/exceptions.hpp>
#include <fstream>
#include <map>
#include <thread>

#include "base/fd.hpp"
#include "base/system_error.hpp"
#include "base/write_target.hpp"
#include "settings/atomic_writer.hpp"

namespace holdfast::settings {

namespace {

using Clock = std::chrono::steady_clock;

std::timed_mutex& thread_mutex_for(const std::filesystem::path& lock_path) {
  static std::mutex registry_mutex;
  static std::map<std::filesystem::path, std::unique_ptr<std::timed_mutex>> registry;
  const std::lock_guard guard(registry_mutex);
  auto& slot = registry[lock_path];
  if (!slot) slot = std::make_unique<std::timed_mutex>();
  return *slot;
}

boost::interprocess::file_lock open_lock_file(const std::filesystem::path& lock_path) {
  // Create it if needed, private; an older holdfast made it 0644, which
  // let anyone who could read it hold it. Boost's file_lock opens it again
  // by name; this fd is closed before the lock is taken, so it cannot drop
  // the fcntl lock.
  const base::UniqueFd fd(
      ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600));
  if (!fd.valid()) base::throw_errno("cannot create lock file", lock_path);
  struct stat st {};
  if (::fstat(fd.get(), &st) == 0 && st.st_uid == ::geteuid() && (st.st_mode & 077) != 0 &&
      ::fchmod(fd.get(), st.st_mode & 0700) != 0) {
    base::throw_errno("cannot make private the lock file", lock_path);
  }
  try {
    return boost::interprocess::file_lock(lock_path.c_str());
  } catch (const boost::interprocess::interprocess_exception& e) {
    throw base::SystemError(std::string("cannot open lock file (") + e.what() + ")", lock_path,
                            e.get_native_error());
  }
}

std::string program_name(pid_t pid) {
  std::ifstream comm("/proc/" + std::to_string(pid) + "/comm");
  std::string name;
  std::getline(comm, name);
  return name;
}

std::string timeout_message(const std::filesystem::path& lock, const std::string& holder,
                            std::chrono::milliseconds bound) {
  return "cannot lock " + lock.string() + ": it is held by " +
         (holder.empty() ? std::string("another process") : holder) + " for more than " +
         std::to_string(bound.count()) +
         " ms, so nothing was saved. Wait for it to finish, or "
         "stop it, then save again";
}

}  // namespace

std::filesystem::path ScopeLock::lock_path_for(const std::filesystem::path& settings_file) {
  const auto target = base::resolve_write_target(settings_file);
  return target.string() + ".lock";
}

std::string ScopeLock::holder_of(const std::filesystem::path& lock_file) {
  // A descriptor of our own, closed again at once: we hold no lock on the
  // file now (the caller's try failed), so closing drops nothing of ours.
  const base::UniqueFd fd(::open(lock_file.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
  if (!fd.valid()) return "";
  struct flock query {};
  query.l_type = F_WRLCK;
  query.l_whence = SEEK_SET;
  if (::fcntl(fd.get(), F_GETLK, &query) != 0 || query.l_type == F_UNLCK) return "";
  if (query.l_pid <= 0) return "an open file description lock (no pid)";
  const std::string name = program_name(query.l_pid);
  return "pid " + std::to_string(query.l_pid) + (name.empty() ? "" : " (" + name + ")");
}

ScopeLock::ScopeLock(const std::filesystem::path& settings_file, const LockWait& wait)
    : thread_lock_(thread_mutex_for(lock_path_for(settings_file)), std::defer_lock),
      file_lock_(open_lock_file(lock_path_for(settings_file))) {
  const std::filesystem::path lock = lock_path_for(settings_file);
  const auto deadline = Clock::now() + wait.bound;
  if (!thread_lock_.try_lock_until(deadline)) {
    throw LockTimeout(timeout_message(lock, "another save in this process", wait.bound));
  }
  // No event says when another process releases an fcntl lock short of
  // blocking in it, which could not be bounded: so try, and try again at
  // short intervals until the bound (as SQLite's busy timeout does).
  auto pause = std::chrono::milliseconds(1);
  bool told = false;
  for (;;) {
    try {
      if (file_lock_.try_lock()) return;
    } catch (const boost::interprocess::interprocess_exception& e) {
      // Boost's message is strerror alone ("No locks available"), which
      // names no file.
      throw base::SystemError("cannot lock", lock, e.get_native_error(),
                              "this lock serializes saves of " + settings_file.string() +
                                  ", so nothing was saved; the lock file's file system must "
                                  "support POSIX (fcntl) locks");
    }
    const std::string holder = holder_of(lock);
    if (!told && wait.on_wait) wait.on_wait(lock, holder);
    told = true;
    if (Clock::now() >= deadline) throw LockTimeout(timeout_message(lock, holder, wait.bound));
    std::this_thread::sleep_for(std::min<Clock::duration>(pause, deadline - Clock::now()));
    pause = std::min(pause * 2, std::chrono::milliseconds(10));
  }
}

ScopeLock::~ScopeLock() { file_lock_.unlock(); }

}  // namespace holdfast::settings
