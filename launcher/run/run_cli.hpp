// `holdfast run [--workspace DIR] [--cwd DIR] [--require-sandbox]
//               [--report FILE] [--dry-run] [--explain] [--timeout SECONDS]
//               -- CMD ARGS...`
//
// Exit status: the command's; 128+N when it was killed by signal N; 124 when
// --timeout expired; 125 when holdfast refused or failed (a message on
// stderr starting with "holdfast:" says what and what to do).
#pragma once

#include <CLI/CLI.hpp>
#include <filesystem>
#include <string>

#include "launcher/run/launch_plan.hpp"

namespace holdfast::launcher {

CLI::App* add_run_cli(CLI::App& app, int& exit_code);

// The plan `holdfast run --explain` describes for a launch in `workspace`
// (nothing is opened for running and nothing runs). Throws like
// plan_launch, and std::runtime_error when bubblewrap is not found.
LaunchPlan plan_for_explanation(const std::filesystem::path& workspace);

// What `holdfast run --explain` prints for `plan`.
std::string explanation_text(const LaunchPlan& plan);

}  // namespace holdfast::launcher
