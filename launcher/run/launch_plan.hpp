// Planning one launch: one snapshot of the settings, and everything the
// sandbox is built from derived from it alone. Nothing read
// after the snapshot can change this launch.
//
//   snapshot → the workspace's modes → the trusted bubblewrap → policy →
//   host facts → admission → bind sources opened and checked → seccomp
//   program → bwrap argv
#pragma once

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "base/fd.hpp"
#include "launcher/landlock/landlock_plan.hpp"
#include "launcher/run/bind_sources.hpp"
#include "launcher/run/cgroup.hpp"
#include "launcher/run/start_gate.hpp"
#include "launcher/run/trusted_executable.hpp"
#include "launcher/sandbox/bwrap_args.hpp"
#include "launcher/sandbox/host_facts.hpp"
#include "launcher/sandbox/policy.hpp"
#include "launcher/sandbox/resolved_policy.hpp"
#include "launcher/seccomp/rules.hpp"
#include "settings/snapshot.hpp"

namespace holdfast::launcher {

struct LaunchRequest {
  // Absolute; empty: the cwd. Opened once (launch_directories.hpp).
  std::filesystem::path workspace;
  // Absolute; empty: this process's current directory itself. Opened once,
  // and must lie in the workspace by identity.
  std::filesystem::path cwd;
  std::vector<std::string> command;
  settings::SnapshotOptions snapshot_options;
  // holdfast's state directory, existing (the sandbox hides it); the
  // snapshot's presence memory is read from it too.
  std::optional<std::filesystem::path> state_dir;
  // Prepare to run: open every bind source and pass it to bwrap as a
  // descriptor, and hand the seccomp program through the start gate. Off
  // for --dry-run and --explain: the argv then names the paths and the
  // program is a plain file descriptor, so it can be run by hand.
  bool will_run = true;
};

struct LaunchTimings {
  std::chrono::microseconds snapshot{0};
  std::chrono::microseconds policy{0};       // policy, host facts, admission, bind sources, argv
  std::chrono::microseconds seccomp{0};      // program (baked or built) into its memfd or gate
  std::chrono::microseconds mount_check{0};  // the built sandbox checked at the start gate
  std::chrono::microseconds cgroup{0};       // the launch's cgroup made and bounded
  std::chrono::microseconds landlock{0};     // the second layer planned, its helper in a memfd
  // The rules on host files added while bubblewrap built the sandbox
  // (host_rules.hpp): overlapped, so not on the launch's path unless they
  // outlast bubblewrap.
  std::chrono::microseconds landlock_host_rules{0};
  // A network allow-list: its proxy's sockets put in the sandbox at the
  // start gate, and the proxy stopped (its last audit lines written) after
  // bubblewrap exited.
  std::chrono::microseconds network_open{0};
  std::chrono::microseconds network_stop{0};
};

struct LaunchPlan {
  settings::ScopePaths scope_paths;
  settings::Snapshot snapshot;
  sandbox::Policy policy;
  sandbox::HostFacts facts;
  // The policy read against `facts` once (the entries expanded, the rules
  // built and admitted): what the mounts, the checks of descriptors 0-2
  // and of the bubblewrap, the launch record and --explain all read.
  sandbox::ResolvedPolicy resolved;
  seccomp::FilterOptions filter;
  // The bubblewrap to execute: configured, judged and open (bubblewrap.hpp).
  TrustedExecutable bwrap;
  std::vector<std::string> argv;               // argv[0] is bwrap
  base::UniqueFd seccomp_fd;                   // the BPF program, for --seccomp (not when will_run)
  std::optional<StartGate> gate;               // the BPF program, for --seccomp (when will_run)
  bool seccomp_baked = false;                  // the program was compiled at build time
  std::vector<base::UniqueFd> empty_file_fds;  // data of denied files, one each
  base::UniqueFd resolv_conf_fd;               // network allow-list: the stub's resolv.conf
  // The sandbox's mounts: the argv's operations, the bind sources, the
  // checks at the start gate (mount_check.hpp) and the mount points
  // bubblewrap creates on the host (MountPointCleanup).
  sandbox::MountPlan mounts;
  BindSources bind_sources;  // the checked descriptors of every bind
  // What the sandbox may use in all, and where its cgroup goes on this host
  // (no version: the bounds cannot be enforced here, which is refused when
  // an operator set them).
  cgroup::Bounds bounds;
  cgroup::Placement cgroup_placement;
  // The second layer (launcher/landlock): the rules, the ABI they are
  // applied with (0: Landlock is not available, the launch relies on the
  // mounts alone), whether an operator requires it, and the helper that
  // applies them inside (a sealed memfd, run as /proc/self/fd/N), and
  // the ruleset holdfast adds the rules on host files to while bubblewrap
  // builds the sandbox (host_rules.hpp), which the helper completes.
  landlock::Plan landlock;
  int landlock_abi = 0;
  bool landlock_required = false;
  base::UniqueFd landlock_helper_fd;
  base::UniqueFd landlock_ruleset_fd;
  LaunchTimings timings;

  // The descriptors bwrap must inherit.
  std::vector<int> inherited_fds() const;
};

// Throws settings::InvalidSettings, settings::SnapshotError,
// settings::UnsafeSettingsFile, sandbox::Refused (NoTrustedBubblewrap when
// no trusted bubblewrap is there), seccomp::SeccompError or
// base::SystemError; each says what was wrong.
LaunchPlan plan_launch(const LaunchRequest& request);

// Whether a plan refused with `refused` is planned again from a fresh
// snapshot (plan_launch does, a few times): when every refusal says that
// the settings files ("settings-file-changed") or a path on the host
// ("path-changed-during-launch": a user's home removed while the launch
// looked at what to hide in it, a bind source replaced) changed while the
// plan was made. A fresh plan checks everything the refused one did, so
// planning again never lets through what the refusal stopped. Pure.
bool plan_again_after(const sandbox::Refused& refused);

// The filter options a policy asks for.
seccomp::FilterOptions filter_options_for(const sandbox::Policy& policy);

// Throws sandbox::Refused ("bubblewrap-writable") when the launch runs as
// root and the `resolved` policy would make the bubblewrap, or a directory
// on its way, writable inside: root inside is the host's uid 0, which
// owning a file by root cannot keep out. Pure.
void check_bubblewrap_not_writable(const TrustedExecutable& bwrap,
                                   const sandbox::ResolvedPolicy& resolved, uid_t caller_uid);

}  // namespace holdfast::launcher
