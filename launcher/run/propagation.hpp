// Nothing mounted on the host after the sandbox was built gets in.
//
// bubblewrap makes its mount namespace's root a recursive slave ("so that
// we still receive mounts from the real root"), and every bind it makes of
// a slave mount is a slave too. Where the host's mounts are shared (systemd
// makes / shared), a mount made on the host later propagates into the
// sandbox: a tmpfs mounted below the workspace was writable inside, a home
// mounted over the one holding a denied ~/.ssh showed the key, a devtmpfs
// showed tty1; and a command that can trigger an automount makes one
// itself. bubblewrap has no option to change this, and nothing inside the
// sandbox may mount. So at the start gate, while bubblewrap waits with the
// whole tree built, holdfast makes the sandbox's mounts private, recursively
// (from a short-lived child that joins the sandbox's user and mount
// namespaces: as their owner, it may), and then reads the sandbox's mount
// table and compares it with the plan: a mount that arrived between the
// launch reading the host's table and this moment is refused, so what runs
// is what was planned, and nothing arrives afterwards.
//
// (Tried instead: starting bubblewrap in a mount namespace of holdfast's
// own whose mounts are all private, unshared between clone and exec, so
// that the copy bubblewrap makes is private from the start. The step here
// went, but bubblewrap's exit grew by as much (most likely tearing down
// the extra namespace), and whole launches were no faster.)
#pragma once

#include <string>

#include "launcher/sandbox/mount_plan.hpp"

namespace holdfast::launcher {

// Makes every mount of the sandbox whose init is `sandbox_pid` private
// (MS_REC | MS_PRIVATE on its root). Empty when done, otherwise what failed.
std::string make_sandbox_mounts_private(long sandbox_pid);

// make_sandbox_mounts_private, then the sandbox's mount table compared with
// `plan` (sandbox::unexpected_mount). Empty when the sandbox holds only
// planned mounts; otherwise what is wrong, and `arrived` (when given) says
// whether it was a host mount that arrived while the sandbox was built
// (the launch may then be built again: nothing ran).
std::string seal_sandbox_mounts(long sandbox_pid, const sandbox::MountPlan& plan,
                                bool* arrived = nullptr);

}  // namespace holdfast::launcher
