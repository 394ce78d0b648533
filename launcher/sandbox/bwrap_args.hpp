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
#pragma once

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
};

// Throws Refused when check_admission refuses; std::invalid_argument for an
// empty command or a denied file without options.empty_file_fd.
std::vector<std::string> build_bwrap_args(const Policy& policy, const HostFacts& facts,
                                          const std::vector<std::string>& command,
                                          const BuildOptions& options = {});

// The command's whole environment, in name order: the allow-listed names
// from the caller (PATH defaulted), HOME canonical, TMPDIR=/tmp.
std::vector<std::pair<std::string, std::string>> command_environment(const HostFacts& facts);

// True when the built argv needs BuildOptions::empty_file_fd.
bool needs_empty_file_fd(const Policy& policy, const HostFacts& facts);

}  // namespace holdfast::sandbox
