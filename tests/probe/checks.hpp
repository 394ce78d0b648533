// The checks holdfast-probe can run (see probe.cpp for the list and the
// output). Each check is a function from its argument (the text after ':' in
// "write:/etc/x", empty when none) to an Outcome; it runs in a forked child,
// so it may change its own process freely.
#pragma once

#include <sys/types.h>

#include <functional>
#include <map>
#include <string>

namespace holdfast::probe {

struct Outcome {
  bool allowed = false;  // the operation succeeded
  int error = 0;         // errno when it did not
  std::string detail;    // what was attempted
  std::string value;     // for checks that read something
  bool has_value = false;
};

using CheckFn = std::function<Outcome(const std::string& arg)>;
using CheckTable = std::map<std::string, CheckFn>;

// Outcome of a call returning -1/errno or >= 0.
Outcome from_rc(long rc, std::string detail);
// The same for a call returning a new fd, which is closed again.
Outcome fd_outcome(long fd, std::string detail);
// A successful check that reports a value.
Outcome with_value(std::string detail, std::string value);
// waitpid() for `pid`, retried on EINTR; the wait status or -1.
int wait_status(pid_t pid);

// network, processes, files, environment, state (checks_process.cpp)
void add_process_checks(CheckTable& table);
// namespaces, mounts, kernel interfaces, personality, terminal, foreign ABIs
// (checks_kernel.cpp)
void add_kernel_checks(CheckTable& table);
// writable /proc knobs, set-id files, secrets in other processes, inherited
// descriptors, host Unix sockets without socket(), bounds (checks_host.cpp)
void add_host_checks(CheckTable& table);
// Notes the descriptors open now, for the "fds" check; main() calls it first.
void record_inherited_fds();

}  // namespace holdfast::probe
