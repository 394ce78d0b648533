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
#include <string>
#include <vector>

#include "launcher/gatekeeper/decide.hpp"
#include "settings/errors.hpp"

namespace holdfast::gatekeeper {

enum CheckExit : int {
  check_allow = 0,
  check_error = 1,
  check_usage = 2,
  check_ask = 10,
  check_deny = 11
};

// One question to the gatekeeper, as `holdfast check` and the settings
// service ask it. Empty strings take the defaults: cwd the current
// directory, workspace the cwd, mode permissions.defaultMode (else default).
struct CheckQuestion {
  std::string workspace;
  std::string cwd;
  std::string mode;
  std::string tmp = "/tmp";
  std::string tool;
  std::string argument;
};

struct CheckAnswer {
  Verdict verdict;
  Mode mode = Mode::default_mode;
  std::vector<settings::Diagnostic> warnings;  // from merging the settings
};

// Takes a snapshot of the settings for the workspace and decides. Throws
// UsageError (unknown mode), RuleError, InvalidSettings, SnapshotError, and
// std::runtime_error when HOME is not an absolute path.
CheckAnswer answer_check(const CheckQuestion& question);

CLI::App* add_check_cli(CLI::App& app, int& exit_code);

}  // namespace holdfast::gatekeeper
