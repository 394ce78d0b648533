#include "race-harness/external_launcher.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <sstream>

#include "base/fd.hpp"
#include "base/process.hpp"
#include "base/system_error.hpp"
#include "race-harness/contract.hpp"
#include "race-harness/documents.hpp"
#include "race-harness/evidence.hpp"

namespace holdfast::race {

namespace fs = std::filesystem;

namespace {

// More than any settings document the campaign hands out.
constexpr std::size_t kReportLimit = 1 << 20;

struct ContractRun {
  Captured captured;
  std::string report;  // what it wrote on descriptor 3
};

// Runs `command` with /bin/sh in `cwd`, the contract's environment and
// descriptor 3 on an anonymous file read back once it has ended (no pipe
// to drain while it runs, so nothing it does with the descriptor can
// block it or us).
ContractRun run_under_contract(const std::string& command,
                               const std::map<std::string, std::string>& environment,
                               const fs::path& cwd) {
  const base::UniqueFd report(::memfd_create("holdfast-race-report", MFD_CLOEXEC));
  if (!report.valid()) base::throw_errno("cannot make the report file for", command);
  const auto started = std::chrono::steady_clock::now();
  base::Captured captured = base::run_captured({{"/bin/sh", "-c", command},
                                                base::environment_with(environment),
                                                cwd,
                                                {{report.get(), kReportFd}}});
  ContractRun run;
  run.captured.status = captured.status;
  run.captured.out = std::move(captured.out);
  run.captured.err = std::move(captured.err);
  run.captured.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (::lseek(report.get(), 0, SEEK_SET) != 0) base::throw_errno("cannot rewind", "the report");
  run.report = base::read_all(report.get(), "the report", kReportLimit);
  return run;
}

std::map<std::string, std::string> subject_environment(const TrialSetup& setup) {
  auto environment = contract_environment(setup.user_file);
  environment["HOLDFAST_SYSTEM_DIR"] = setup.paths.system_dir.string();
  environment["HOLDFAST_CONFIG_DIR"] = setup.paths.config_dir.string();
  environment["HOLDFAST_STATE_DIR"] = setup.state_dir.string();
  environment[kEnvReportFd] = std::to_string(kReportFd);
  return environment;
}

std::string what_it_reported(const std::string& report) {
  return report.empty() ? "nothing (no settings found)" : printable(report, 2000);
}

Trial failed_to_run(const std::exception& e) {
  Trial trial;
  trial.note = printable(e.what(), 400);
  return trial;
}

}  // namespace

HostPort::HostPort() {
  listener_.reset(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!listener_.valid()) base::throw_errno("cannot make a socket for", "the host port");
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  if (::bind(listener_.get(), reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
      ::listen(listener_.get(), 64) != 0 ||
      ::getsockname(listener_.get(), reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    base::throw_errno("cannot listen on", "127.0.0.1");
  }
  port_ = ntohs(address.sin_port);
  base::Pipe stop = base::make_pipe("the host port");
  stop_read_ = std::move(stop.read_end);
  stop_write_ = std::move(stop.write_end);
  thread_ = std::thread([this] {
    for (;;) {
      pollfd fds[2] = {{listener_.get(), POLLIN, 0}, {stop_read_.get(), POLLIN, 0}};
      if (::poll(fds, 2, -1) < 0 && errno != EINTR) return;
      if (fds[1].revents != 0) return;
      if (fds[0].revents != 0) {
        const int connection = ::accept4(listener_.get(), nullptr, nullptr, SOCK_CLOEXEC);
        if (connection >= 0) ::close(connection);
      }
    }
  });
}

HostPort::~HostPort() {
  stop_write_.reset();  // end of file on stop_read_: the thread returns
  thread_.join();
}

std::string probe_line(const std::string& output) {
  std::istringstream in(output);
  std::string found;
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with("{\"results\"")) found = line;
  }
  return found;
}

Trial classify_read(int exit_code, const std::string& report, const std::string& err,
                    int refusal_exit) {
  Trial trial;
  trial.evidence = {{"exit", exit_code},
                    {"reported_policy", what_it_reported(report)},
                    {"stderr", printable(err, 2000)}};
  if (exit_code == refusal_exit) {
    trial.outcome = Outcome::refused;
    trial.note = printable(err, 400);
    return trial;
  }
  if (exit_code != 0) {
    trial.outcome = Outcome::error;
    trial.note = "exit " + std::to_string(exit_code) + ": " + printable(err, 400);
    return trial;
  }
  const NaiveReading reading = reading_of(report);
  if (reading.kind == NaiveReading::Kind::strict) {
    trial.outcome = Outcome::honoured;
    return trial;
  }
  trial.outcome = Outcome::violated;
  trial.kind = describe(reading);
  trial.note = trial.kind + ": it reported " + what_it_reported(report);
  return trial;
}

Trial external_launch_trial(const ExternalSubject& subject, const TrialSetup& setup,
                            const fs::path& workspace) {
  // The network check: a connection to the host's loopback.
  const std::vector<std::string> probe =
      probe_args(workspace, "connect-tcp:127.0.0.1:" + std::to_string(subject.host_port));
  std::string probe_text;
  for (const auto& word : probe) probe_text += (probe_text.empty() ? "" : " ") + shell_quote(word);
  auto environment = subject_environment(setup);
  environment[kEnvWorkspace] = workspace.string();
  environment[kEnvProbe] = probe_text;
  const std::string command =
      expand_command(subject.command, {{"{settings}", {setup.user_file.string()}},
                                       {"{settings_dir}", {setup.user_file.parent_path().string()}},
                                       {"{workspace}", {workspace.string()}},
                                       {"{probe}", probe}});
  try {
    ContractRun run = run_under_contract(command, environment, workspace);
    const std::string output = run.captured.out;
    run.captured.out = probe_line(output);
    const NaiveReading reading = reading_of(run.report);
    Trial trial = classify_start(run.captured, workspace, subject.refusal_exit);
    if (trial.outcome == Outcome::error && run.captured.out.empty()) {
      trial.note = "no probe results in its output (pass the command's stdout through): " +
                   printable(output, 300) + " " + printable(run.captured.err, 300);
    }
    if (reading.kind != NaiveReading::Kind::strict) {
      trial = with_reader_view(std::move(trial), describe(reading));
    } else if (trial.outcome == Outcome::violated) {
      trial.note += " (it reported reading the policy, and did not enforce it)";
    }
    trial.evidence["exit"] = base::exit_code(run.captured.status);
    trial.evidence["reported_policy"] = what_it_reported(run.report);
    trial.evidence["stderr"] = printable(run.captured.err, 2000);
    return trial;
  } catch (const std::exception& e) {
    return failed_to_run(e);
  }
}

Trial external_read_trial(const ExternalSubject& subject, const TrialSetup& setup) {
  const std::string command = expand_command(
      subject.command, {{"{settings}", {setup.user_file.string()}},
                        {"{settings_dir}", {setup.user_file.parent_path().string()}}});
  try {
    const ContractRun run = run_under_contract(command, subject_environment(setup),
                                               setup.user_file.parent_path().parent_path());
    Trial trial = classify_read(base::exit_code(run.captured.status), run.report, run.captured.err,
                                subject.refusal_exit);
    trial.child_seconds = run.captured.seconds;
    return trial;
  } catch (const std::exception& e) {
    return failed_to_run(e);
  }
}

}  // namespace holdfast::race
