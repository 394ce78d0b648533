// The programs holdfast executes on the way to a confined command
// (bubblewrap, and helpers such as the Landlock one) are the mission's
// weakest point: one executed from a place the command could write runs
// the next launch unconfined. So holdfast executes only a program it
// trusts, and executes exactly the file it judged:
//
//   * found once, at a configured absolute path, never through PATH or an
//     environment variable;
//   * owned by root, a regular executable file writable by no one else, in
//     a directory chain from "/" in which every directory (and every
//     symlink followed on the way) is owned by root and writable by no one
//     else: a sticky directory is refused too (only a program's own owner
//     could replace it there, but nothing needs the exception);
//   * opened once, judged through that descriptor, and executed through it
//     (execveat(fd, "", AT_EMPTY_PATH)): a rename after the check cannot
//     swap it;
//   * a script ("#!") only when its interpreter passes the same check (the
//     kernel looks the interpreter up by its path; a chain only root can
//     change keeps that path meaning the same file).
//
// Being root-owned cannot protect a program from a command that runs as
// root: whether the launch's own policy could make the chain writable is
// checked where the plan is known (launch_plan.cpp).
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "base/fd.hpp"
#include "base/path_chain.hpp"

namespace holdfast::launcher {

// A program that passed the check, open.
struct TrustedExecutable {
  std::string path;      // as configured; argv[0] and messages
  std::string resolved;  // with its symlinks resolved
  base::UniqueFd fd;     // what was judged; execute this
  // For a script, its interpreter (judged the same way); the script's
  // descriptor must then be inherited by the exec (the interpreter reads
  // it as /dev/fd/N).
  std::optional<std::string> interpreter;
  // Every directory, symlink and file judged, "/" first: what doctor shows
  // and what the launch checks against its policy.
  std::vector<base::PathStep> chain;
  // One line for doctor: why it is trusted.
  std::string why_trusted() const;
};

// What looking a program up found.
struct ExecutableLookup {
  enum class Result {
    found,      // `executable` is set
    missing,    // nothing at the path (ENOENT on the way)
    untrusted,  // something there, but not a program holdfast may run
  };
  Result result = Result::missing;
  std::string path;
  std::optional<TrustedExecutable> executable;
  std::string problem;  // missing or untrusted: what was found, one line
  std::string remedy;   // untrusted: what to do
};

// Why the walked object may not be executed, or nullopt. Pure: `chain` is
// every step of base::walk_path, the object last. Owners other than root
// are refused unless they are `also_trusted` (0: root alone). (A script's
// interpreter is judged by a lookup of its own.)
std::optional<std::string> distrust(const std::vector<base::PathStep>& chain,
                                    uid_t also_trusted = 0);

// The interpreter a "#!" line names, or nullopt when `header` is not a
// script's. Pure.
std::optional<std::string> interpreter_of(const std::string& header);

// Looks `path` up, judges it and opens it (see above). Never throws for
// what it finds; std::bad_alloc aside. `also_trusted`: a second owner
// accepted besides root, for a program that is only as trusted as holdfast
// itself (holdfast-serve beside a holdfast built by a user).
ExecutableLookup find_trusted_executable(const std::string& path, uid_t also_trusted = 0);

// execveat(fd, "", argv, envp, AT_EMPTY_PATH): only async-signal-safe
// work, for a child between clone and exec. Returns only on failure (-1,
// errno set).
int execute_descriptor(int fd, char* const argv[], char* const envp[]);

}  // namespace holdfast::launcher
