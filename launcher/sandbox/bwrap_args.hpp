// The pure bubblewrap argv builder: (policy, host facts, command, options)
// → the exact argument vector, argv[0] included. Nothing here touches the
// host; the same inputs always give the same argv.
//
// Layout of the argv:
//   namespaces and process: --unshare-user --unshare-pid --unshare-ipc
//     --unshare-uts --unshare-cgroup-try [--unshare-net] --new-session
//     --die-with-parent --cap-drop ALL --disable-userns
//   environment: --clearenv, then --setenv for PATH HOME LANG LC_* TERM USER
//     (from the caller) and TMPDIR=/tmp, in name order (command_environment;
//     bubblewrap itself is started with exactly these, so that its pid 1
//     inside shows nothing more in /proc/1/environ)
//   filesystem: the operations of the launch's MountPlan (mount_plan.hpp),
//     each as bubblewrap's options, in the plan's order
//   --chdir CANONICAL-CWD [--seccomp FD] -- COMMAND...
//
// Every bind mounts a host path onto the same path. A launch hands each
// source to bubblewrap as a descriptor it opened on the path it checked
// (--bind-fd FD P, --ro-bind-fd FD P); bubblewrap mounts what the
// descriptor names and fails if the mount did not end up there. Without
// descriptors (--dry-run, tests) the argv names the paths (--bind P P),
// which can be run by hand.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "launcher/sandbox/host_facts.hpp"
#include "launcher/sandbox/mount_plan.hpp"
#include "launcher/sandbox/policy.hpp"

namespace holdfast::sandbox {

struct BuildOptions {
  std::string bwrap_path = "bwrap";  // argv[0]
  // A compiled seccomp filter for --seccomp (built elsewhere).
  std::optional<int> seccomp_fd;
  // Fds open for reading on an empty file (/dev/null does), the data of
  // the denied files (--ro-bind-data FD), one per denied file in plan order
  // (MountPlan::empty_files): bubblewrap reads each to its end and closes
  // it, so one descriptor serves one file. The caller keeps them open (not
  // close-on-exec) until bwrap has exec'd. `empty_file_fd` alone serves a
  // plan with a single denied file.
  std::vector<int> empty_file_fds;
  std::optional<int> empty_file_fd;
  // When set, every bind source is passed as the descriptor given for its
  // path (MountPlan::bind_sources) instead of by name; a source without one
  // is an error.
  std::optional<std::map<std::string, int>> bind_fds;
  // With a network allow-list: a descriptor open on the generated
  // resolv.conf (network_inside.hpp), for --ro-bind-data over
  // /etc/resolv.conf; required then.
  std::optional<int> resolv_conf_fd;
};

// The argv for `mounts` (plan_mounts(resolve_policy(policy, facts),
// facts)). Throws std::invalid_argument for an empty command, denied files
// without a descriptor each, or a bind source missing from
// options.bind_fds.
std::vector<std::string> build_bwrap_args(const Policy& policy, const HostFacts& facts,
                                          const MountPlan& mounts,
                                          const std::vector<std::string>& command,
                                          const BuildOptions& options = {});

// The same, planning the mounts first (throws Refused as plan_mounts does).
std::vector<std::string> build_bwrap_args(const Policy& policy, const HostFacts& facts,
                                          const std::vector<std::string>& command,
                                          const BuildOptions& options = {});

// The command's whole environment, in name order: the allow-listed names
// from the caller (PATH defaulted), HOME canonical, TMPDIR=/tmp.
// With a network allow-list, the proxy's variables too (network_inside.hpp).
std::vector<std::pair<std::string, std::string>> command_environment(const HostFacts& facts,
                                                                     const Policy& policy);

}  // namespace holdfast::sandbox
