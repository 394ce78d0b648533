#include "launcher/run/propagation.hpp"

#include <fcntl.h>
#include <linux/nsfs.h>
#include <sched.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>

#include "base/fd.hpp"
#include "base/system_error.hpp"
#include "launcher/sandbox/mount_table.hpp"

namespace holdfast::launcher {

namespace {

struct JoinRequest {
  int user_ns;
  int mount_ns;
};

// In the child: join the namespaces, make everything private. Only system
// calls (the child shares our memory); the exit status says which step
// failed (1-3), with errno in the high bits.
int make_private_in_child(void* raw) {
  const auto& request = *static_cast<const JoinRequest*>(raw);
  if (::setns(request.user_ns, CLONE_NEWUSER) != 0) return 1 | (errno << 2);
  if (::setns(request.mount_ns, CLONE_NEWNS) != 0) return 2 | (errno << 2);
  if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) return 3 | (errno << 2);
  return 0;
}

std::string failure(const std::string& what, int error) {
  return "cannot make the sandbox's mounts private (" + what + ": " + std::strerror(error) + ")";
}

}  // namespace

std::string make_sandbox_mounts_private(long sandbox_pid) {
  const std::string ns_path = "/proc/" + std::to_string(sandbox_pid) + "/ns/mnt";
  const base::UniqueFd mount_ns(::open(ns_path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!mount_ns.valid()) return failure("open " + ns_path, errno);
  // The user namespace that owns the mount namespace: bubblewrap's first
  // one (with --disable-userns its init already sits in a second, nested
  // one, whose capabilities do not reach the mounts).
  const base::UniqueFd user_ns(::ioctl(mount_ns.get(), NS_GET_USERNS));
  if (!user_ns.valid()) return failure("NS_GET_USERNS", errno);

  // A child of its own (joining a user namespace needs a process that
  // shares nothing but memory), started as posix_spawn starts one.
  JoinRequest request{user_ns.get(), mount_ns.get()};
  constexpr std::size_t kStackSize = 16 * 1024;
  const auto stack = std::make_unique_for_overwrite<std::byte[]>(kStackSize);
  const pid_t child = ::clone(make_private_in_child, stack.get() + kStackSize,
                              CLONE_VM | CLONE_VFORK | SIGCHLD, &request);
  if (child < 0) return failure("clone", errno);
  int status = 0;
  while (::waitpid(child, &status, 0) < 0) {
    if (errno != EINTR) return failure("waitpid", errno);
  }
  if (!WIFEXITED(status)) return failure("the child was killed", EINTR);
  const int code = WEXITSTATUS(status);
  if (code == 0) return "";
  // An exit status has 8 bits: the errno is cut to 6, enough to name it.
  static constexpr const char* kSteps[] = {"", "join its user namespace",
                                           "join its mount namespace", "mount --make-rprivate /"};
  return failure(kSteps[code & 3], code >> 2);
}

std::string seal_sandbox_mounts(long sandbox_pid, const sandbox::MountPlan& plan, bool* arrived) {
  if (auto wrong = make_sandbox_mounts_private(sandbox_pid); !wrong.empty()) return wrong;
  sandbox::MountTable table;
  try {
    // Stopped at the gate and private now: its table stays as it is.
    table = sandbox::parse_mountinfo(sandbox::read_mountinfo_once(std::to_string(sandbox_pid)));
  } catch (const std::exception& e) {
    return std::string("cannot read the sandbox's mount table: ") + e.what();
  }
  const sandbox::MountEntry* unexpected = sandbox::find_unexpected_mount(plan, table);
  if (unexpected == nullptr) return "";
  // Arrived from the host: the host has a mount of that filesystem there
  // now (a mount bubblewrap was led to make at a moved path has none).
  if (arrived != nullptr) {
    try {
      const auto host = sandbox::parse_mountinfo(sandbox::read_mountinfo("self"));
      *arrived = std::any_of(host.begin(), host.end(), [&](const sandbox::MountEntry& m) {
        return m.mount_point == unexpected->mount_point && m.device == unexpected->device;
      });
    } catch (const std::exception&) {
      *arrived = false;
    }
  }
  return sandbox::unexpected_mount(plan, table);
}

}  // namespace holdfast::launcher
