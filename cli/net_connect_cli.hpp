// `holdfast net-connect HOST PORT`: git over ssh's way out of a sandbox with
// a network allow-list (launcher/run/net_connect.hpp). Only useful inside
// `holdfast run`, where GIT_SSH_COMMAND names it as ssh's ProxyCommand.
#pragma once

#include <CLI/CLI.hpp>

namespace holdfast::launcher {

CLI::App* add_net_connect_cli(CLI::App& app, int& exit_code);

}  // namespace holdfast::launcher
