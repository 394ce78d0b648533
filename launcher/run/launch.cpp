#include "launcher/run/launch.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fd.hpp"
#include "base/system_error.hpp"
#include "launcher/landlock/host_rules.hpp"
#include "launcher/run/host_changed.hpp"
#include "launcher/run/launch_record.hpp"
#include "launcher/run/mount_check.hpp"
#include "launcher/run/mount_points.hpp"
#include "launcher/run/network_proxy.hpp"
#include "launcher/run/propagation.hpp"
#include "launcher/run/protection_record.hpp"
#include "launcher/run/standard_fds.hpp"
#include "launcher/sandbox/refusal.hpp"

namespace holdfast::launcher {

namespace fs = std::filesystem;

namespace {

// Opens the report before the command starts, so that what the command
// does to that path meanwhile (a symlink in its place) changes nothing: the
// report is written through this descriptor. A symlink there already
// (O_NOFOLLOW), anything but a regular file, or a file with other names
// (hard links) is refused.
base::UniqueFd open_report(const fs::path& file) {
  base::UniqueFd fd(
      ::open(file.c_str(), O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0666));
  if (!fd.valid()) {
    if (errno == ELOOP) {
      throw settings::UsageError("the report file " + file.string() +
                                 " is a symlink; holdfast writes reports only to a regular file "
                                 "it opens without following links. Remove it or choose another "
                                 "path");
    }
    base::throw_errno("cannot open the report file", file);
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) base::throw_errno("cannot stat the report file", file);
  if (!S_ISREG(st.st_mode) || st.st_nlink != 1) {
    throw settings::UsageError(
        "the report file " + file.string() + " is " +
        (S_ISREG(st.st_mode) ? "a file with other names (hard links)" : "not a regular file") +
        "; holdfast writes reports only to a regular file of its own. Remove it or choose another "
        "path");
  }
  return fd;
}

void write_report(const base::UniqueFd& fd, const fs::path& file, const LaunchResult& result) {
  if (::ftruncate(fd.get(), 0) != 0) base::throw_errno("cannot truncate the report file", file);
  base::write_all(fd.get(),
                  launch_report(result.plan, result.outcome, result.exit_status, result.changes,
                                {result.network_audit, result.connections})
                          .dump(2) +
                      "\n",
                  file);
}

}  // namespace

void require_operator_policy(const LaunchPlan& plan) {
  if (plan.policy.form != sandbox::PolicyForm::builtin_default) return;
  sandbox::Refusal refusal;
  refusal.rule = "sandbox-required";
  refusal.path = plan.facts.workspace.canonical;
  refusal.message =
      "a sandbox policy is required (--require-sandbox) and no operator scope sets "
      "tools.executionSandbox: only the built-in default would apply";
  refusal.remedy =
      "set a policy, e.g. holdfast settings set --scope user tools.executionSandbox "
      "'{\"filesystem\": \"workspace-write\", \"network\": \"closed\"}'";
  throw sandbox::Refused({refusal});
}

LaunchRequest plan_request(const LaunchOptions& options, bool will_run) {
  LaunchRequest request;
  request.workspace = options.workspace;
  request.cwd = options.cwd;
  request.command = options.command;
  request.snapshot_options = options.snapshot_options;
  request.state_dir = options.state_dir ? options.state_dir : settings::optional_state_dir();
  if (!request.state_dir) {
    // The command line has none either: every launch keeps its records,
    // its presence memory and its mount-point lock there.
    settings::state_dir_from_environment();  // throws UsageError saying what to set
  }
  settings::prepare_state_dir(*request.state_dir);
  request.will_run = will_run;
  return request;
}

LaunchResult launch(const LaunchOptions& options) {
  const LaunchRequest request = plan_request(options, /*will_run=*/true);
  const fs::path& state_dir = *request.state_dir;

  // Before looking at the host: no other launch's cleanup may remove a
  // mount point this one is about to stand on.
  std::optional<MountPointCleanup> mount_points;
  try {
    mount_points.emplace(state_dir);
  } catch (const base::SystemError&) {
    // No lock, no cleanup: the mount points stay behind, empty.
  }

  LaunchResult result;
  base::UniqueFd report;
  if (options.report) report = open_report(*options.report);
  // A host mount that arrived while the sandbox was built stops it before
  // the command runs, and so does a path the plan looked at that the host
  // removed or replaced while bubblewrap started (host_changed_under); the
  // launch is then planned from a fresh reading.
  bool plan_again = true;
  bool mount_arrived = false;
  // The sandbox's bounds, for all of it at once (cgroup.hpp). Removed when
  // `group` goes: after the record, since the end of its last process (the
  // sandbox's mount namespace torn down) need not hold the record up.
  std::optional<cgroup::LaunchGroup> group;
  std::vector<std::string> fd_notices;
  std::vector<std::string> rebuilt_notices;
  while (plan_again && result.attempts < kLaunchAttempts) {
    group.reset();  // an earlier attempt's, emptied
    mount_arrived = false;
    ++result.attempts;
    result.sandbox_mismatch.clear();
    result.second_layer_error.clear();
    result.network_error.clear();
    bool gate_reached = false;
    result.plan = plan_launch(request);
    LaunchPlan& plan = result.plan;
    if (options.require_sandbox) require_operator_policy(plan);

    // What the command gets as 0, 1 and 2 (standard_fds.hpp).
    const int given[3] = {0, options.stdout_fd >= 0 ? options.stdout_fd : 1,
                          options.stderr_fd >= 0 ? options.stderr_fd : 2};
    StandardFdSetup standard_fds = set_up_standard_fds(given, plan.resolved);
    fd_notices = standard_fds.notices;

    SuperviseRequest supervise_request;
    supervise_request.bwrap_path = plan.argv.front();
    supervise_request.bwrap_fd = plan.bwrap.fd.get();
    supervise_request.bwrap_is_script = plan.bwrap.interpreter.has_value();
    supervise_request.bwrap_args.assign(plan.argv.begin() + 1, plan.argv.end());
    supervise_request.inherited_fds = plan.inherited_fds();
    supervise_request.environment =
        environment_entries(sandbox::command_environment(plan.facts, plan.policy));
    supervise_request.limits = resource_limits(plan.policy.limits);
    supervise_request.timeout = options.timeout;
    supervise_request.stdin_fd = standard_fds.stdin_fd;
    supervise_request.stdout_fd =
        standard_fds.stdout_fd >= 0 ? standard_fds.stdout_fd : options.stdout_fd;
    supervise_request.stderr_fd =
        standard_fds.stderr_fd >= 0 ? standard_fds.stderr_fd : options.stderr_fd;
    supervise_request.relays = std::move(standard_fds.relays);
    // A network allow-list's proxy (network_proxy.hpp): started before
    // bubblewrap, in place at the gate, stopped once bubblewrap has exited.
    std::optional<NetworkProxy> proxy;
    if (plan.policy.network == sandbox::Network::allow_list) {
      AuditFile audit = make_audit_file(state_dir, result.attempts);
      result.network_audit = audit.path;
      proxy.emplace(plan.policy.network_rules, std::move(audit.fd));
    }
    // Nothing runs in the sandbox until its mounts are seen to be what was
    // checked (mount_check.hpp).
    supervise_request.gate = GateCheck{
        plan.gate->ready_fd(),
        [&](long sandbox_pid) {
          gate_reached = true;
          // The second layer's rules on host files (added meanwhile).
          if (!result.sandbox_mismatch.empty() || !result.second_layer_error.empty()) return false;
          const auto checking = std::chrono::steady_clock::now();
          // Nothing propagates in from now on, nothing did before
          // (propagation.hpp), and every mount is where it belongs.
          result.sandbox_mismatch = seal_sandbox_mounts(sandbox_pid, plan.mounts, &mount_arrived);
          if (result.sandbox_mismatch.empty()) {
            result.sandbox_mismatch =
                check_sandbox_mounts(sandbox_pid, plan.mounts.checks, plan.facts.identities);
          }
          plan.timings.mount_check = std::chrono::duration_cast<std::chrono::microseconds>(
              std::chrono::steady_clock::now() - checking);
          if (!result.sandbox_mismatch.empty()) return false;
          // The proxy's sockets inside, before anything runs there.
          if (proxy) {
            const auto opening = std::chrono::steady_clock::now();
            result.network_error = proxy->open_inside(sandbox_pid);
            plan.timings.network_open = std::chrono::duration_cast<std::chrono::microseconds>(
                std::chrono::steady_clock::now() - opening);
            if (!result.network_error.empty()) return false;
          }
          try {
            plan.gate->open();
          } catch (const base::SystemError& e) {
            result.sandbox_mismatch = e.what();
            return false;
          }
          return true;
        },
        // While bubblewrap builds the sandbox: the Landlock rules on the
        // host's files, each on the file the launch checked (host_rules.hpp).
        [&] {
          if (!plan.landlock_ruleset_fd.valid()) return;
          const auto adding = std::chrono::steady_clock::now();
          try {
            const auto added = landlock::add_host_rules(plan.landlock_ruleset_fd.get(),
                                                        plan.landlock, plan.landlock_abi);
            if (!added.moved.empty()) {
              result.sandbox_mismatch = added.moved +
                                        " is not the file the launch checked any more, so its "
                                        "Landlock rule would land on another one";
            }
          } catch (const std::exception& e) {
            result.second_layer_error = e.what();
          }
          plan.timings.landlock_host_rules = std::chrono::duration_cast<std::chrono::microseconds>(
              std::chrono::steady_clock::now() - adding);
        }};

    if (mount_points) {
      try {
        mount_points->record(plan.mounts.created_on_host);
      } catch (const base::SystemError&) {
        // Unrecorded mount points stay behind, empty; nothing is weakened.
      }
    }
    // Made last, so that nothing before can leave it behind.
    if (plan.cgroup_placement.version) {
      const auto making = std::chrono::steady_clock::now();
      group.emplace(plan.cgroup_placement, plan.bounds);
      supervise_request.cgroup_join_fds = group->join_fds();
      plan.timings.cgroup = std::chrono::duration_cast<std::chrono::microseconds>(
          std::chrono::steady_clock::now() - making);
    }
    result.outcome = supervise(std::move(supervise_request));
    if (proxy) {
      const auto stopping = std::chrono::steady_clock::now();
      proxy->stop();
      result.connections = read_audit_lines(result.network_audit);
      plan.timings.network_stop = std::chrono::duration_cast<std::chrono::microseconds>(
          std::chrono::steady_clock::now() - stopping);
    }
    result.memory_kills = group ? group->memory_kills() : 0;
    // Nothing of the sandbox acts any more from here on, but bubblewrap's
    // init on its way out.
    if (group) group->wait_until_only(static_cast<pid_t>(result.outcome.sandbox_init_pid));
    const bool arrived = mount_arrived && result.outcome.gate_refused;
    plan_again = arrived || host_changed_under(result.outcome, gate_reached, plan.facts);
    // (A mount that arrived is what the start gate is for: no word.)
    if (plan_again && !arrived && result.attempts < kLaunchAttempts) {
      rebuilt_notices.push_back("the host changed under the plan while the sandbox was built (" +
                                (result.outcome.gate_refused
                                     ? result.sandbox_mismatch
                                     : std::string("bubblewrap's message above")) +
                                "); the launch was planned again");
    }
  }
  if (mount_points) mount_points->finish();
  const LaunchPlan& plan = result.plan;
  result.exit_status = exit_status_of(result.outcome);
  result.warnings = fd_notices;
  result.warnings.insert(result.warnings.end(), rebuilt_notices.begin(), rebuilt_notices.end());
  for (const auto& error : result.outcome.relay_errors) result.warnings.push_back(error);
  if (result.memory_kills > 0 && result.outcome.command_status) {
    result.warnings.push_back(cgroup::memory_bound_reached(result.memory_kills, plan.bounds));
  }
  // What the command left for git, editors and agents to act on later
  // (tree_scan.hpp): after the mount points are gone, so that only what
  // the command made is seen.
  if (result.outcome.command_status) {
    result.changes = sandbox::changes_since(plan.facts.tree, plan.policy.protected_names,
                                            plan.facts.scan_budget);
    for (auto& line : describe_changes(result.changes)) result.warnings.push_back(std::move(line));
    if (auto hint = hidden_stores_hint(plan, result.exit_status); !hint.empty()) {
      result.warnings.push_back(std::move(hint));
    }
  }

  if (report.valid()) {
    try {
      write_report(report, *options.report, result);
    } catch (const std::exception& e) {
      result.warnings.push_back("cannot write the report " + options.report->string() + ": " +
                                e.what());
    }
  }
  if (options.record && launch_records_enabled(plan.snapshot.effective)) {
    try {
      append_json_line(state_dir / "launches.jsonl",
                       launch_record(plan, options.command, result.exit_status, result.changes,
                                     {result.network_audit, result.connections}));
    } catch (const std::exception& e) {
      result.warnings.push_back(std::string("launch record not written: ") + e.what());
    }
  }
  return result;
}

std::string describe_failure(const LaunchResult& result) {
  if (result.outcome.timed_out) return "the command exceeded its timeout and was stopped";
  if (result.outcome.gate_refused && !result.network_error.empty()) {
    return "the network allow-list's proxy could not be put in place (" + result.network_error +
           "); the command did not run. Run `holdfast doctor` to check this host's network "
           "namespaces, or set tools.executionSandbox.network to \"closed\"";
  }
  if (result.outcome.gate_refused && !result.second_layer_error.empty()) {
    return "the sandbox's second layer (Landlock) could not be set up: " +
           result.second_layer_error +
           "; the command did not run. Run `holdfast doctor` to see what this host's Landlock "
           "supports";
  }
  if (result.outcome.gate_refused) {
    return "the sandbox was not built as checked (" + result.sandbox_mismatch +
           "); the command did not run. Something moved a directory on the way while the "
           "sandbox was built; start it again, and find what keeps moving it (anything that can "
           "write a parent directory can)";
  }
  if (!result.outcome.command_status && result.memory_kills > 0) {
    return "the sandbox reached its memory bound: the kernel ended " +
           std::to_string(result.memory_kills) +
           " of its processes, bubblewrap's own among them, before the command finished. Raise "
           "limits.memoryMiB if the command needs more";
  }
  if (!result.outcome.command_status) {
    return "bubblewrap could not set up the sandbox (its message is above); the command did not "
           "run. Run `holdfast doctor` to check this host";
  }
  return "";
}

}  // namespace holdfast::launcher
