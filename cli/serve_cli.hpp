// `holdfast serve [--socket PATH | --listen ADDRESS:PORT]`: the settings
// service (service/serve.hpp) in the holdfast executable itself. Its HTTP
// stack (Boost.Beast on Asio) is header-only, so the static executable
// carries it; there is no second program to find.
#pragma once

#include <CLI/CLI.hpp>

namespace holdfast::service {

CLI::App* add_serve_cli(CLI::App& app, int& exit_code);

}  // namespace holdfast::service
