#include "launcher/run/mount_check.hpp"

#include <fcntl.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "base/fd.hpp"

namespace holdfast::launcher {

namespace {

std::string problem(const std::string& path, const std::string& what) { return path + ": " + what; }

// One mount, through the sandbox's root `root`.
std::string check_one(int root, const sandbox::MountCheck& mount,
                      const std::map<std::string, sandbox::FileId>& identities) {
  open_how how{};
  how.flags = O_PATH | O_CLOEXEC;
  how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
  const base::UniqueFd fd(
      static_cast<int>(::syscall(SYS_openat2, root, mount.path.c_str(), &how, sizeof how)));
  if (!fd.valid()) {
    return problem(mount.path, errno == ELOOP
                                   ? "a symlink lies on the path inside the sandbox"
                                   : std::string("cannot be opened inside the sandbox (") +
                                         std::strerror(errno) + ")");
  }
  struct statx stx {};
  if (::statx(fd.get(), "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, STATX_INO | STATX_TYPE, &stx) !=
      0) {
    return problem(mount.path, std::string("cannot stat (") + std::strerror(errno) + ")");
  }
  if ((stx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) == 0) {
    return problem(mount.path, "the kernel does not say whether it is a mount (Linux 5.8+ does)");
  }
  if ((stx.stx_attributes & STATX_ATTR_MOUNT_ROOT) == 0) {
    return problem(mount.path, "no mount is there: it landed elsewhere");
  }
  if (mount.type == sandbox::MountCheck::Type::bind) {
    const auto expected = identities.find(mount.path);
    const dev_t device = makedev(stx.stx_dev_major, stx.stx_dev_minor);
    if (expected == identities.end() || expected->second.device != device ||
        expected->second.inode != stx.stx_ino) {
      return problem(mount.path, "the mount there is not the file holdfast checked");
    }
  } else {
    struct statfs fs {};
    if (::fstatfs(fd.get(), &fs) != 0 || fs.f_type != TMPFS_MAGIC) {
      return problem(mount.path, "the mount there is not the fresh tmpfs holdfast asked for");
    }
  }
  struct statvfs vfs {};
  if (::fstatvfs(fd.get(), &vfs) != 0) {
    return problem(mount.path, std::string("cannot stat its mount (") + std::strerror(errno) + ")");
  }
  // Only one direction matters: a writable bind of a read-only host file
  // system is read-only, which takes nothing away.
  if (mount.read_only && (vfs.f_flag & ST_RDONLY) == 0) {
    return problem(mount.path, "the mount there is writable, not read-only");
  }
  return "";
}

}  // namespace

std::string check_sandbox_mounts(long sandbox_pid, const std::vector<sandbox::MountCheck>& mounts,
                                 const std::map<std::string, sandbox::FileId>& identities) {
  const std::string root_path = "/proc/" + std::to_string(sandbox_pid) + "/root";
  const base::UniqueFd root(::open(root_path.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!root.valid()) {
    return problem(root_path,
                   std::string("cannot open the sandbox's root (") + std::strerror(errno) + ")");
  }
  for (const auto& mount : mounts) {
    if (auto wrong = check_one(root.get(), mount, identities); !wrong.empty()) return wrong;
  }
  return "";
}

}  // namespace holdfast::launcher
