#include "launcher/run/run_cli.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <iostream>
#include <string_view>

#include "launcher/run/launch_plan.hpp"
#include "launcher/run/launch_record.hpp"
#include "launcher/run/mount_check.hpp"
#include "launcher/run/mount_points.hpp"
#include "launcher/run/supervise.hpp"
#include "launcher/sandbox/bwrap_args.hpp"
#include "launcher/sandbox/explain.hpp"
#include "launcher/sandbox/refusal.hpp"
#include "launcher/seccomp/filter.hpp"
#include "settings/errors.hpp"
#include "settings/key_path.hpp"
#include "settings/strict_modes.hpp"

namespace holdfast::launcher {

namespace fs = std::filesystem;

namespace {

constexpr const char* kDoctorHint = "run `holdfast doctor` to check this host";

struct RunOptions {
  std::string workspace;
  std::string cwd;
  bool require_sandbox = false;
  std::string report;
  bool dry_run = false;
  bool explain = false;
  double timeout_seconds = 0;
  std::string save_seccomp;
  std::vector<std::string> command;
};

// Copies the sealed BPF program out (pread: the memfd's offset stays at 0).
void save_seccomp_program(int memfd, const std::string& file) {
  std::string program;
  char buffer[8192];
  for (off_t offset = 0;;) {
    const ssize_t n = ::pread(memfd, buffer, sizeof buffer, offset);
    if (n < 0) settings::throw_errno("cannot read the seccomp program for", file);
    if (n == 0) break;
    program.append(buffer, static_cast<std::size_t>(n));
    offset += n;
  }
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out << program;
  if (!out) throw settings::SystemError("cannot write", file, errno);
}

// Opens the --report file before the command starts, so that what the
// command does to that path meanwhile (a symlink in its place) changes
// nothing: the report is written through this descriptor. A symlink there
// already (O_NOFOLLOW), anything but a regular file, or a file with other
// names (hard links) is refused.
settings::UniqueFd open_report(const std::string& file) {
  settings::UniqueFd fd(
      ::open(file.c_str(), O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0666));
  if (!fd.valid()) {
    if (errno == ELOOP) {
      throw settings::UsageError("the report file " + file +
                                 " is a symlink; holdfast writes reports only to a regular file "
                                 "it opens without following links. Remove it or choose another "
                                 "path");
    }
    settings::throw_errno("cannot open the report file", file);
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) settings::throw_errno("cannot stat the report file", file);
  if (!S_ISREG(st.st_mode) || st.st_nlink != 1) {
    throw settings::UsageError(
        "the report file " + file + " is " +
        (S_ISREG(st.st_mode) ? "a file with other names (hard links)" : "not a regular file") +
        "; holdfast writes reports only to a regular file of its own. Remove it or choose another "
        "path");
  }
  return fd;
}

// Creates holdfast's state directory (and the missing directories above
// it) private to the user, as the XDG base directories are. Failing is not
// fatal: records and mount-point cleanup then warn or do nothing.
void make_state_dir(const fs::path& dir) {
  fs::path at;
  for (const auto& part : dir) {
    at /= part;
    if (::mkdir(at.c_str(), 0700) != 0 && errno != EEXIST) return;
  }
}

// The caller's logical cwd: $PWD when it names the current directory (it
// may be a symlinked alias, which the sandbox resolves), else getcwd().
fs::path logical_cwd() {
  const fs::path physical = fs::current_path();
  const char* pwd = std::getenv("PWD");  // NOLINT(concurrency-mt-unsafe)
  if (pwd != nullptr && *pwd == '/') {
    struct stat a {};
    struct stat b {};
    if (::stat(pwd, &a) == 0 && ::stat(".", &b) == 0 && a.st_dev == b.st_dev &&
        a.st_ino == b.st_ino) {
      return pwd;
    }
  }
  return physical;
}

// Prints the message, every line starting with "holdfast:", and returns
// the refusal status.
int refuse(const std::string& message) {
  std::size_t start = 0;
  do {
    const std::size_t end = std::min(message.find('\n', start), message.size());
    std::cerr << "holdfast: " << std::string_view(message).substr(start, end - start) << "\n";
    start = end + 1;
  } while (start < message.size());
  return kExitRefused;
}

// What went wrong while planning or starting a launch, and what to do
// about it: every failure is one refusal (exit 125), never a fallback.
std::string failure_message(const std::exception_ptr& failure) {
  try {
    std::rethrow_exception(failure);
  } catch (const settings::InvalidSettings& e) {
    std::string message;
    for (const auto& d : e.diagnostics()) message += d.to_string() + "\n";
    return message +
           "refusing to launch: a settings file is invalid, and an invalid policy is never "
           "treated as empty. Fix the file (holdfast settings validate shows every problem).";
  } catch (const settings::UnsafeSettingsFile& e) {
    return std::string(e.what()) +
           "\nrefusing to launch: a policy file that others can write is not a policy. " +
           kDoctorHint;
  } catch (const settings::SnapshotError& e) {
    return std::string("refusing to launch: ") + e.what();
  } catch (const sandbox::Refused& e) {
    std::string message;
    for (const auto& refusal : e.refusals()) {
      message += (message.empty() ? "" : "\n") + refusal.to_string();
    }
    return message;
  } catch (const seccomp::SeccompError& e) {
    return std::string("cannot build the seccomp filter: ") + e.what() + "; " + kDoctorHint;
  } catch (const settings::UsageError& e) {
    return e.what();
  } catch (const settings::SystemError& e) {
    return std::string(e.what()) + "; " + kDoctorHint;
  } catch (const std::exception& e) {
    return std::string("unexpected failure: ") + e.what() + "; " + kDoctorHint;
  }
}

// How the mounts are made and checked, and what holdfast looked for on
// this host to protect.
std::string describe_mounts(const LaunchPlan& plan) {
  const auto& facts = plan.facts;
  std::string out =
      "mounts: each bind source is opened once, following no symlink, checked to be the file "
      "looked at above (device and inode) and passed to bubblewrap as a descriptor; the built "
      "sandbox is held before the command starts and each mount is checked from outside (at its "
      "path, no symlink on the way, the file checked, read-only where it must be)\n";
  out += "repositories below writable directories: " + std::to_string(facts.nested_git.size()) +
         " found (" + std::to_string(facts.repo_scan.directories) + " directories read" +
         (facts.repo_scan.complete
              ? ")"
              : "; stopped at the limit of " + std::to_string(sandbox::kRepoScanBudget) +
                    ": repositories deeper than that are not protected)") +
         "; each is read-only inside\n";
  for (const auto& git : facts.nested_git) out += "  " + git + "\n";
  out += facts.state_dir ? "state directory: " + facts.state_dir->canonical +
                               " (launch records; never writable inside)\n"
                         : std::string(
                               "state directory: unknown (no HOLDFAST_STATE_DIR, "
                               "XDG_STATE_HOME or HOME): no launch records, and the "
                               "mount points below are not removed\n");
  if (!plan.created_mount_points.empty()) {
    out +=
        "mount points bubblewrap creates on the host (empty directories, removed by the last "
        "launch to end):\n";
    for (const auto& path : plan.created_mount_points) out += "  " + path + "\n";
  }
  return out;
}

std::string describe_explanation(const LaunchPlan& plan) {
  std::string out = "settings snapshot " + plan.snapshot.digest + "\n";
  for (const auto& file : plan.snapshot.scopes) {
    out += "  " + std::string(settings::scope_name(file.scope)) + ": " + file.path.string() +
           (file.exists ? " (revision " + std::to_string(file.revision) + ")" : " (absent)") + "\n";
  }
  for (const auto& warning : plan.snapshot.effective.warnings) {
    out += "  " + warning.to_string() + "\n";
  }
  out += "\n" + sandbox::explain(plan.policy, &plan.facts);
  out += "\n" + describe_mounts(plan);
  out += "\nseccomp filter:\n";
  for (const auto& line : seccomp::describe_rules(plan.filter)) out += "  " + line + "\n";
  return out;
}

// Runs the command without a sandbox. Reached only when bwrap is missing,
// an operator scope sets security.allowUnconfined, and --require-sandbox
// was not given.
[[noreturn]] void exec_unconfined(const RunOptions& options, const fs::path& cwd) {
  std::cerr << "holdfast: WARNING: bubblewrap is not installed and security.allowUnconfined is "
               "set: running the command UNCONFINED\n";
  if (::chdir(cwd.c_str()) != 0) {
    std::cerr << "holdfast: cannot change to " << cwd << "\n";
    std::exit(kExitRefused);  // NOLINT(concurrency-mt-unsafe)
  }
  std::vector<char*> argv;
  for (const auto& arg : options.command) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  ::execvp(argv[0], argv.data());
  std::cerr << "holdfast: cannot execute " << options.command.front() << "\n";
  std::exit(kExitRefused);  // NOLINT(concurrency-mt-unsafe)
}

bool operator_allows_unconfined(const settings::Effective& effective) {
  const auto* flag = settings::find_value(effective.value, {"security", "allowUnconfined"});
  return flag != nullptr && flag->is_boolean() && flag->get<bool>();
}

int run(const RunOptions& options) {
  if (options.command.empty()) {
    return refuse("no command given; write it after --, e.g. holdfast run -- make test");
  }
  const fs::path cwd = options.cwd.empty() ? logical_cwd() : fs::absolute(options.cwd);
  LaunchRequest request;
  request.workspace = options.workspace.empty() ? cwd : fs::absolute(options.workspace);
  request.cwd = cwd;
  request.command = options.command;
  try {
    request.state_dir = settings::state_dir_from_environment();
    make_state_dir(*request.state_dir);
  } catch (const settings::UsageError&) {
    // No state directory: no launch records, no mount-point cleanup.
  }
  request.will_run = !options.dry_run && !options.explain;
  const auto bwrap = locate_bwrap();
  request.bwrap_path = bwrap.value_or("bwrap");

  LaunchPlan plan;
  std::optional<MountPointCleanup> mount_points;
  try {
    if (!bwrap) {
      // Still read the settings: only an operator may allow running unconfined.
      const auto paths = settings::scope_paths_from_environment(request.workspace);
      const auto snapshot = settings::take_snapshot(paths, request.snapshot_options);
      if (!options.require_sandbox && !options.dry_run && !options.explain &&
          operator_allows_unconfined(snapshot.effective)) {
        exec_unconfined(options, cwd);
      }
      return refuse(
          "bubblewrap (bwrap) was not found on PATH (or at $HOLDFAST_BWRAP); holdfast never "
          "runs a command unconfined unless an operator sets security.allowUnconfined. Install "
          "it (apt-get install bubblewrap); " +
          std::string(kDoctorHint));
    }
    if (request.will_run && request.state_dir) {
      // Before looking at the host: no other launch's cleanup may remove a
      // mount point this one is about to stand on.
      try {
        mount_points.emplace(*request.state_dir);
      } catch (const settings::SystemError&) {
        // No lock, no cleanup: the mount points stay behind, empty.
      }
    }
    plan = plan_launch(request);
  } catch (const std::exception&) {
    return refuse(failure_message(std::current_exception()));
  }

  if (options.require_sandbox && plan.policy.form == sandbox::PolicyForm::builtin_default) {
    return refuse(
        "--require-sandbox: no operator scope sets tools.executionSandbox (only the built-in "
        "default would apply). Set a policy, e.g. holdfast settings set --scope user "
        "tools.executionSandbox '{\"filesystem\": \"workspace-write\", \"network\": \"closed\"}'");
  }
  if (!options.save_seccomp.empty()) {
    try {
      save_seccomp_program(plan.seccomp_fd.get(), options.save_seccomp);
    } catch (const settings::SystemError& e) {
      return refuse(e.what());  // a file the caller named: no doctor hint
    }
  }
  if (options.explain) std::cout << describe_explanation(plan);
  if (options.dry_run) {
    for (const auto& arg : plan.argv) std::cout << arg << "\n";
  }
  if (options.explain || options.dry_run) return 0;

  SuperviseRequest supervise_request;
  supervise_request.bwrap_path = plan.argv.front();
  supervise_request.bwrap_args.assign(plan.argv.begin() + 1, plan.argv.end());
  supervise_request.inherited_fds = plan.inherited_fds();
  supervise_request.environment = environment_entries(sandbox::command_environment(plan.facts));
  try {
    supervise_request.limits = resource_limits(plan.policy.limits, ::getuid());
  } catch (const std::exception&) {
    return refuse(failure_message(std::current_exception()));
  }
  if (options.timeout_seconds > 0) {
    supervise_request.timeout =
        std::chrono::milliseconds(static_cast<long>(options.timeout_seconds * 1000));
  }
  // Nothing runs in the sandbox until its mounts are seen to be what was
  // checked (mount_check.hpp).
  std::string mounts_wrong;
  supervise_request.gate = GateCheck{
      plan.gate->ready_fd(), [&](long sandbox_pid) {
        const auto checking = std::chrono::steady_clock::now();
        mounts_wrong = check_sandbox_mounts(sandbox_pid, plan.mount_checks, plan.facts.identities);
        plan.timings.mount_check = std::chrono::duration_cast<std::chrono::microseconds>(
            std::chrono::steady_clock::now() - checking);
        if (!mounts_wrong.empty()) return false;
        try {
          plan.gate->open();
        } catch (const settings::SystemError& e) {
          mounts_wrong = e.what();
          return false;
        }
        return true;
      }};
  settings::UniqueFd report;
  SuperviseOutcome outcome;
  try {
    if (!options.report.empty()) report = open_report(options.report);
    if (mount_points) {
      try {
        mount_points->record(plan.created_mount_points);
      } catch (const settings::SystemError&) {
        // Unrecorded mount points stay behind, empty; nothing is weakened.
      }
    }
    outcome = supervise(supervise_request);
  } catch (const std::exception&) {
    return refuse(failure_message(std::current_exception()));
  }
  if (mount_points) mount_points->finish();
  const int status = exit_status_of(outcome);
  if (outcome.timed_out) {
    std::cerr << "holdfast: the command exceeded --timeout " << options.timeout_seconds
              << " s and was stopped\n";
  } else if (outcome.gate_refused) {
    std::cerr << "holdfast: the sandbox was not built as checked (" << mounts_wrong
              << "); the command did not run. Something moved a directory on the way while the "
                 "sandbox was built; start it again, and find what keeps moving it (anything "
                 "that can write a parent directory can)\n";
  } else if (!outcome.command_status) {
    std::cerr << "holdfast: bubblewrap could not set up the sandbox (its message is above); "
                 "the command did not run. "
              << kDoctorHint << "\n";
  }

  if (report.valid()) {
    try {
      if (::ftruncate(report.get(), 0) != 0) {
        settings::throw_errno("cannot truncate the report file", options.report);
      }
      settings::write_all(report.get(), launch_report(plan, outcome, status).dump(2) + "\n",
                          options.report);
    } catch (const std::exception& e) {
      std::cerr << "holdfast: cannot write the report " << options.report << ": " << e.what()
                << "\n";
    }
  }
  if (launch_records_enabled(plan.snapshot.effective)) {
    if (const auto log = launch_log_path()) {
      try {
        append_json_line(*log, launch_record(plan, options.command, status));
      } catch (const std::exception& e) {
        std::cerr << "holdfast: warning: launch record not written: " << e.what() << "\n";
      }
    }
  }
  return status;
}

}  // namespace

CLI::App* add_run_cli(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<RunOptions>();
  auto* run_cmd = app.add_subcommand(
      "run",
      "Run a command inside a bubblewrap + seccomp sandbox built from the operator's policy");
  run_cmd->add_option("--workspace", options->workspace,
                      "The workspace: writable under workspace-write, the :workspace token "
                      "(default: the current directory)");
  run_cmd->add_option("--cwd", options->cwd,
                      "Where the command starts, inside the workspace (default: the current "
                      "directory)");
  run_cmd->add_flag("--require-sandbox", options->require_sandbox,
                    "Refuse unless an operator scope sets tools.executionSandbox; never run "
                    "unconfined even if security.allowUnconfined is set");
  run_cmd->add_option("--report", options->report,
                      "Write a JSON report: snapshot digest and scope identities, policy, argv, "
                      "exit status, timings");
  run_cmd->add_flag("--dry-run", options->dry_run,
                    "Print the bwrap argv, one argument per line, and do not run (at run time "
                    "holdfast adds --info-fd N --json-status-fd M after argv[0])");
  run_cmd->add_flag("--explain", options->explain,
                    "Explain the policy: each part and the scope it came from, what is "
                    "writable, what is denied, the network, the seccomp filter; do not run");
  run_cmd->add_option("--save-seccomp", options->save_seccomp,
                      "With --dry-run: write the compiled seccomp program (BPF) to this file, "
                      "to start bwrap by hand with --seccomp 3 3<FILE");
  run_cmd
      ->add_option("--timeout", options->timeout_seconds,
                   "Stop the command after this many seconds (SIGTERM, then SIGKILL); exit 124")
      ->check(CLI::PositiveNumber);
  run_cmd->add_option("command", options->command, "The command and its arguments, after --")
      ->expected(-1);
  run_cmd->footer(
      "Exit status: the command's; 128+N when killed by signal N; 124 after --timeout; 125 when "
      "holdfast refused or failed (the message starts with \"holdfast:\").\nSIGINT, SIGTERM, "
      "SIGHUP and SIGQUIT are forwarded to the command.");
  run_cmd->callback([options, &exit_code] { exit_code = run(*options); });
  return run_cmd;
}

}  // namespace holdfast::launcher
