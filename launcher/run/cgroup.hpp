// Bounds per sandbox: one cgroup per launch, so that the number of tasks
// and the memory (anonymous, tmpfs and /dev/shm pages, memfds: everything
// the kernel charges to a cgroup) are counted for the sandbox as a whole,
// not per process as rlimits are.
//
// Where the launch's cgroup goes, for each hierarchy that carries the pids
// and memory controllers:
//   * cgroup v2 (one unified hierarchy at /sys/fs/cgroup): beside the
//     caller's own cgroup, in its parent, when the caller may write that
//     parent's cgroup.procs and cgroup.subtree_control (root; or a subtree
//     delegated to the user, as systemd's user manager has). The caller's
//     own cgroup has processes, and v2 lets only a cgroup without processes
//     give controllers to its children. At the root, in /sys/fs/cgroup.
//   * cgroup v1 (a hierarchy per controller at /sys/fs/cgroup/pids and
//     /sys/fs/cgroup/memory): inside the caller's own cgroup, when the
//     caller may create directories there (root; or a cgroup an
//     administrator gave to the user).
// Nesting under the caller's own place keeps every limit above it (a
// container's, a service's) in force. The cgroup is named
// holdfast.launch-PID-N, joined by bubblewrap's process itself between
// clone and exec (it writes "0": the writer moves), so every process of the
// sandbox starts inside it; it is removed when the launch ends, or by a
// later launch when processes were still leaving.
//
// On v1 the join writes the `tasks` file, not cgroup.procs. Both move the
// writer, which is one thread there (a process just cloned), but a write
// to cgroup.procs takes the kernel's global threadgroup lock for writing,
// and taking it after a quiet moment waits out an RCU grace period: 5 to
// 10 ms here (a launch's sandbox_up 19 ms instead of 2.5 ms) for each
// launch that follows another by half a second, against 0.04 ms for
// `tasks`, which the kernel lets move the writing thread without that lock
// (bench/cgroup-join-cost.sh). Only "0" does: a write of any other pid, to
// either file, takes the lock as well (the kernel locks for `pid ||
// threadgroup`), so the join cannot be moved out of bubblewrap's process
// to the start gate (tried: every launch then waited for that lock).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/fd.hpp"
#include "launcher/sandbox/policy.hpp"

namespace holdfast::launcher::cgroup {

// What one sandbox may use in all; nullopt: not bounded.
struct Bounds {
  std::optional<std::uint64_t> tasks;
  std::optional<std::uint64_t> memory_bytes;
  bool operator==(const Bounds&) const = default;
};

// The policy's limits, each defaulted when unset so that a build or a test
// run does not meet them and a fork bomb or a memory hog always does: tasks
// from limits.processes (else sandbox::kDefaultProcesses), memory from
// limits.memoryMiB (else half of `memory_total_bytes`, the host's MemTotal;
// 0: unknown, not bounded).
Bounds bounds_for(const sandbox::Limits& limits, std::uint64_t memory_total_bytes);

// True when the operator set a bound (which must then hold, or the launch
// is refused); false when only the defaults apply.
bool operator_set(const sandbox::Limits& limits);

enum class Version { v1, v2 };

// One line of /proc/PID/cgroup: "ID:CONTROLLERS:PATH".
struct Membership {
  std::string controllers;  // "pids", "cpu,cpuacct", "" for v2
  std::string path;         // "/user.slice/..."
  bool operator==(const Membership&) const = default;
};
std::vector<Membership> parse_proc_cgroup(std::string_view text);

// The control files of a launch's cgroup and their values, in the order
// they are written. `controller` is "pids" or "memory" for v1, "" for v2.
// The bool says whether the file may be missing (swap accounting is a
// kernel option): then it is skipped.
struct ControlWrite {
  std::string file;
  std::string value;
  bool optional = false;
  bool operator==(const ControlWrite&) const = default;
};
std::vector<ControlWrite> control_writes(Version version, std::string_view controller,
                                         const Bounds& bounds);

// One hierarchy the launch's cgroup is made in.
struct Hierarchy {
  std::string controller;        // "pids" / "memory" (v1), "" (v2)
  std::filesystem::path parent;  // where the launch's cgroup is created
};

// Where this host and caller can bound a launch, or why not. Read from
// /sys/fs/cgroup and /proc/self/cgroup; nothing is created.
struct Placement {
  std::optional<Version> version;
  std::vector<Hierarchy> hierarchies;  // v2: one; v1: pids and memory
  std::string unavailable;             // why not, when version is unset
};
Placement find_placement();

// "processes at most 4096 and memory at most 12 GiB for the whole sandbox,
// in a cgroup (v1) under /sys/fs/cgroup/pids/..." or why they are not
// enforced; for --explain and doctor.
std::string describe(const Bounds& bounds, const Placement& placement, bool operator_bounds);

// A launch's cgroup, made and bounded; removed on destruction when empty.
class LaunchGroup {
 public:
  // Makes the cgroup in every hierarchy of `placement` and writes the
  // bounds. Throws base::SystemError naming the file.
  LaunchGroup(const Placement& placement, const Bounds& bounds);
  ~LaunchGroup();
  LaunchGroup(LaunchGroup&&) noexcept = default;
  LaunchGroup& operator=(LaunchGroup&&) noexcept = default;
  LaunchGroup(const LaunchGroup&) = delete;
  LaunchGroup& operator=(const LaunchGroup&) = delete;

  // Open for writing: a single-threaded process that writes "0" to each
  // joins the cgroup (v1: `tasks`; v2: cgroup.procs).
  std::vector<int> join_fds() const;
  const std::vector<std::filesystem::path>& directories() const { return directories_; }
  // Returns once no process is left in the cgroup but `init`, or after a
  // bound (2 s). With `init` bubblewrap's init and bubblewrap exited, that
  // init only exits too: nothing of the sandbox acts any more, while its
  // exit (the sandbox's mount namespace torn down) may take a while yet.
  // The destructor waits for that.
  void wait_until_only(pid_t init) const;
  // How many of its processes the kernel ended because the cgroup reached
  // its memory bound (oom_kill in memory.events, v2, or memory.oom_control,
  // v1; 0 where the kernel does not count them).
  std::uint64_t memory_kills() const;

 private:
  std::vector<std::filesystem::path> directories_;
  std::filesystem::path memory_events_;  // the file that counts oom_kill
  std::vector<base::UniqueFd> join_;
};

// "the sandbox reached its memory bound (N MiB): the kernel ended K of its
// processes", for a launch whose command ran.
std::string memory_bound_reached(std::uint64_t kills, const Bounds& bounds);

// The value of the line "KEY N" in a flat keyed cgroup file, 0 without one.
std::uint64_t keyed_value(std::string_view text, std::string_view key);

// The host's MemTotal in bytes, 0 when /proc/meminfo does not say.
std::uint64_t memory_total_bytes();

}  // namespace holdfast::launcher::cgroup
