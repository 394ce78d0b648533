// Runs holdfast-probe inside real bubblewrap (optionally under the filter,
// passed as `--seccomp FD` the way the launcher passes it) or on the host,
// and parses its one JSON line.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "launcher/seccomp/rules.hpp"

namespace holdfast::seccomp::testing {

struct ProbeResult {
  bool allowed = false;
  int error = 0;   // errno
  int signal = 0;  // the check's process was killed by this signal
  std::string detail;
  std::string value;
};

struct ProbeReport {
  int status = -1;     // wait status of bwrap (or the probe on the host)
  std::string output;  // stdout
  std::string errors;  // stderr
  std::map<std::string, ProbeResult> results;

  // The result of `check`; fails the test (throws) if the probe did not report it.
  const ProbeResult& at(const std::string& check) const;
};

// bwrap --unshare-user --unshare-pid --die-with-parent --ro-bind / / --proc /proc
//       --dev /dev [--seccomp FD] -- holdfast-probe CHECKS...
ProbeReport run_probe_in_bwrap(const std::optional<FilterOptions>& filter,
                               const std::vector<std::string>& checks);

// holdfast-probe [--load-seccomp FD] CHECKS..., straight on the host (with
// this process's privileges).
ProbeReport run_probe_on_host(const std::optional<FilterOptions>& filter,
                              const std::vector<std::string>& checks);

}  // namespace holdfast::seccomp::testing
