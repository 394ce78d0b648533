// One question to the gatekeeper about one tool call, answered with the
// rules of the effective settings: what `holdfast check` and the settings
// service's check route both ask.
#pragma once

#include <string>
#include <vector>

#include "launcher/gatekeeper/decide.hpp"
#include "settings/errors.hpp"

namespace holdfast::gatekeeper {

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

}  // namespace holdfast::gatekeeper
