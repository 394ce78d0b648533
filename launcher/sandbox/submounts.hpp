// Mounts below bound paths, and denied content shown again elsewhere. Pure.
//
// bubblewrap binds recursively: a bind of the workspace carries every mount
// below it, with that mount's own flags (a writable bind keeps a writable
// submount writable), and a bind shows whatever its directory holds,
// wherever else that is also visible. So, from the launch's mount table
// (mount_table.hpp), beyond the policy's own rules:
//   * a kernel interface (proc, sysfs, devtmpfs, debugfs, ..., see
//     is_kernel_interface) mounted below a bound path is denied (masked);
//     the host's own /sys and its cgroup hierarchies are not, and stay
//     read-only like any other mount below a read-only path;
//   * any other mount below a writable path is read-only, unless the policy
//     names that mount's path itself with write;
//   * a denied file or directory that a bind mount shows again at another
//     path (~/.ssh bound under the workspace, or the home bound there with
//     ~/.ssh in it) is denied there too: matched by filesystem (device) and
//     the path within it, so the alias is found whatever its name.
// Mounts under /proc and /dev are never shown (both are fresh), nor are
// mounts below a denied path.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "launcher/sandbox/mount_table.hpp"
#include "launcher/sandbox/resolve.hpp"

namespace holdfast::sandbox {

// Where a host path lives: its filesystem (device) and its path within it,
// through the mount that shows it (the last one listed at the longest
// mount point containing it). nullopt when no mount contains it.
struct FilesystemPath {
  dev_t device = 0;
  std::string path;
  bool operator==(const FilesystemPath&) const = default;
};
std::optional<FilesystemPath> filesystem_path(const MountTable& table, const std::string& path);

// A place where the sandbox shows host content: a bound path, or a mount
// below one (mount point, device, the filesystem path it shows).
struct Window {
  std::string path;
  FilesystemPath shows;
  bool operator==(const Window&) const = default;
};

// The paths, other than `denied` itself, at which `windows` show the
// content of `denied` (canonical): inside a window that contains it, or the
// whole window when the window lies inside it.
std::vector<std::string> alias_paths(const MountTable& table, const std::string& denied,
                                     const std::vector<Window>& windows);

// The host mounts strictly below `path` that a bind of `path` carries
// (not under /proc or /dev), in table order.
std::vector<const MountEntry*> mounts_below(const MountTable& table, const std::string& path);

// The rules above for `facts.mounts`, given the rules so far (which they
// never override: a path the rules name keeps its rule). Kernel interfaces
// become deny rules (RuleSource::kernel_mount), mounts below writable paths
// read rules (RuleSource::submount), aliases of denied paths deny rules
// (RuleSource::denied_alias). Throws std::logic_error when the facts do not
// cover a mount point that needs a rule.
std::vector<Rule> submount_rules(const std::vector<Rule>& rules, const HostFacts& facts);

// The mount points and alias paths gather_host_facts must look at for
// `policy`'s entries (canonical paths and their access): a superset of
// what submount_rules asks the facts about.
std::vector<std::string> submount_paths_to_probe(
    const MountTable& table, const std::vector<std::pair<std::string, Access>>& entries,
    const std::vector<std::string>& denied);

}  // namespace holdfast::sandbox
