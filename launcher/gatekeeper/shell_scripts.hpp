// What the little languages that programs take as arguments do: sed
// scripts (e, r, R, w, W, s///e, s///w), awk programs (system(), pipes,
// print > file, getline < file, @load), jq filters (import, include).
// Each is read the way its program reads it, far enough to find every
// command it runs and every file it reads or writes; what does not parse
// is reported as unknown (the caller asks).
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "launcher/gatekeeper/shell_analysis.hpp"

namespace holdfast::gatekeeper::shell::detail {

struct ScriptEffects {
  // Files as the script names them (relative to the cwd; no ~ expansion:
  // sed and awk do none). An empty name: a file the script computes.
  std::vector<std::pair<OpKind, std::string>> files;
  std::vector<std::string> commands;  // shell command lines it runs
  std::vector<std::string> unknown;   // what is not mapped
  std::string runs_unknown;           // non-empty: it runs a command it computes
};

ScriptEffects sed_script_effects(std::string_view script);
ScriptEffects awk_program_effects(std::string_view program);
ScriptEffects jq_filter_effects(std::string_view filter);

}  // namespace holdfast::gatekeeper::shell::detail
