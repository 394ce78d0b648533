#include "settings/file_lock.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <boost/interprocess/exceptions.hpp>
#include <map>

#include "base/system_error.hpp"
#include "base/write_target.hpp"
#include "settings/atomic_writer.hpp"

namespace holdfast::settings {

namespace {

std::mutex& thread_mutex_for(const std::filesystem::path& lock_path) {
  static std::mutex registry_mutex;
  static std::map<std::filesystem::path, std::unique_ptr<std::mutex>> registry;
  const std::lock_guard guard(registry_mutex);
  auto& slot = registry[lock_path];
  if (!slot) slot = std::make_unique<std::mutex>();
  return *slot;
}

boost::interprocess::file_lock open_lock_file(const std::filesystem::path& lock_path) {
  // Create it if needed. Boost's file_lock opens it again by name; this fd
  // is closed before the lock is taken, so it cannot drop the fcntl lock.
  const int fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0) base::throw_errno("cannot create lock file", lock_path);
  ::close(fd);
  try {
    return boost::interprocess::file_lock(lock_path.c_str());
  } catch (const boost::interprocess::interprocess_exception& e) {
    throw base::SystemError(std::string("cannot open lock file (") + e.what() + ")", lock_path,
                            e.get_native_error());
  }
}

}  // namespace

std::filesystem::path ScopeLock::lock_path_for(const std::filesystem::path& settings_file) {
  const auto target = base::resolve_write_target(settings_file);
  return target.string() + ".lock";
}

ScopeLock::ScopeLock(const std::filesystem::path& settings_file)
    : thread_lock_(thread_mutex_for(lock_path_for(settings_file))),
      file_lock_(open_lock_file(lock_path_for(settings_file))) {
  try {
    file_lock_.lock();
  } catch (const boost::interprocess::interprocess_exception& e) {
    // Boost's message is strerror alone ("No locks available"), which names
    // no file.
    throw base::SystemError("cannot lock", lock_path_for(settings_file), e.get_native_error(),
                            "this lock serializes saves of " + settings_file.string() +
                                ", so nothing was saved; the lock file's file system must support "
                                "POSIX (fcntl) locks");
  }
}

ScopeLock::~ScopeLock() { file_lock_.unlock(); }

}  // namespace holdfast::settings
