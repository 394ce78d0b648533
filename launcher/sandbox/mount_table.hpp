// The mount table, as /proc/PID/mountinfo shows it, as a value.
//
// bubblewrap's recursive binds carry every mount below a bound path, with
// that mount's own flags, and a bind of a directory shows whatever the
// mounts below it show: a chroot's proc and sys, a bind of /etc, a denied
// ~/.ssh bound again somewhere under the workspace. A launch reads its own
// mount table once (HostFacts::mounts) and plans from that value
// (resolve.hpp: the rules for mounts below bound paths); the start gate reads
// the sandbox's table and compares it with the plan (mount_check.hpp).
//
// One line of mountinfo (proc(5)):
//   36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue
//   id parent major:minor root mount-point options [optional...] - type source super-options
// Paths are escaped: space, tab, newline and backslash as \040 \011 \012 \134.
#pragma once

#include <sys/types.h>

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace holdfast::sandbox {

struct MountEntry {
  int id = 0;
  int parent_id = 0;
  dev_t device = 0;         // the filesystem's device (major:minor), as stat's st_dev
  std::string root;         // the directory of the filesystem this mount shows
  std::string mount_point;  // where, relative to the reader's root
  bool read_only = false;   // the mount's own "ro" (not the superblock's)
  std::string fs_type;      // "ext4", "proc", "fuse.sshfs", ...
  std::string source;
  bool operator==(const MountEntry&) const = default;
};

// Every mount, in the order the kernel lists them (mounts made later at the
// same mount point come after, and lie on top).
using MountTable = std::vector<MountEntry>;

// A line that is not mountinfo: a launch that cannot read its mount table
// is refused, never planned without it.
class MountTableError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Pure. Throws MountTableError naming the line that is not mountinfo.
MountTable parse_mountinfo(std::string_view text);

// The text of the mountinfo of `pid` ("self" for this process), whole: read
// again while mounts come and go during the reading. Throws
// base::SystemError, or MountTableError when the table never holds still.
std::string read_mountinfo(const std::string& pid);

// One reading of the mountinfo of `pid`, for a table nothing can change
// while it is read (a sandbox stopped at its start gate whose mounts no
// longer receive the host's).
std::string read_mountinfo_once(const std::string& pid);

// Filesystems that are kernel interfaces, not storage: below a bound path
// they are masked (proc shows every host process, sysfs and its kin host
// knobs and firmware, devtmpfs and devpts devices, autofs mounts on demand,
// nsfs other namespaces). The host's own sysfs at /sys and its cgroup
// hierarchies stay readable (read-only): programs read CPU and memory
// limits there.
bool is_kernel_interface(std::string_view fs_type);

// True for the host's sysfs at /sys and the cgroup filesystems below
// /sys/fs/cgroup, which a read-only view may show.
bool is_system_sysfs(const MountEntry& mount);

}  // namespace holdfast::sandbox
