// Runs a program and captures its stdout and stderr; the real-bubblewrap
// tests use it. Extra descriptors (the empty-data fd) are inherited as
// opened. argv[0] may be a bare name ("bwrap", as the argv builder writes
// it by default): /usr/bin/env finds it on PATH.
#pragma once

#include <string>
#include <vector>

#include "tests/support/process.hpp"

namespace holdfast::sandbox::testing {

struct Outcome {
  int status = -1;  // exit code; -N when killed by signal N
  std::string out;
  std::string err;
};

inline Outcome run_process(const std::vector<std::string>& argv) {
  std::vector<std::string> through_env = {"/usr/bin/env"};
  through_env.insert(through_env.end(), argv.begin(), argv.end());
  auto result = holdfast::testing::run_command(through_env, {});
  return {result.exit_code, std::move(result.out), std::move(result.err)};
}

}  // namespace holdfast::sandbox::testing
