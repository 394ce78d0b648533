// `holdfast settings ...`: get, set, unset, show, validate, schema.
//
// Exit codes: 0 ok, 1 error, 2 usage, 3 revision conflict, 4 invalid settings.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <nlohmann/json.hpp>

#include "settings/watcher.hpp"

namespace holdfast::settings {

enum SettingsExit : int {
  exit_ok = 0,
  exit_error = 1,
  exit_usage = 2,
  exit_conflict = 3,
  exit_invalid = 4
};

// Adds the `settings` subcommand tree to `app`. The chosen command's exit
// code is stored in `exit_code`.
CLI::App* add_settings_cli(CLI::App& app, int& exit_code);

// Runs `body`, printing any settings error on stderr with the "holdfast:"
// prefix, and returns the matching exit code.
int run_settings_command(const std::function<int()>& body);

}  // namespace holdfast::settings
