#include "probe_runner.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <stdexcept>

#include "base/fd.hpp"
#include "launcher/seccomp/bpf_export.hpp"
#include "launcher/seccomp/filter.hpp"

namespace holdfast::seccomp::testing {
namespace {

ProbeReport run(const std::vector<std::string>& argv, int inherit_fd) {
  int out[2];
  if (::pipe2(out, O_CLOEXEC) != 0) throw std::runtime_error("pipe failed");
  UniqueFd err{::memfd_create("probe-stderr", MFD_CLOEXEC)};
  if (!err.valid()) throw std::runtime_error("memfd_create failed");

  std::vector<char*> args;
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);

  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    // Only async-signal-safe calls between fork and exec.
    if (::dup2(out[1], STDOUT_FILENO) < 0 || ::dup2(err.get(), STDERR_FILENO) < 0) ::_exit(126);
    if (inherit_fd >= 0 && !allow_inherit(inherit_fd)) ::_exit(126);
    ::execvp(args[0], args.data());
    ::_exit(127);
  }
  ::close(out[1]);
  ProbeReport report;
  char buffer[8192];
  for (;;) {
    const ssize_t n = ::read(out[0], buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    report.output.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(out[0]);
  while (::waitpid(pid, &report.status, 0) < 0 && errno == EINTR) {
  }
  ::lseek(err.get(), 0, SEEK_SET);
  report.errors = base::read_all(err.get(), "probe stderr");

  if (!report.output.empty()) {
    const auto parsed = nlohmann::json::parse(report.output);
    for (const auto& item : parsed.at("results")) {
      ProbeResult result;
      result.allowed = item.at("allowed").get<bool>();
      result.error = item.at("errno").get<int>();
      result.signal = item.value("signal", 0);
      result.detail = item.value("detail", "");
      result.value = item.value("value", "");
      report.results[item.at("check").get<std::string>()] = result;
    }
  }
  return report;
}

std::vector<std::string> with_checks(std::vector<std::string> argv,
                                     const std::vector<std::string>& checks) {
  argv.insert(argv.end(), checks.begin(), checks.end());
  return argv;
}

}  // namespace

const ProbeResult& ProbeReport::at(const std::string& check) const {
  const auto found = results.find(check);
  if (found == results.end()) {
    throw std::runtime_error("the probe did not report '" + check + "'; status " +
                             std::to_string(status) + ", stdout: " + output +
                             ", stderr: " + errors);
  }
  return found->second;
}

ProbeReport run_probe_in_bwrap(const std::optional<FilterOptions>& filter,
                               const std::vector<std::string>& checks) {
  std::vector<std::string> argv = {"bwrap",
                                   "--unshare-user",
                                   "--unshare-pid",
                                   "--die-with-parent",
                                   "--ro-bind",
                                   "/",
                                   "/",
                                   "--proc",
                                   "/proc",
                                   "--dev",
                                   "/dev"};
  UniqueFd bpf;
  if (filter) {
    bpf = export_bpf_to_memfd(build_filter(*filter));
    argv.insert(argv.end(), {"--seccomp", std::to_string(bpf.get())});
  }
  argv.insert(argv.end(), {"--", HOLDFAST_PROBE_PATH});
  return run(with_checks(argv, checks), bpf.valid() ? bpf.get() : -1);
}

ProbeReport run_probe_on_host(const std::optional<FilterOptions>& filter,
                              const std::vector<std::string>& checks) {
  std::vector<std::string> argv = {HOLDFAST_PROBE_PATH};
  UniqueFd bpf;
  if (filter) {
    bpf = export_bpf_to_memfd(build_filter(*filter));
    argv.insert(argv.end(), {"--load-seccomp", std::to_string(bpf.get())});
  }
  return run(with_checks(argv, checks), bpf.valid() ? bpf.get() : -1);
}

}  // namespace holdfast::seccomp::testing
