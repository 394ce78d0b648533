// `holdfast check [--workspace DIR] [--cwd DIR] [--mode MODE] [--tmp DIR]
//                 [--json] TOOL [ARGUMENT]`
//
// Asks the gatekeeper about one tool call, with the rules of the effective
// settings, and prints the decision, the rule that decided it and why.
//
// Exit codes: 0 allow, 10 ask, 11 deny; 1 error (invalid settings, a rule
// that does not parse: nothing is decided with a rule set that cannot be
// read in full); 2 usage.
#pragma once

#include <CLI/CLI.hpp>

#include "launcher/gatekeeper/check.hpp"

namespace holdfast::gatekeeper {

enum CheckExit : int {
  check_allow = 0,
  check_error = 1,
  check_usage = 2,
  check_ask = 10,
  check_deny = 11
};

CLI::App* add_check_cli(CLI::App& app, int& exit_code);

}  // namespace holdfast::gatekeeper
