// `holdfast run [--workspace DIR] [--cwd DIR] [--require-sandbox]
//               [--report FILE] [--dry-run] [--explain] [--timeout SECONDS]
//               -- CMD ARGS...`
//
// Exit status: the command's; 128+N when it was killed by signal N; 124 when
// --timeout expired; 125 when holdfast refused or failed (a message on
// stderr starting with "holdfast:" says what and what to do).
#pragma once

#include <CLI/CLI.hpp>

namespace holdfast::launcher {

CLI::App* add_run_cli(CLI::App& app, int& exit_code);

}  // namespace holdfast::launcher
