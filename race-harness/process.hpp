// The processes a campaign runs, over base's runner: the confined starts
// (output captured, timed) and the long-running writer processes that
// report line by line.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "base/fd.hpp"
#include "base/line_reader.hpp"
#include "base/process.hpp"

namespace holdfast::race {

struct Captured {
  int status = 0;  // raw wait status
  std::string out;
  std::string err;
  double seconds = 0;  // from spawn to reap
};

// Runs argv[0] (a path) with `environment` added to ours, captures stdout
// and stderr, and waits for it. Throws base::SystemError when it cannot be
// started.
Captured run_captured(const std::vector<std::string>& argv,
                      const std::map<std::string, std::string>& environment);

// A process whose stdout is a pipe we read line by line (and, when asked,
// whose stdin is a pipe we write lines to); stopped with SIGTERM, then
// SIGKILL if it does not exit within a grace period. `environment` is
// added to ours.
class ReportingChild {
 public:
  explicit ReportingChild(const std::vector<std::string>& argv,
                          const std::map<std::string, std::string>& environment = {},
                          bool with_input = false);

  // Writes `line` and a newline to its stdin; false when it cannot (the
  // child closed its input or ended, or there is no input pipe).
  bool write_line(const std::string& line);
  // Closes its stdin: end of file for the child.
  void close_input() { in_.reset(); }

  // The next line the child writes, waiting at most `timeout`; empty when
  // the child closed its output or the time ran out.
  std::string read_line(std::chrono::milliseconds timeout);
  // SIGTERM, wait up to `grace`, then SIGKILL; returns the wait status and
  // leaves any last output for read_line.
  int stop(std::chrono::milliseconds grace);
  pid_t pid() const { return child_.pid(); }

 private:
  base::Child child_;
  base::LineReader out_;
  base::UniqueFd in_;
};

}  // namespace holdfast::race
