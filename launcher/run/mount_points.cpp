#include "launcher/run/mount_points.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

#include "base/fd.hpp"
#include "base/sha256.hpp"
#include "base/system_error.hpp"

namespace holdfast::launcher {

namespace fs = std::filesystem;

namespace {

int flock_retrying(int fd, int operation) {
  int result = 0;
  do {
    result = ::flock(fd, operation);
  } while (result != 0 && errno == EINTR);
  return result;
}

}  // namespace

MountPointCleanup::MountPointCleanup(const fs::path& state_dir)
    : records_(state_dir / "mount-points") {
  const fs::path lock = state_dir / "mount-points.lock";
  lock_.reset(::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600));
  if (!lock_.valid()) base::throw_errno("cannot open the mount-point lock", lock);
  if (flock_retrying(lock_.get(), LOCK_SH) != 0) {
    base::throw_errno("cannot take the mount-point lock", lock);
  }
}

void MountPointCleanup::record(const std::vector<std::string>& paths) {
  if (paths.empty()) return;
  if (::mkdir(records_.c_str(), 0700) != 0 && errno != EEXIST) {
    base::throw_errno("cannot create", records_);
  }
  for (const auto& path : paths) {
    const fs::path file = records_ / base::sha256_hex(path);
    base::UniqueFd fd(
        ::open(file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600));
    if (!fd.valid()) {
      if (errno == EEXIST) continue;  // recorded by an earlier launch, not removed yet
      base::throw_errno("cannot record the mount point in", file);
    }
    base::write_all(fd.get(), path, file);
  }
}

std::vector<fs::path> MountPointCleanup::finish() {
  std::vector<fs::path> removed;
  // Not waiting: a launch that holds the lock shared still stands on the
  // mount points, and removes them when it ends. (When the conversion
  // fails, flock has dropped our shared lock; we are done anyway.)
  if (flock_retrying(lock_.get(), LOCK_EX | LOCK_NB) != 0) {
    lock_.reset();
    return removed;
  }
  if (DIR* dir = ::opendir(records_.c_str())) {
    std::vector<std::string> names;
    while (const dirent* entry = ::readdir(dir)) {
      if (entry->d_name[0] != '.') names.emplace_back(entry->d_name);
    }
    ::closedir(dir);
    for (const auto& name : names) {
      const fs::path file = records_ / name;
      base::UniqueFd fd(::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
      if (fd.valid()) {
        try {
          const std::string path = base::read_all(fd.get(), file);
          if (path.starts_with("/") && remove_empty_directory(path)) removed.emplace_back(path);
        } catch (const base::SystemError&) {
          // an unreadable record is dropped like the others
        }
      }
      ::unlink(file.c_str());
    }
  }
  lock_.reset();
  return removed;
}

bool remove_empty_directory(const std::string& path) {
  const fs::path p(path);
  if (!p.is_absolute() || !p.has_parent_path() || p == p.root_path()) return false;
  open_how how{};
  how.flags = O_PATH | O_DIRECTORY | O_CLOEXEC;
  how.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
  const base::UniqueFd parent(static_cast<int>(
      ::syscall(SYS_openat2, AT_FDCWD, p.parent_path().c_str(), &how, sizeof how)));
  if (!parent.valid()) return false;
  return ::unlinkat(parent.get(), p.filename().c_str(), AT_REMOVEDIR) == 0;
}

}  // namespace holdfast::launcher
