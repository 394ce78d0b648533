// Landlock as a second layer, planned from the same rules as the mounts.
// Pure.
//
// Mount flags are the first wall, and the kernel skips the read-only check
// for special files: a host FIFO under a read-only path opens for writing
// (as root, systemd's /run/initctl takes runlevel requests). Landlock checks
// every open, whatever the file's type, against rules on the sandbox's own
// paths. Its rules grant rights on a directory and everything below it and
// never take any away, so the plan places them where nothing below needs
// less:
//   * each rule path gets its access's rights (read: read, list, execute;
//     write: also write, truncate, create and remove entries, rename;
//     the private /tmp and /dev/shm: also make FIFOs and sockets; /dev:
//     read, write and device ioctls; /proc: read; deny: nothing);
//   * where something below a readable path has fewer rights (a denied
//     ~/.ssh under a readable /), the path is split: it keeps only the
//     right to list its entries — which Landlock then extends below it
//     too — and each of its entries but those leading to the narrower rule
//     gets read rights, found when the rules are applied; the way down to
//     the narrower rule is split the same way.
//   * a writable path is never split: a file created in it later would have
//     no rule of its own, only the path's rights, and Landlock extends
//     those to everything below. So within a writable root, narrower paths
//     (a read-only .git, a denied subdirectory) are kept by the mount layer
//     alone.
// So nothing is written outside the writable paths, whatever the file's
// type, and nothing is read, written or run inside a denied path that lies
// in a readable area (its names can be listed; the mount layer shows an
// empty directory). Never: character or block devices, and FIFOs or
// sockets on the host's paths (only in the private /tmp and /dev/shm,
// which vanish with the sandbox). Kernel interfaces masked below bound
// paths need no rule of their own (the mask is checked at the start gate).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "launcher/landlock/rights.hpp"
#include "launcher/sandbox/mount_plan.hpp"
#include "launcher/sandbox/policy.hpp"

namespace holdfast::landlock {

// The rights of each kind of path.
inline constexpr Rights kRead = kExecute | kReadFile | kReadDir;
inline constexpr Rights kEntryChanges =
    kMakeReg | kMakeDir | kMakeSym | kRemoveFile | kRemoveDir | kRefer;
inline constexpr Rights kWrite = kRead | kWriteFile | kTruncate | kEntryChanges;
inline constexpr Rights kPrivate = kWrite | kMakeFifo | kMakeSock | kIoctlDev;
inline constexpr Rights kDevices = kRead | kWriteFile | kIoctlDev;
// What a split path keeps: listing its entries.
inline constexpr Rights kSplitKeeps = kReadDir;

struct PathRule {
  std::string path;
  Rights here = 0;  // on the path and below it
  // Split: `entries` on each entry of the path but `skip` (names), found
  // when the rules are applied.
  bool split = false;
  Rights entries = 0;
  std::vector<std::string> skip;
  // What the path must be when the rule is added (device and inode, as the
  // host facts met it): a host directory renamed while the sandbox started
  // would otherwise take the rule to another object. None for what the
  // sandbox makes itself (/dev, /proc, the private /tmp) or never met.
  std::optional<sandbox::FileId> id;
  // The sandbox shows the host's own file at this path (a bind of it, or
  // of a directory above it, and nothing the sandbox makes over it).
  // Landlock ties a rule to the file, not to the name, so holdfast adds
  // such a rule on the host while bubblewrap builds the sandbox
  // (host_rules.hpp); the helper adds the others inside.
  bool on_host = false;
  bool operator==(const PathRule&) const = default;
};

struct Plan {
  std::vector<PathRule> rules;  // by path
  bool tcp_closed = false;      // network closed: no TCP bind or connect (ABI 4)
  Rights scopes = 0;            // kScope*: signals always; abstract sockets unless allowed
  bool operator==(const Plan&) const = default;
};

// The second layer for a launch with `policy` and its mount plan.
// `identities` (HostFacts::identities, when given) pins each unsplit rule
// on a host path to the file the launch checked there.
Plan plan_landlock(const sandbox::Policy& policy, const sandbox::MountPlan& mounts,
                   const std::map<std::string, sandbox::FileId>* identities = nullptr);

// "rwx" ... for a rights set, in the letters the helper reads; "-" for none.
std::string rights_letters(Rights rights);

// What an ABI lets the second layer enforce, for doctor, --explain and the
// records: "filesystem (ABI 1), renames across directories (2), truncate
// (3), TCP (4), device ioctls (5), signals and abstract sockets (6)".
std::string abi_coverage(int abi);

}  // namespace holdfast::landlock
