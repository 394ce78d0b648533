// One confined command, from the settings snapshot to its exit status, as a
// library call: what `holdfast run` does once it has read its command line,
// and what `holdfast doctor` does with /bin/true. An agent or a GUI that
// links holdfast starts commands with this and gets the same snapshot,
// admission, plan, descriptor binds, start-gate check, seccomp program,
// supervision, mount-point cleanup, report and launch record as the CLI,
// without starting holdfast itself.
//
// It never runs anything unconfined: without a trusted bubblewrap it
// throws NoTrustedBubblewrap (the CLI alone decides about an operator's
// security.allowUnconfined, with decide_start).
//
// Its defaults are the command line's: every protection `holdfast run`
// has, a caller of the library has without asking. What a caller can turn
// off is named in LaunchOptions under "Weakening", and nothing else.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "launcher/run/launch_plan.hpp"
#include "launcher/run/supervise.hpp"

namespace holdfast::launcher {

struct LaunchOptions {
  // Absolute; empty: the cwd. The workspace is opened once and bound from
  // that descriptor (launch_directories.hpp).
  std::filesystem::path workspace;
  // Absolute; the command starts there. Empty: this process's current
  // directory itself (not its name, which another process could swap).
  std::filesystem::path cwd;
  std::vector<std::string> command;
  // holdfast's state directory: the launch records, the presence memory of
  // the settings files and the mount-point lock. Unset: the environment's
  // (settings::optional_state_dir: $HOLDFAST_STATE_DIR, $XDG_STATE_HOME,
  // ~/.local/state), as the command line. Either way it is checked and
  // created private (settings::prepare_state_dir) and hidden inside the
  // sandbox.
  std::optional<std::filesystem::path> state_dir;
  // Refuse (sandbox::Refused) unless an operator scope sets a policy.
  bool require_sandbox = false;
  // The --report document: opened before the command starts, without
  // following a symlink, and written through that descriptor at the end.
  std::optional<std::filesystem::path> report;
  std::optional<std::chrono::milliseconds> timeout;
  // Where bubblewrap's and the command's output goes; -1 keeps ours. Like
  // our own 0-2, these are judged by set_up_standard_fds.
  int stdout_fd = -1;
  int stderr_fd = -1;
  settings::SnapshotOptions snapshot_options;

  // --- Weakening: each turns off something the command line always does.
  // false: no line in launches.jsonl for this launch (doctor's trial
  // launch), so the operator cannot trace it afterwards.
  bool record = true;
};

struct LaunchResult {
  LaunchPlan plan;
  SuperviseOutcome outcome;
  int exit_status = kExitRefused;  // exit_status_of(outcome)
  // Set when the built sandbox was not what was checked (the command did
  // not run): what was wrong.
  std::string sandbox_mismatch;
  // Set when the second layer's rules on host files could not be added
  // (the command did not run): why.
  std::string second_layer_error;
  // Set when the network allow-list's proxy could not be put in place (the
  // command did not run): why.
  std::string network_error;
  // With a network allow-list: the launch's audit log (one JSON line per
  // connection attempt, network_proxy.hpp) and its lines once the command
  // ended.
  std::filesystem::path network_audit;
  nlohmann::json connections = nlohmann::json::array();
  // How many times the sandbox was built: a host mount that arrived while
  // it was built (anywhere below a bound path: unrelated activity) stops
  // that sandbox before the command runs, and the launch is planned and
  // built again, up to kLaunchAttempts times.
  int attempts = 0;
  // What appeared in the writable roots while the command ran (bare
  // repository layouts, repositories, protected names), looked for once it
  // ended.
  sandbox::TreeChanges changes;
  // Processes of the sandbox the kernel ended because the sandbox reached
  // its memory bound (its cgroup's out-of-memory kills).
  std::uint64_t memory_kills = 0;
  // Problems after the command ended that did not change its outcome (the
  // report or the launch record could not be written), and the changes
  // above and the credential stores hidden from a command that failed, in
  // words.
  std::vector<std::string> warnings;
};

// The plan request of a launch with `options`, its state directory
// resolved (the environment's when unset) and prepared
// (settings::prepare_state_dir). `will_run` false: a plan that names the
// bind sources by path and holds the seccomp program in a plain
// descriptor, to be shown (--dry-run, --explain) or run by hand. Throws
// settings::UsageError when no state directory can be found, and what
// prepare_state_dir throws.
LaunchRequest plan_request(const LaunchOptions& options, bool will_run);

// Starts the command and waits for it. Throws what plan_launch throws,
// sandbox::Refused (require_sandbox, limits that cannot be enforced, a
// directory on descriptor 0-2), settings::UsageError (an unusable report
// path; settings::UnsafeStateDir, no state directory at all) and
// base::SystemError (bubblewrap could not be started); each says what was
// wrong.
LaunchResult launch(const LaunchOptions& options);
inline constexpr int kLaunchAttempts = 3;

// Throws sandbox::Refused ("sandbox-required") when the plan's policy is
// the built-in default: no operator scope sets tools.executionSandbox.
void require_operator_policy(const LaunchPlan& plan);

// What the caller should be told when the command did not run or did not
// end on its own (a timeout, the sandbox not as checked, bubblewrap failing
// to build it); empty when it ran and ended. One line, without "holdfast: ".
std::string describe_failure(const LaunchResult& result);

}  // namespace holdfast::launcher
