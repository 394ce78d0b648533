// Starting bubblewrap and standing in for the confined command until it
// ends: signals forwarded, a timeout enforced, the exit status propagated.
//
// bubblewrap does not relay signals: its init (pid 1 of the new pid
// namespace) ignores them. So holdfast learns the sandbox's init pid from
// bwrap's --info-fd, and forwards SIGINT, SIGTERM, SIGHUP and SIGQUIT to
// the command itself (the init's child). bwrap's --json-status-fd tells a
// command's exit status ("exit-code", 128+N for signal N) apart from bwrap
// failing to build the sandbox (no "exit-code" at all). Everything is
// event driven: a signalfd, a pidfd and (until it names the sandbox's pid)
// the info pipe in one poll(); the status pipe is read once bwrap exits.
//
// bwrap is started with exactly the command's environment and the policy's
// resource limits, inherits no descriptor but the ones named, and is
// executed through the descriptor of the trusted bubblewrap
// (trusted_executable.hpp), never by a name looked up again. Relays copy
// between the caller's descriptors and the pipes the command got instead
// (standard_fds.hpp) in the same poll().
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/fd.hpp"
#include "launcher/sandbox/policy.hpp"

namespace holdfast::launcher {

// A resource limit set on bwrap before it starts (soft = hard, so nothing
// inside can raise it); bwrap and everything inside inherit it.
struct ResourceLimit {
  int resource = 0;  // RLIMIT_*
  std::uint64_t value = 0;
  bool operator==(const ResourceLimit&) const = default;
};

// A hold between bubblewrap building the sandbox and starting the command:
// `ready_fd` becomes writable when the sandbox is built (see
// launcher/run/start_gate.hpp); supervise then calls `open` with the host
// pid of the sandbox's init. `open` releases bwrap and returns true, or
// returns false, and bwrap and the sandbox's init are killed before the
// command ran.
struct GateCheck {
  int ready_fd = -1;
  std::function<bool(long sandbox_pid)> open;
  // Called once bwrap has started, before waiting for the sandbox to be
  // built: work `open` needs done that can overlap bwrap's own (the
  // Landlock rules on host files, host_rules.hpp). Must not throw: it
  // keeps what went wrong for `open` to refuse.
  std::function<void()> meanwhile;
};

// A copy loop between one of the caller's descriptors and a pipe that
// stands in for it inside (see standard_fds.hpp).
struct Relay {
  bool into_command = false;  // caller_fd → pipe (input); else pipe → caller_fd
  int caller_fd = -1;         // not owned
  base::UniqueFd ours;        // holdfast's end of the pipe, non-blocking
  base::UniqueFd theirs;      // the command's end: closed here once bwrap has it
};

struct SuperviseRequest {
  std::string bwrap_path;  // as configured: argv[0] and messages
  // The trusted bubblewrap, open (TrustedExecutable::fd): what is executed.
  int bwrap_fd = -1;
  // It is a script: its descriptor must be inherited by the exec (the
  // interpreter reads it as /dev/fd/N).
  bool bwrap_is_script = false;
  std::vector<std::string> bwrap_args;  // everything after argv[0], ending with "--", CMD...
  // bwrap's whole environment, "NAME=VALUE" entries: the command's own
  // (sandbox::command_environment), never holdfast's. bwrap's init is pid 1
  // inside, and /proc/1/environ shows what bwrap was started with.
  std::vector<std::string> environment;
  std::vector<ResourceLimit> limits;
  // The launch's cgroup's join files (cgroup.hpp), open for writing:
  // bwrap's process, single-threaded, joins each before it execs, so the
  // whole sandbox is born inside. Not inherited.
  std::vector<int> cgroup_join_fds;
  // File descriptors bwrap must inherit (seccomp program, --ro-bind-data
  // sources); they keep their numbers. Every other descriptor is closed.
  std::vector<int> inherited_fds;
  std::optional<std::chrono::milliseconds> timeout;
  // After the timeout's SIGTERM, how long before SIGKILL.
  std::chrono::milliseconds kill_grace{2000};
  std::optional<GateCheck> gate;
  // bwrap's (and so the command's) standard input, output and error; -1
  // keeps holdfast's own.
  int stdin_fd = -1;
  int stdout_fd = -1;
  int stderr_fd = -1;
  // Run until their end while bwrap runs; an output relay is drained once
  // bwrap has exited.
  std::vector<Relay> relays;
};

struct SuperviseOutcome {
  // The confined command's exit status as bwrap reports it (128+N when killed
  // by signal N); nullopt when bwrap failed before the command ran.
  std::optional<int> command_status;
  int bwrap_wait_status = 0;  // raw waitpid() status of bwrap itself
  bool timed_out = false;
  bool gate_refused = false;  // the gate's open() said no; the command never ran
  std::vector<int> forwarded_signals;
  // A relay that failed (the caller's file could not be read or written):
  // what happened; the command ran all the same.
  std::vector<std::string> relay_errors;
  long sandbox_init_pid = 0;                    // host pid of the sandbox's pid 1, from --info-fd
  std::chrono::microseconds started_after{0};   // spawn → bwrap reported the sandbox up
  std::chrono::microseconds finished_after{0};  // spawn → bwrap exited
};

// The rlimits for the policy's limits: CPU seconds per process, and no core
// files unless the policy asks for them (a crash inside would otherwise
// reach the host's core handler, which runs outside the sandbox). Tasks and
// memory are bounded per sandbox by its cgroup (cgroup.hpp), not here.
std::vector<ResourceLimit> resource_limits(const sandbox::Limits& limits);

// "NAME=VALUE" entries for SuperviseRequest::environment.
std::vector<std::string> environment_entries(
    const std::vector<std::pair<std::string, std::string>>& variables);

// Starts bwrap and waits for it. Throws launcher errors (SystemError) when
// bwrap cannot be started at all.
SuperviseOutcome supervise(SuperviseRequest request);

// The exit status holdfast reports for an outcome: the command's status, 124
// after a timeout, or 125 when bwrap failed to set up the sandbox.
int exit_status_of(const SuperviseOutcome& outcome);

inline constexpr int kExitRefused = 125;
inline constexpr int kExitTimeout = 124;

}  // namespace holdfast::launcher
