// Descriptors 0, 1 and 2 as the caller hands them in, which the command
// inherits. Each is a way out of the sandbox if passed as it is:
//
//   * a descriptor keeps the mount it was opened on, the host's, which the
//     sandbox's read-only binds do not cover: reopening /proc/self/fd/0
//     of `holdfast run -- CMD < ~/notes` for writing appended to the host
//     file (and reopening an output file for reading reads it);
//   * a directory is a starting point for openat(0, "../x") anywhere;
//   * a terminal whose foreground process group is not holdfast's (a
//     launch started with `&`) is the operator's: the command, in a session
//     of its own, is never stopped by SIGTTIN and reads their type-ahead.
//
// So: a directory is refused; a terminal of which holdfast is not in the
// foreground gives the command /dev/null as its input (as POSIX shells do
// for background jobs without job control); a descriptor that can be
// reopened through /proc/self/fd (a regular file, a named FIFO, a block or
// character device but a terminal and the harmless /dev/null, zero, full,
// random, urandom) is relayed through a pipe unless the policy lets the
// command write its path anyway; pipes, sockets and terminals are passed
// as they are. A relayed input is read by holdfast and written into the
// pipe; a relayed output is read from the pipe and written to the
// caller's file (stdout and stderr on the same file share one pipe, so
// their order is kept). The command then sees a pipe, which cannot be
// seeked.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "base/fd.hpp"
#include "launcher/run/supervise.hpp"
#include "launcher/sandbox/resolved_policy.hpp"

namespace holdfast::launcher {

// What one of the command's descriptors 0-2 is, on the host.
struct StandardFd {
  enum class Kind {
    closed,
    directory,
    reopenable,  // regular file, named FIFO, block or character device
    harmless,    // anonymous pipe, socket, anonymous inode, /dev/null & co.
    terminal,
  };
  int number = 0;  // 0, 1 or 2
  Kind kind = Kind::closed;
  std::string path;              // /proc/self/fd/N's link; "" when closed
  bool writable_inside = false;  // reopenable: the policy makes `path` writable
  bool foreground = true;        // terminal: holdfast's group is its foreground one
  dev_t device = 0;              // to tell stdout and stderr on one file
  ino_t inode = 0;
};

// What to do with each.
struct StandardFdPlan {
  std::optional<std::string> refusal;  // a directory: what to say
  bool null_input = false;             // descriptor 0 becomes /dev/null
  std::vector<int> relay_in;           // {0} or {}
  // Output descriptors relayed, grouped by the file they share: {{1, 2}}
  // for `> log 2>&1`, {{1}, {2}} for two files.
  std::vector<std::vector<int>> relay_out;
  std::vector<std::string> notices;  // said to the caller (the background terminal)
};

// Pure.
StandardFdPlan plan_standard_fds(const std::vector<StandardFd>& fds);

// The descriptors the command gets, made from the plan: pipes, /dev/null,
// and the relays that supervise() runs.
struct StandardFdSetup {
  int stdin_fd = -1;  // -1: as handed in
  int stdout_fd = -1;
  int stderr_fd = -1;
  std::vector<Relay> relays;
  base::UniqueFd null_input;  // kept open until the command has it
  std::vector<std::string> notices;
};

// Looks at `given` (the caller's 0-2, or the library caller's replacements
// for 1 and 2), judges them against the launch's `resolved` policy, and
// sets up what the command gets. Throws sandbox::Refused for a directory,
// base::SystemError when a pipe cannot be made.
StandardFdSetup set_up_standard_fds(const int (&given)[3], const sandbox::ResolvedPolicy& resolved);

}  // namespace holdfast::launcher
