// The built sandbox, looked at from outside before its command runs.
//
// bubblewrap mounts by path name: it turns a bind descriptor back into a
// name and mounts that, and resolves every destination by name too. Its own
// check after a bind (the destination's identity) can be fooled by anyone
// who can rename an ancestor: swap a directory for a symlink before the
// mount and back again before the check, and a bind lands elsewhere (the
// workspace's write access on $HOME) while the check passes. So holdfast
// holds the sandbox at the start gate and looks at every mount it asked
// for, through /proc/PID/root (the sandbox's own view), resolving each
// path without following any symlink: it must be the root of a mount (not
// a directory that merely has the right name), a bind of the very file the
// launch checked (device and inode) or a fresh tmpfs, read-only where it
// must be. A mount that landed elsewhere leaves its own path without a
// mount, so the launch stops before anything ran in the sandbox.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "launcher/sandbox/bwrap_args.hpp"
#include "launcher/sandbox/host_facts.hpp"

namespace holdfast::launcher {

// Empty when every mount is in place in the sandbox whose init is
// `sandbox_pid`; otherwise what is wrong with the first that is not.
// `identities` are the files the launch checked (HostFacts::identities).
std::string check_sandbox_mounts(long sandbox_pid, const std::vector<sandbox::MountCheck>& mounts,
                                 const std::map<std::string, sandbox::FileId>& identities);

}  // namespace holdfast::launcher
