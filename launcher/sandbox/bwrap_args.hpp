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
//   filesystem, in this order (each mount below only ever lands on a deeper
//   path than the ones before it that contain it, so narrower rules win):
//     1. base layer: --ro-bind / / (":root" read), --bind / / (write), or
//        bubblewrap's empty root when nothing grants "/";
//     2. fresh --dev /dev with a private --size N --tmpfs /dev/shm, then
//        --remount-ro /dev; fresh --proc /proc, then --remount-ro /proc;
//     3. every other rule by depth, shallow to deep: --size N --tmpfs /tmp
//        (private tmp; N from the policy's limits.tmpfsMiB), --ro-bind P P (read), --bind P P
//        (write), a denied directory as --perms 0000 --tmpfs P (0111 when deeper rules reopen paths
//        in it), a denied file as --perms 0000 --ro-bind-data FD P; path components under a masked
//        ancestor are recreated with
//        --perms 0111 --dir; a rule whose parent already gives the same
//        access emits nothing; a missing protected name under a writable
//        root becomes an empty read-only directory (--perms 0555 --tmpfs),
//        so it cannot be created;
//     4. top-level symlinks of :minimal (/bin -> usr/bin) in an empty root;
//     5. --chmod 0111 / for an empty root, then --remount-ro of every
//        masking tmpfs (and of the empty root).
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
#include "launcher/sandbox/policy.hpp"

namespace holdfast::sandbox {

struct BuildOptions {
  std::string bwrap_path = "bwrap";  // argv[0]
  // A compiled seccomp filter for --seccomp (built elsewhere).
  std::optional<int> seccomp_fd;
  // An fd open for reading on an empty file (/dev/null does), used as the
  // data of every denied file (--ro-bind-data FD). bubblewrap reads it to
  // end of file for each use; the caller keeps it open (not close-on-exec)
  // until bwrap has exec'd. Required only when the policy denies a file.
  std::optional<int> empty_file_fd;
  // When set, every bind source is passed as the descriptor given for its
  // path (see summarize_mounts) instead of by name; a source without one is
  // an error.
  std::optional<std::map<std::string, int>> bind_fds;
};

// One mount the argv asks for, as it must be found in the built sandbox:
// at `path` (resolved without symlinks), the root of a mount that is a bind
// of the host file at the same path, or a fresh tmpfs (bubblewrap's empty
// root, the private /tmp, a mask, the data of a denied file), read-only or
// not.
struct MountCheck {
  enum class Type { bind, tmpfs };
  std::string path;
  Type type = Type::bind;
  bool read_only = true;
  bool operator==(const MountCheck&) const = default;
};

// What a launch does around the argv.
struct MountSummary {
  // The paths bound, each once, in mount order: each is opened, checked
  // and passed as a descriptor (BuildOptions::bind_fds).
  std::vector<std::string> bind_sources;
  // Every mount of a host path or over one, in mount order (not /dev,
  // /proc or the directories recreated inside masks).
  std::vector<MountCheck> mounts;
  // Mount points bubblewrap creates on the host (a missing protected path
  // under a writable bind becomes an empty read-only directory, and its
  // mount point is made through the bind); they stay behind as empty
  // directories.
  std::vector<std::string> created_on_host;
  bool operator==(const MountSummary&) const = default;
};

// Throws Refused when check_admission refuses; std::invalid_argument for an
// empty command, a denied file without options.empty_file_fd, or a bind
// source missing from options.bind_fds.
std::vector<std::string> build_bwrap_args(const Policy& policy, const HostFacts& facts,
                                          const std::vector<std::string>& command,
                                          const BuildOptions& options = {});

// The command's whole environment, in name order: the allow-listed names
// from the caller (PATH defaulted), HOME canonical, TMPDIR=/tmp.
std::vector<std::pair<std::string, std::string>> command_environment(const HostFacts& facts);

// True when the built argv needs BuildOptions::empty_file_fd.
bool needs_empty_file_fd(const Policy& policy, const HostFacts& facts);

// The binds and host mount points of the argv build_bwrap_args would build
// (for a policy that admission accepts).
MountSummary summarize_mounts(const Policy& policy, const HostFacts& facts);

}  // namespace holdfast::sandbox
