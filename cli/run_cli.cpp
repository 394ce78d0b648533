#include "cli/run_cli.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <string_view>

#include "base/fd.hpp"
#include "base/files.hpp"
#include "base/system_error.hpp"
#include "launcher/run/bubblewrap.hpp"
#include "launcher/run/explanation.hpp"
#include "launcher/run/launch.hpp"
#include "launcher/sandbox/bwrap_args.hpp"
#include "launcher/sandbox/explain.hpp"
#include "launcher/sandbox/refusal.hpp"
#include "launcher/seccomp/filter.hpp"
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

// Copies the sealed BPF program out. Reading from the descriptor's offset
// reads it whole: the memfd is rewound once the program is written (bwrap
// reads from the offset too), and only --dry-run and --explain save it,
// when nothing else reads it.
void save_seccomp_program(int memfd, const std::string& file) {
  base::write_file(file, base::read_all(memfd, file));
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
  } catch (const base::SystemError& e) {
    return std::string(e.what()) + "; " + kDoctorHint;
  } catch (const std::exception& e) {
    return std::string("unexpected failure: ") + e.what() + "; " + kDoctorHint;
  }
}

// Runs the command without a sandbox. Reached only when decide_start says
// so: nothing at the configured bubblewrap path, an operator scope sets
// security.allowUnconfined, and --require-sandbox was not given.
[[noreturn]] void exec_unconfined(const RunOptions& options, const fs::path& cwd,
                                  const std::string& warning) {
  std::cerr << "holdfast: " << warning << "\n";
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

// No trusted bubblewrap: the one verdict doctor reaches too (decide_start)
// says whether the command runs unconfined or is refused.
int without_bubblewrap(const RunOptions& options, const fs::path& cwd,
                       const NoTrustedBubblewrap& missing) {
  const StartVerdict verdict =
      decide_start(missing.bubblewrap(), missing.effective(),
                   options.require_sandbox || options.dry_run || options.explain);
  if (verdict.mode == StartMode::unconfined) exec_unconfined(options, cwd, verdict.message);
  return refuse(verdict.message + "\nTo fix: " + verdict.remedy);
}

// --dry-run and --explain: the plan of the launch, with the bind sources
// and the seccomp program named as a person can pass them by hand.
int show_plan(const RunOptions& options, const LaunchOptions& launch_options) {
  LaunchPlan plan;
  try {
    plan = plan_launch(plan_request(launch_options, /*will_run=*/false));
    if (options.require_sandbox) require_operator_policy(plan);
  } catch (const NoTrustedBubblewrap& missing) {
    return without_bubblewrap(
        options, launch_options.cwd.empty() ? logical_cwd() : launch_options.cwd, missing);
  } catch (const std::exception&) {
    return refuse(failure_message(std::current_exception()));
  }
  if (!options.save_seccomp.empty()) {
    try {
      save_seccomp_program(plan.seccomp_fd.get(), options.save_seccomp);
    } catch (const base::SystemError& e) {
      return refuse(e.what());  // a file the caller named: no doctor hint
    }
  }
  if (options.explain) std::cout << explanation_text(plan);
  if (options.dry_run) {
    for (const auto& arg : plan.argv) std::cout << arg << "\n";
  }
  return 0;
}

int run(const RunOptions& options) {
  if (options.command.empty()) {
    return refuse("no command given; write it after --, e.g. holdfast run -- make test");
  }
  LaunchOptions launch_options;
  // Named only when given: otherwise the launch takes this process's current
  // directory itself, not a name another process could swap meanwhile.
  if (!options.cwd.empty()) launch_options.cwd = fs::absolute(options.cwd);
  if (!options.workspace.empty()) launch_options.workspace = fs::absolute(options.workspace);
  launch_options.command = options.command;
  launch_options.require_sandbox = options.require_sandbox;
  if (!options.report.empty()) launch_options.report = options.report;
  if (options.timeout_seconds > 0) {
    launch_options.timeout =
        std::chrono::milliseconds(static_cast<long>(options.timeout_seconds * 1000));
  }
  if (options.dry_run || options.explain) return show_plan(options, launch_options);

  LaunchResult result;
  try {
    result = launch(launch_options);
  } catch (const NoTrustedBubblewrap& missing) {
    return without_bubblewrap(
        options, launch_options.cwd.empty() ? logical_cwd() : launch_options.cwd, missing);
  } catch (const std::exception&) {
    return refuse(failure_message(std::current_exception()));
  }
  if (result.outcome.timed_out) {
    std::cerr << "holdfast: the command exceeded --timeout " << options.timeout_seconds
              << " s and was stopped\n";
  } else if (const std::string failure = describe_failure(result); !failure.empty()) {
    std::cerr << "holdfast: " << failure << "\n";
  }
  for (const auto& warning : result.warnings) std::cerr << "holdfast: warning: " << warning << "\n";
  return result.exit_status;
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
