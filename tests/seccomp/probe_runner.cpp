#include "probe_runner.hpp"

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <utility>

#include "base/fd.hpp"
#include "base/process.hpp"
#include "launcher/seccomp/bpf_export.hpp"
#include "launcher/seccomp/filter.hpp"

namespace holdfast::seccomp::testing {
namespace {

ProbeReport run(const std::vector<std::string>& argv, int inherit_fd) {
  base::SpawnRequest request;
  request.argv = argv;
  // The filter's descriptor is O_CLOEXEC; mapping it onto itself is what
  // lets bwrap (or the probe) see it under the number on its command line.
  if (inherit_fd >= 0) request.fds.push_back({inherit_fd, inherit_fd});
  base::Captured captured = base::run_captured(std::move(request));
  ProbeReport report;
  report.status = captured.status;  // raw: a probe killed by SIGSYS shows as such
  report.output = std::move(captured.out);
  report.errors = std::move(captured.err);

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
  // base::spawn does not search PATH; env does, as the old execvp did, and
  // execs bwrap in its own place, so the wait status is bwrap's.
  std::vector<std::string> argv = {"/usr/bin/env",
                                   "bwrap",
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
