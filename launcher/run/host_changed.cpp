#include "launcher/run/host_changed.hpp"

#include <sys/stat.h>

#include "launcher/sandbox/mount_table.hpp"

namespace holdfast::launcher {

// What the host does on its own while a sandbox is built: a mount the plan
// masks or remounts below a bound path goes away (a container stopped, an
// automount expired) and bubblewrap cannot find its place, or its
// unmounting reaches the sandbox before the start gate made it private; a
// file the plan binds or covers is removed or replaced (an editor saves by
// rename, useradd and userdel rename a new /etc/shadow into place), and
// bubblewrap cannot bind it, or its mask stands on the old file, which the
// gate finds at no path. That is not a fault of the policy.
bool host_changed_under(const SuperviseOutcome& outcome, bool gate_reached,
                        const sandbox::HostFacts& facts) {
  if (outcome.command_status || outcome.timed_out) return false;
  if (gate_reached && !outcome.gate_refused) return false;  // built as checked: later
  try {
    if (sandbox::parse_mountinfo(sandbox::read_mountinfo("self")) != facts.mounts) return true;
  } catch (const std::exception&) {
    return false;
  }
  for (const auto& [path, expected] : facts.identities) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) return true;
    if (st.st_dev != expected.device || st.st_ino != expected.inode) return true;
  }
  return false;
}

}  // namespace holdfast::launcher
