// `holdfast doctor [--workspace DIR] [--json]`: what `holdfast run` would do
// on this host. Exit 0 when launches would go ahead, 1 when they would be
// refused.
#pragma once

#include <CLI/CLI.hpp>

namespace holdfast::doctor {

CLI::App* add_doctor_cli(CLI::App& app, int& exit_code);

}  // namespace holdfast::doctor
