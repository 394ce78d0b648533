// Mount points another local user can move. Pure.
//
// A mount stands on a directory entry. In a project directory that other
// users can write (a 1777 shared workspace), another user can rename or
// remove the entries they own (and the directory's owner any entry), and
// renaming or removing an entry that is a mount point elsewhere detaches
// or moves that mount in every mount namespace. So user A removing the
// empty .git they had created took away the read-only mount user B's
// running sandbox stood on there, and B's command then wrote
// .git/hooks/pre-commit onto the host.
//
// holdfast supports a shared sticky workspace only as far as it can hold:
// every mount a launch puts inside a writable bind (protected names,
// carve-outs, the pins above them) must stand on entries that no other
// user can move — the caller's own or root's, in directories that no
// other user can write, or that are sticky and the caller's or root's. A
// launch that would stand on another user's entry is refused, naming the
// entry, its owner and what to do. The mount points bubblewrap creates are
// the caller's own; another user's launch then refuses them in turn, so
// one user's cleanup never detaches another user's mount.
//
// Group write counts as other users' unless the group is the caller's own
// primary group (user private groups, umask 002). Root can move anything
// and is trusted.
#pragma once

#include <vector>

#include "launcher/sandbox/host_facts.hpp"
#include "launcher/sandbox/mount_plan.hpp"
#include "launcher/sandbox/refusal.hpp"

namespace holdfast::sandbox {

// Empty when every mount point inside a writable bind of `plan` is out of
// other users' reach.
std::vector<Refusal> check_mount_point_owners(const MountPlan& plan, const HostFacts& facts);

}  // namespace holdfast::sandbox
